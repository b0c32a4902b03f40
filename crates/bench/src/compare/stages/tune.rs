//! Stage `tune`: the bandwidth and the learner's penalty by cross-validation on a subsample,
//! with one map (the kernel's tuning map), and the exact machine's own values chosen for itself
//! in the same run ([`super::super::chosen`] reads them). Within its share of the budget: where
//! the data has more than twice [`PROBE_ROWS`] tuning rows, `tune-probe.toml` on that many first
//! times it, and `tune.toml` takes the rows that fit what is left of the share ([`rows_for`]).

use std::time::Instant;

use toml::Value;

use crate::compare::chosen::{chosen, past_the_edge as past_the_edge_chose, Chosen};
use crate::compare::pipeline::TUNE;
use crate::compare::setup::{Setup, EXACT_PENALTIES};
use crate::compare::specs::{
    kernel, learner_table, numbers, settings, tuning_base, tuning_d, tuning_map, variant_axis,
    Tuned, Written,
};
use crate::compare::state::{read, run_spec, State};
use crate::error::Result;
use crate::results::{CellValue, ResultRow};
use crate::spec::raw::{table, unspanned};
use rfbench_registry::kinds::column;
use rfbench_registry::maps::N_COMPONENTS;

mod sigma_edge;

/// Rows of the probe that times the tuning run before its rows are chosen.
pub const PROBE_ROWS: usize = 300;

/// How the tuning run's time grows with its rows, from the probe's (between the linear
/// learner's cross-validation, linear, and the kernel SVM's, up to quadratic).
const GROWTH: f64 = 1.5;

/// The tuning run's rows for `allowance` seconds, given a probe of `probe` rows that took
/// `seconds` (its time grown as rows^[`GROWTH`]): `most` halved until it fits, at least
/// `fewest` and the probe's. Halvings, not the rows that fit exactly, so that a machine a little
/// busier or quieter tunes on the same rows.
pub fn rows_for(allowance: f64, probe: usize, seconds: f64, most: usize, fewest: usize) -> usize {
    let floor = probe.max(fewest).min(most);
    let fits = |rows: usize| seconds * (rows as f64 / probe as f64).powf(GROWTH) <= allowance;
    std::iter::successors(Some(most), |&rows| Some(rows / 2))
        .take_while(|&rows| rows >= floor)
        .find(|&rows| fits(rows))
        .unwrap_or(floor)
}

/// Runs the tuning (the probe first where the data is large enough; the probe's values when no
/// more rows fit) and records what was chosen, the rows it ran on and a sentence on them.
pub fn run(state: &mut State) -> Result<()> {
    let (setup, progress) = (&state.setup, &state.progress);
    let most = setup.tuning_rows();
    let mut rows = most;
    let mut how = format!("on {most} rows");
    let mut results = None;
    if most > 2 * PROBE_ROWS {
        progress.say(&format!("timing the tuning on {PROBE_ROWS} rows"));
        let start = Instant::now();
        let spec = spec(setup, "tune-probe", PROBE_ROWS)?;
        let probe = run_spec(&state.out, "tune-probe", &spec, &state.run, &[])?;
        let seconds = start.elapsed().as_secs_f64();
        let share = TUNE.share.of_budget();
        let allowance = share * state.budget - seconds;
        let fewest = setup.fewest_tuning_rows();
        rows = rows_for(allowance, PROBE_ROWS, seconds, most, fewest);
        how = format!(
            "on {rows} of at most {most} rows (at least {}): a probe on {PROBE_ROWS} took \
             {seconds:.1} s, and tuning may take {:.0} % of the budget (time taken as growing \
             with rows^{GROWTH}, the rows halved until it fits)",
            fewest.max(PROBE_ROWS).min(most),
            100.0 * share
        );
        if rows == PROBE_ROWS {
            results = Some(read(&probe)?);
        }
    }
    let results = match results {
        Some(results) => results,
        None => {
            progress.say(&format!(
                "tuning the maps' and the exact machine's values on {rows} rows"
            ));
            let spec = spec(setup, "tune", rows)?;
            read(&run_spec(&state.out, "tune", &spec, &state.run, &[])?)?
        }
    };
    let mut chosen = chosen(setup, &results.rows)?;
    let left = TUNE.share.of_budget() * state.budget - state.progress.elapsed();
    sigma_edge::search(state, &mut chosen, (&results.rows, rows, left), spec)?;
    let left = TUNE.share.of_budget() * state.budget - state.progress.elapsed();
    past_the_edge(state, &mut chosen, &results.rows, rows, left)?;
    let (setup, progress) = (&state.setup, &state.progress);
    progress.say(&tuned_line(setup, &chosen.tuned));
    for warning in &chosen.warnings {
        progress.say(&format!("warning: {warning}"));
    }
    state.tuned = chosen.tuned;
    state.warnings = chosen.warnings;
    state.tuning_rows = rows;
    state.tuning_how = how;
    Ok(())
}

