//! Stage `last_rungs`: each series' penalty at its largest D. The tuning run chooses the
//! learner's penalty with the tuning map at [`tuning_d`], `tune-maps.toml` each other series' at the pilot's D (at
//! most 1,024); the sweep then climbs past them, and a penalty chosen on 512 features is not
//! the one 4,096 want (more features fit more: the best C falls, the best lambda rises). Once the
//! rounds have settled each series' last rung, `tune-last.toml` chooses the penalty again at that
//! D, by the same cross-validation on the tuning rows, for the series whose search and the rerun
//! of that one cell fit the stage's share ([`LAST_RUNGS`]: a tenth of the budget, and half the
//! sweep's time left); where the
//! choice changed, only that cell runs again, its penalty a column of its own in
//! `compare.toml`, so that `rfbench reproduce compare.toml` gives the same scores. The series'
//! smaller D keep the penalty chosen before: searching every rung would cost the whole sweep
//! again, and the last rung is the one the answer leans on when a series has not plateaued.

use std::time::Instant;

use super::own_penalty::{self, SEARCH_FITS};
use super::sweep;
use crate::compare::budget::{components_are_rows, Estimates, Sweep};
use crate::compare::chosen::own_penalty;
use crate::compare::pipeline::LAST_RUNGS;
use crate::compare::setup::Setup;
use crate::compare::specs::{tuning_d, tuning_landmarks, tuning_map, Tuned};
use crate::compare::state::{read, Context, State};
use crate::error::Result;
use crate::run::Outcome;

/// Searches the series' last rungs that fit the stage's share, reruns the cells whose penalty
/// changed, and records the choices and the notes for the report.
pub fn run(state: &mut State) -> Result<()> {
    let left = state
        .deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let share = LAST_RUNGS.share;
    let allowance = (share.of_budget() * state.budget).min(share.of_left() * left);
    let before = state.tuned;
    let tuning_d = tuning_d(&state.setup);
    let chosen = |s: &str| chosen_at(&before, tuning_d, s);
    let (setup, rows) = (&state.setup, state.tuning_rows);
    let (searched, mut notes) = plan(
        setup,
        &state.swept,
        &state.estimates,
        rows,
        allowance,
        chosen,
    );
    let outcome = state.take_outcome()?;
    let mut tuned = state.tuned;
    let context = state.context().until(state.deadline);
    let (outcome, more) = search(&context, &mut tuned, &state.swept, &searched, rows, outcome)?;
    notes.extend(more);
    state.tuned = tuned;
    state.outcome = Some(outcome);
    state.penalty_notes.extend(notes);
    Ok(())
}

/// The D each series' penalty (before the last rungs) was chosen at: its own search's, or the
/// tuning run's (the tuning map's penalty).
pub fn chosen_at(tuned: &Tuned, tuning_d: usize, series: &str) -> usize {
    let own = tuned
        .own_penalties()
        .into_iter()
        .find(|(s, _)| *s == series);
    own.map_or(tuning_d, |(_, p)| p.d)
}

