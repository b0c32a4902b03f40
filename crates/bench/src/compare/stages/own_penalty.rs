//! Stage `own_penalty`: the learner's penalty for each map on its own features at the pilot's D
//! (`tune-maps.toml`, on the tuning rows), within its share of the budget. The tuning run chose
//! one penalty with the tuning map; another map's features want their own (Nystroem's, on the
//! data's own rows, another scale than RFF's). The maps whose search, estimated from the pilot,
//! fits go in registry order; the others, and the tuning map (tuned with the bandwidth), keep
//! the tuning run's penalty.

use toml::Value;

use crate::compare::budget::{components_are_rows, Sweep};
use crate::compare::chosen::own_penalty;
use crate::compare::pipeline::OWN_PENALTY;
use crate::compare::setup::Setup;
use crate::compare::specs::{
    by_map_with_ds, learner_table, map_table, tuned_kernel, tuning_base, tuning_landmarks,
    tuning_map, Tuned, Written,
};
use crate::compare::state::{read, State};
use crate::error::Result;
use crate::spec::raw::{table, unspanned};

/// Learner fits of the search's two repetitions (two validation splits) of a 3-fold search
/// over the penalty's 11 values, in fits on all the rows: each fold's 11 on two thirds of them,
/// then the refit.
pub const SEARCH_FITS: f64 = 2.0 * (3.0 * 11.0 * 2.0 / 3.0 + 1.0);

/// Chooses each map's penalty, records it in the state's tuned values, and adds the notes for
/// the report.
pub fn run(state: &mut State) -> Result<()> {
    let (setup, d, rows) = (&state.setup, state.pilot_d, state.tuning_rows);
    let shared = tuning_map(setup);
    let share = rows as f64 / setup.n_train.max(1) as f64;
    let mut left = OWN_PENALTY.share.of_budget() * state.budget;
    let (mut maps, mut notes) = (Vec::new(), Vec::new());
    for map in setup.map_names().into_iter().filter(|m| *m != shared) {
        let cost = state.estimates.get(map, d).unwrap_or(f64::INFINITY) * share * SEARCH_FITS;
        if cost <= left {
            left -= cost;
            maps.push(map);
        } else {
            notes.push(format!(
                "{map} keeps the tuning map's {}: its own search was estimated at {cost:.0} s, \
                 past what is left of the {:.0} % of the budget it may take",
                setup.penalty,
                100.0 * OWN_PENALTY.share.of_budget()
            ));
        }
    }
    if !maps.is_empty() {
        state.progress.say(&format!(
            "each map's own {} at D = {d} on {rows} rows: {}",
            setup.penalty,
            maps.join(", ")
        ));
        let at: Vec<(&'static str, usize)> = maps.iter().map(|m| (*m, d)).collect();
        let spec = spec(setup, state.tuned, "tune-maps", &at, rows)?;
        let results = read(&state.context().run_spec("tune-maps", &spec, &[])?)?;
        for map in maps {
            match own_penalty(setup, &results.rows, map) {
                Some((penalty, size, edges)) => {
                    state.tuned.set_penalty(map, penalty, size);
                    notes.extend(edges);
                    notes.dedup();
                }
                None => notes.push(format!(
                    "{map} keeps the tuning map's {}: its own search did not run (see tune-maps)",
                    setup.penalty
                )),
            }
        }
    }
    for note in &notes {
        state.progress.say(note);
    }
    state.penalty_notes.extend(notes);
    Ok(())
}

/// `name` (`tune-maps`, `tune-last`): the learner's penalty for each of `maps` (series, each
/// with its D) on its own features, by 3-fold cross-validation on the tuning rows, the
/// bandwidth fixed at the tuned one. A map whose components are rows takes at most
/// [`tuning_landmarks`]. One entry of the grid per map, its series' D (and its variants'
/// values, `[maps.rff] "form, n_components" = [["phase", 1024]]`) in its table.
pub fn spec(
    setup: &Setup,
    tuned: Tuned,
    name: &str,
    maps: &[(&'static str, usize)],
    rows: usize,
) -> Result<Written> {
    let what = "each map's own penalty on its features, by cross-validation on a subsample";
    let mut w = tuning_base(setup, name, what, rows, 2)?;
    w.spec.kernel = tuned_kernel(setup, tuned);
    let cap = tuning_landmarks(setup, rows);
    let sweep = Sweep {
        per_map: maps
            .iter()
            .map(|&(series, d)| {
                let size = match components_are_rows(series) {
                    true => d.min(cap),
                    false => d,
                };
                (series, vec![size])
            })
            .collect(),
        ..Sweep::default()
    };
    let mut tuples = Vec::new();
    for (map, of_map) in by_map_with_ds(&sweep) {
        tuples.push(Value::Array(vec![
            map.name.into(),
            setup.learner.name.into(),
        ]));
        w.spec
            .maps
            .insert(map.name.into(), map_table(&of_map, None));
    }
    w.spec.grid = table([("map, learner", Value::Array(tuples))]);
    let mut features = learner_table(setup.learner, setup.penalty, "cv".into(), false);
    features.insert("folds".into(), unspanned(3.into()));
    w.spec.learners.insert(setup.learner.name.into(), features);
    Ok(w)
}