/// The exact machine's penalty values searched past the top of [`EXACT_PENALTIES`] when the
/// tuning run chose the top (the same steps, up to LIBSVM `grid.py`'s 2^15): a polynomial
/// kernel SVM whose best C was 8,192 stopped at 2,048 cost 1.4 points.
pub const PAST_THE_EDGE: [f64; 2] = [8192.0, 32768.0];

/// Where the tuning run chose the exact machine's penalty at the top of [`EXACT_PENALTIES`],
/// searches [`PAST_THE_EDGE`] too (`tune-edge.toml`, the top again on the same splits, taken
/// from `earlier` where the runner can) if its estimate, twice the top's time for each value,
/// fits the `left` seconds; replaces the edge's warning by what the search chose, or says why
/// it did not run.
fn past_the_edge(
    state: &State,
    chosen: &mut Chosen,
    earlier: &[ResultRow],
    rows: usize,
    left: f64,
) -> Result<()> {
    let setup = &state.setup;
    let top = EXACT_PENALTIES[EXACT_PENALTIES.len() - 1];
    if setup.exact_learner.tunes_penalty() || chosen.tuned.exact_penalty != top {
        return Ok(());
    }
    let at_top =
        |r: &&ResultRow| r.coordinates.get(setup.exact_penalty) == Some(&CellValue::Float(top));
    let seconds: f64 = earlier
        .iter()
        .filter(at_top)
        .filter_map(|r| Some(r.metric(column::TRAIN_SECONDS)? + r.metric(column::PREDICT_SECONDS)?))
        .sum();
    let estimate = 2.0 * seconds * PAST_THE_EDGE.len() as f64;
    let edge = |w: &String| w.starts_with(&format!("the exact machine's {}", setup.exact_penalty));
    if estimate > left {
        chosen.warnings.retain(|w| !edge(w));
        chosen.warnings.push(format!(
            "the exact machine's {} = {top:?} is at the top of the values tried: a search past \
             it ({}) was estimated at {estimate:.0} s, {:.0} s of tuning's share left",
            setup.exact_penalty,
            list(&PAST_THE_EDGE),
            left.max(0.0)
        ));
        return Ok(());
    }
    let mut values = vec![top];
    values.extend(PAST_THE_EDGE);
    state.progress.say(&format!(
        "the exact machine's {} chose {top:?}, the top of its range: trying {} (tune-edge.toml)",
        setup.exact_penalty,
        list(&PAST_THE_EDGE)
    ));
    let spec = edge_spec(setup, rows, &values)?;
    let results = read(&run_spec(
        &state.out,
        "tune-edge",
        &spec,
        &state.run,
        earlier,
    )?)?;
    let (best, sigma) = past_the_edge_chose(setup, &results.rows, &values, chosen.tuned.sigma)?;
    chosen.tuned.exact_penalty = best;
    chosen.tuned.exact_sigma = sigma;
    chosen.warnings.retain(|w| !edge(w));
    if best == values[values.len() - 1] {
        chosen.warnings.push(format!(
            "the exact machine's {} = {best:?} is at the top of the values tried, {} included: \
             its best may lie beyond",
            setup.exact_penalty,
            list(&PAST_THE_EDGE)
        ));
    }
    Ok(())
}

/// "8192, 32768".
fn list(values: &[f64]) -> String {
    let values: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
    values.join(", ")
}

/// `tune-edge.toml`: the tuning run's exact machine alone, at the penalty `values`.
pub fn edge_spec(setup: &Setup, rows: usize, values: &[f64]) -> Result<Written> {
    let mut w = spec(setup, "tune-edge", rows)?;
    let exact = rfbench_registry::exact_map().name;
    let tuple = Value::Array(vec![exact.into(), setup.exact_learner.name.into()]);
    w.spec
        .grid
        .insert("map, learner".into(), unspanned(Value::Array(vec![tuple])));
    w.spec.grid.remove(N_COMPONENTS.name);
    let mut table = settings(setup.exact_learner);
    table.insert(setup.exact_penalty.into(), unspanned(numbers(values)));
    w.spec
        .learners
        .insert(setup.exact_learner.name.into(), table);
    w.spec
        .learners
        .retain(|name, _| name == setup.exact_learner.name);
    w.spec.maps.clear();
    Ok(w)
}

