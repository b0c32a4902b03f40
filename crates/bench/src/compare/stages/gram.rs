//! Stage `gram`: each map's Gram-matrix error, |K - Z Z'|_F / |K|_F, at the sweep's D on a few
//! training rows (`gram.toml`), for the cells whose estimate fits what is left of the budget
//! ([`gram_sweep`]); the rest are left out with the reason.

use toml::Value;

use crate::compare::budget::{components_are_rows, gram_sweep, landmarks, Sweep};
use crate::compare::lines;
use crate::compare::setup::Setup;
use crate::compare::specs::{base, by_map_with_ds, check, map_table, tuned_kernel, Tuned, Written};
use crate::compare::state::{read, State};
use crate::error::Result;
use crate::spec::raw::{table, unspanned};
use rfbench_registry::kinds::{column, GRAM_ERROR};

/// Fills the lines' Gram errors for the cells of the sweep whose estimate fits what is left of
/// the budget, and records the reasons of those left out.
pub fn run(state: &mut State) -> Result<()> {
    let setup = &state.setup;
    let swept = &state.lines;
    let seconds = |map: &str, d: usize| {
        let line = swept
            .iter()
            .find(|l| l.map == map && l.d == d && l.train_size == 0);
        line.map(|l| l.seconds)
    };
    let rows = GRAM_ROWS.min(landmarks(setup.n_train));
    let left = state.budget - state.progress.elapsed();
    let gram = gram_sweep(
        &state.swept,
        seconds,
        rows,
        setup.n_train,
        setup.repetitions,
        left,
    );
    // The sweep's reasons first, then those of the stages after it (`same_rows`) and this one.
    let after_sweep = std::mem::replace(&mut state.skipped, state.swept.skipped.clone());
    state.skipped.extend(after_sweep);
    state.skipped.extend(gram.skipped.iter().cloned());
    if gram.per_map.iter().all(|(_, ds)| ds.is_empty()) {
        return Ok(());
    }
    state.progress.say(&format!(
        "the maps' Gram-matrix errors on {rows} training rows"
    ));
    let spec = spec(setup, state.tuned, &gram)?;
    let outcome = state
        .context()
        .until(state.end())
        .run_spec("gram", &spec, &[])?;
    lines::add_gram_errors(&mut state.lines, &read(&outcome)?);
    Ok(())
}

/// Training rows whose Gram matrix the `gram` run compares with the exact kernel's.
pub const GRAM_ROWS: usize = 500;

/// The Gram-matrix error of every map at the sweep's D, on `GRAM_ROWS` training rows.
pub fn spec(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> Result<Written> {
    let what = "each map's Gram-matrix error at the sweep's D";
    let title = "Gram error of rfbench compare's maps";
    let mut w = base(setup, "gram", title, what, GRAM_ERROR.name)?;
    let rows = GRAM_ROWS.min(landmarks(setup.n_train));
    let samples = GRAM_ERROR.params[0].name;
    w.spec
        .run
        .insert(samples.into(), unspanned(Value::Integer(rows as i64)));
    w.spec.kernel = tuned_kernel(setup, tuned);
    // A map whose components are rows cannot take more than the rows compared.
    let fitting = Sweep {
        per_map: sweep
            .per_map
            .iter()
            .map(|(map, ds)| {
                let fits = |d: &&usize| !components_are_rows(map) || **d <= rows;
                (*map, ds.iter().filter(fits).copied().collect::<Vec<_>>())
            })
            .collect(),
        ..Sweep::default()
    };
    let per_map = by_map_with_ds(&fitting);
    let maps: Vec<Value> = per_map.iter().map(|(m, _)| Value::from(m.name)).collect();
    w.spec.grid = table([("map", Value::Array(maps))]);
    for (map, of_map) in &per_map {
        w.spec
            .maps
            .insert(map.name.to_string(), map_table(of_map, None));
    }
    w.spec.check = check(column::RELATIVE_FROBENIUS);
    Ok(w)
}