/// The series of `sweep` whose last rung is not the D their penalty was chosen at, each with
/// that rung, in the sweep's order, those whose search and rerun (estimated from the pilot)
/// fit `allowance` seconds; and a note for each left out, saying why.
pub fn plan(
    setup: &Setup,
    sweep: &Sweep,
    estimates: &Estimates,
    rows: usize,
    allowance: f64,
    chosen: impl Fn(&str) -> usize,
) -> (Vec<(&'static str, usize)>, Vec<String>) {
    let share = rows as f64 / setup.n_train.max(1) as f64;
    let cap = tuning_landmarks(setup, rows);
    let mut left = allowance;
    let (mut searched, mut notes) = (Vec::new(), Vec::new());
    for (series, ds) in &sweep.per_map {
        let Some(&last) = ds.last() else {
            continue;
        };
        let before = chosen(series);
        if last == before {
            continue;
        }
        let keeps = format!(
            "{series} keeps, at its last D = {last}, the {} chosen at D = {before}",
            setup.penalty
        );
        if components_are_rows(series) && last > cap {
            notes.push(format!(
                "{keeps}: D = {last} is more landmarks than the tuning folds' {cap} rows"
            ));
            continue;
        }
        let t = estimates.get(series, last).unwrap_or(f64::INFINITY);
        let cost = t * (share * SEARCH_FITS + setup.repetitions as f64);
        if cost > left {
            notes.push(format!(
                "{keeps}: a search there and the rerun of that cell were estimated at \
                 {cost:.0} s, past the {left:.0} s left of what the last rungs may take (at \
                 most {:.0} % of the budget, and half the sweep's time left)",
                100.0 * LAST_RUNGS.share.of_budget()
            ));
            continue;
        }
        left -= cost;
        searched.push((*series, last));
    }
    (searched, notes)
}

/// Runs `tune-last.toml` for `searched` (series and last rung) on `rows` tuning rows, records
/// each choice in `tuned` as that rung's own, and reruns `compare.toml` (from `outcome`'s rows:
/// only the cells whose penalty changed run) when any changed. Returns the sweep's outcome and
/// the notes for the report.
fn search(
    context: &Context,
    tuned: &mut Tuned,
    sweep: &Sweep,
    searched: &[(&'static str, usize)],
    rows: usize,
    outcome: Outcome,
) -> Result<(Outcome, Vec<String>)> {
    let setup = context.setup;
    if searched.is_empty() {
        return Ok((outcome, Vec::new()));
    }
    let names: Vec<String> = searched
        .iter()
        .map(|(s, d)| format!("{s} at D = {d}"))
        .collect();
    context.progress.say(&format!(
        "each series' own {} at its last D on {rows} rows: {}",
        setup.penalty,
        names.join(", ")
    ));
    let spec = own_penalty::spec(setup, *tuned, "tune-last", searched, rows)?;
    let results = read(&context.run_spec("tune-last", &spec, &[])?)?;
    let mut notes = Vec::new();
    let mut changed = Vec::new();
    for &(series, d) in searched {
        let Some((penalty, at, edges)) = own_penalty(setup, &results.rows, series) else {
            notes.push(format!(
                "{series} keeps, at its last D = {d}, its earlier {}: the search there did not \
                 run (see tune-last)",
                setup.penalty
            ));
            continue;
        };
        notes.extend(edges);
        if at != d {
            notes.push(format!(
                "{series} keeps, at its last D = {d}, its earlier {}: tune-last searched D = \
                 {at}",
                setup.penalty
            ));
            continue;
        }
        let before = tuned.penalty_at(series, d);
        if same(penalty, before) {
            // The geometric mean of the repetitions' choices rounds: 128 came back as
            // 127.99999999999997, and a rerun of the cell for it would change nothing.
            tuned.set_last_rung(series, before, d);
            continue;
        }
        tuned.set_last_rung(series, penalty, d);
        changed.push(format!("{series} at D = {d} ({before:.4} -> {penalty:.4})"));
    }
    notes.dedup();
    if changed.is_empty() {
        return Ok((outcome, notes));
    }
    context.progress.say(&format!(
        "rerunning the cells whose {} changed: {}",
        setup.penalty,
        changed.join(", ")
    ));
    let spec = sweep::spec(setup, *tuned, sweep)?;
    let rerun = context.run_spec("compare", &spec, &outcome.rows)?;
    notes.push(format!(
        "rerun with the {} chosen at their last D: {}",
        setup.penalty,
        changed.join(", ")
    ));
    Ok((rerun, notes))
}

/// Whether two penalties are one value up to rounding (a relative 1e-9: the search's values
/// are powers of 2 apart).
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// The learner's penalty on each series' features and the D it was chosen at, in a sentence
/// for the report.
pub fn sentence(setup: &Setup, tuned: &Tuned) -> String {
    let tuning_d = tuning_d(setup);
    let shared = tuning_map(setup);
    let (own, last) = (tuned.own_penalties(), tuned.last_rung_penalties());
    let parts: Vec<String> = setup
        .map_names()
        .into_iter()
        .map(|series| {
            let mut text = match own.iter().find(|(s, _)| *s == series) {
                Some((_, p)) => format!(
                    "{series} {:.4} at D = {} (tune-maps.toml, on its own features)",
                    p.value, p.d
                ),
                None if series == shared => format!(
                    "{series} {:.4} at D = {tuning_d} (tune.toml, with the bandwidth)",
                    tuned.penalty
                ),
                None => format!(
                    "{series} {:.4}, the tuning map's, chosen on {shared}'s features at D = \
                     {tuning_d} (tune.toml)",
                    tuned.penalty
                ),
            };
            if let Some((_, p)) = last.iter().find(|(s, _)| *s == series) {
                text.push_str(&format!(
                    ", and in its cell at its last D = {}, {:.4} chosen there (tune-last.toml)",
                    p.d, p.value
                ));
            }
            text
        })
        .collect();
    format!(
        " The learner's {} on each series' features, and the D it was chosen at: {}.",
        setup.penalty,
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::two_maps;

    #[test]
    fn a_series_is_searched_at_its_last_rung_when_it_is_new_and_fits() {
        let s = two_maps(true);
        let (a, b, rows_map) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let sweep = Sweep {
            per_map: vec![
                (a, vec![64, 128, 256]),
                (b, vec![64, 128]),
                (rows_map, vec![64, 128, 256]),
            ],
            ..Sweep::default()
        };
        let mut estimates = Estimates::default();
        for (series, d, t) in [(a, 256, 1.0), (b, 128, 1.0), (rows_map, 256, 1.0)] {
            estimates.seconds.insert((series.to_string(), d), t);
        }
        // b's penalty was chosen at its last rung already; the rows map's last rung has more
        // landmarks than the folds of 300 tuning rows (300 x 0.75 x 2/3 = 150, 143 landmarks).
        let chosen = |series: &str| if series == b { 128 } else { 64 };
        // a: 1 s x (300 / 450 x 46 fits + 3 repetitions) = 33.67 s.
        let (searched, notes) = plan(&s, &sweep, &estimates, 300, 40.0, chosen);
        assert_eq!(searched, [(a, 256)]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("more landmarks than the tuning folds' 143 rows"));
        let (searched, notes) = plan(&s, &sweep, &estimates, 300, 30.0, chosen);
        assert!(searched.is_empty());
        assert!(
            notes[0].contains("estimated at 34 s, past the 30 s left"),
            "{notes:?}"
        );
    }

    /// The report says, for every series, the penalty and the D it was chosen at: the tuning
    /// map's with the bandwidth, a series' own, the tuning map's borrowed, a last rung's.
    #[test]
    fn the_report_says_where_each_series_penalty_was_chosen() {
        let mut s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        s.ladder = vec![64, 128, 256, 4096];
        let shared = tuning_map(&s);
        assert_eq!(shared, a);
        let mut t = Tuned::new(Some(1.0), 0.5, Some(1.0), 1.0);
        t.set_penalty(b, 2.0, 1024);
        t.set_last_rung(b, 4.0, 4096);
        let text = sentence(&s, &t);
        let p = s.penalty;
        let want = format!(
            " The learner's {p} on each series' features, and the D it was chosen at: {a} 0.5000 \
             at D = 512 (tune.toml, with the bandwidth); {b} 2.0000 at D = 1024 (tune-maps.toml, \
             on its own features), and in its cell at its last D = 4096, 4.0000 chosen there \
             (tune-last.toml); {c} 0.5000, the tuning map's, chosen on {a}'s features at D = 512 \
             (tune.toml)."
        );
        assert_eq!(text, want);
        assert_eq!(chosen_at(&t, 512, b), 1024);
        assert_eq!(chosen_at(&t, 512, c), 512);
    }

    #[test]
    fn a_penalty_that_only_rounds_differently_is_the_same() {
        assert!(same(128.0, 127.99999999999997));
        assert!(!same(128.0, 90.50966799187809));
        assert!(!same(0.5, 0.5000001));
    }
}