/// The values tuned, the maps' and the exact machine's own, in one sentence.
pub fn tuned_line(setup: &Setup, tuned: &Tuned) -> String {
    let bandwidth = setup.kernel.bandwidth_param().map(|p| p.name);
    let with_sigma = |sigma: Option<f64>| match (bandwidth, sigma) {
        (Some(name), Some(s)) => format!("{name} = {s:.4}, "),
        _ => String::new(),
    };
    format!(
        "Tuned on the tuning run's training rows: for the maps (with {} on {}), {}{} = {:.4}; \
         for the exact machine ({}), its own {}{} = {:.4}.",
        setup.learner.name,
        tuning_map(setup),
        with_sigma(tuned.sigma),
        setup.penalty,
        tuned.penalty,
        setup.exact_learner.name,
        with_sigma(tuned.exact_sigma),
        setup.exact_penalty,
        tuned.exact_penalty
    )
}

/// The tuning run `name`, on a subsample of `rows`: for the maps, sigma from the candidates and
/// the learner's
/// penalty by 3-fold cross-validation (nested: each bandwidth's folds choose their own penalty)
/// with the tuning map, once; for the exact machine, the same for itself (its own sigma and
/// penalty), or, when it cannot cross-validate its penalty (the kernel SVM's C), one cell per
/// value of [`EXACT_PENALTIES`] (each choosing its sigma by cross-validation), scored on the
/// held-out rows of two splits.
pub fn spec(setup: &Setup, name: &str, rows: usize) -> Result<Written> {
    let what = "the bandwidth and the penalties by cross-validation on a subsample";
    let mut w = tuning_base(setup, name, what, rows, 2)?;
    let sigma = match setup.sigmas.as_slice() {
        [] => None,
        [given] => Some(Value::Float(*given)),
        candidates => Some(Value::Table(toml::Table::from_iter([
            ("cv".to_string(), numbers(candidates)),
            ("folds".to_string(), Value::Integer(3)),
        ]))),
    };
    w.spec.kernel = kernel(setup, sigma);
    let d = tuning_d(setup);
    let exact = rfbench_registry::exact_map().name;
    // The tuning series' map, with its variant's parameters in the map's table.
    let series = rfbench_registry::series::named(tuning_map(setup));
    let map = series.map_or(tuning_map(setup), |s| s.map.name);
    if let Some((key, values)) = series.and_then(|s| variant_axis(&[s])) {
        w.spec.maps.insert(map.into(), table([(key, values)]));
    }
    let tuples = [(map, setup.learner), (exact, setup.exact_learner)]
        .iter()
        .map(|(map, l)| Value::Array(vec![(*map).into(), l.name.into()]))
        .collect();
    w.spec.grid = table([
        ("map, learner", Value::Array(tuples)),
        (N_COMPONENTS.name, Value::Integer(d as i64)),
    ]);
    let mut features = learner_table(setup.learner, setup.penalty, "cv".into(), true);
    features.insert("folds".into(), unspanned(3.into()));
    w.spec.learners.insert(setup.learner.name.into(), features);
    let exact_table = if setup.exact_learner.tunes_penalty() {
        let mut t = learner_table(setup.exact_learner, setup.exact_penalty, "cv".into(), true);
        t.insert("folds".into(), unspanned(3.into()));
        t
    } else {
        let mut t = settings(setup.exact_learner);
        t.insert(
            setup.exact_penalty.into(),
            unspanned(numbers(&EXACT_PENALTIES)),
        );
        t
    };
    w.spec
        .learners
        .insert(setup.exact_learner.name.into(), exact_table);
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tuning_rows_are_halved_until_they_fit_down_to_the_floor() {
        // A probe of 300 rows in 2 s; 16 s allowed: 8x the time, at most 4x the rows: 2400
        // halved to 1200.
        assert_eq!(rows_for(16.0, 300, 2.0, 2400, 0), 1200);
        // 15.9 s: 1200 rows do not fit; 600 do.
        assert_eq!(rows_for(15.9, 300, 2.0, 2400, 0), 600);
        // At most the data's; at least the probe's, even with no time left.
        assert_eq!(rows_for(1e6, 300, 2.0, 2000, 0), 2000);
        assert_eq!(rows_for(-5.0, 300, 2.0, 2000, 0), 300);
        // At least the per-class floor, whatever the time.
        assert_eq!(rows_for(-5.0, 300, 2.0, 2600, 2600), 2600);
        assert_eq!(rows_for(16.0, 300, 2.0, 5200, 2600), 2600);
        // A floor above the data's rows is the data's.
        assert_eq!(rows_for(16.0, 300, 2.0, 2000, 2600), 2000);
    }
}
