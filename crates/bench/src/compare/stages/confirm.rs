//! Stage `confirm`: the sweep's lines read back, then more repetitions where the sweep's cannot decide: the cheapest cells whose mean is within a
//! tolerance of the reference but whose interval is too wide to say so ([`decide::to_confirm`])
//! run again with the reference, the repetitions doubling (up to [`MAX_REPETITIONS`]) while the
//! sweep's time allows, until each is decided. Round r is `confirm-r.toml`: the repetitions
//! that ran before share its seeds, so they are taken from their rows and only the new ones
//! run, and `rfbench reproduce confirm-r.toml --out-dir OTHER` reruns them all.

use std::time::Instant;

use crate::compare::budget::Sweep;
use crate::compare::decide;
use crate::compare::lines::{self, Line};
use crate::compare::setup::Setup;
use crate::compare::specs::{base, cells, Tuned, Written};
use crate::compare::state::{read, Context, State};
use crate::error::Result;
use crate::results::ResultRow;
use rfbench_registry::kinds::LEARNING;

/// Repetitions a cell may be given to decide it (the checks use 15 to 30 fresh splits).
pub const MAX_REPETITIONS: usize = 32;

/// What the confirmation rounds did, for the report.
#[derive(Debug, Default)]
pub struct Confirmed {
    /// One sentence per round, and why the last one stopped.
    pub notes: Vec<String>,
}

/// Reads the sweep's lines (every cell's score per repetition, its time beside its estimate,
/// its memory), confirms the undecided ones, and records them with the sweep's seconds (its
/// rounds, last rungs and confirmation).
pub fn run(state: &mut State) -> Result<()> {
    let outcome = state.outcome()?;
    let mut lines = lines::lines(&state.setup, &read(outcome)?, &state.estimates);
    lines::add_memory(&mut lines, &outcome.plan, state.setup.n, state.setup.d);
    let rows = outcome.rows.clone();
    // The exact machine's smaller sizes, beside the sweep's lines: its learning curve.
    lines.extend(state.curve.iter().cloned());
    let confirmed = rounds(
        &state.context().until(state.deadline),
        &mut lines,
        rows,
        state.deadline,
    )?;
    state.lines = lines;
    state.confirm_notes = confirmed.notes;
    state.sweep_seconds = state.sweep_start.elapsed().as_secs_f64();
    Ok(())
}

/// Runs confirmation rounds until nothing is left to decide, the cells to decide have
/// [`MAX_REPETITIONS`] or the next round would pass `deadline`; updates `lines` with every
/// repetition that ran.
fn rounds(
    context: &Context,
    lines: &mut [Line],
    sweep_rows: Vec<ResultRow>,
    deadline: Instant,
) -> Result<Confirmed> {
    let mut confirmed = Confirmed::default();
    let mut earlier = sweep_rows;
    for round in 1.. {
        let Some(reference) = decide::reference(lines) else {
            break;
        };
        let cells = decide::to_confirm(lines);
        if cells.is_empty() {
            break;
        }
        let names: Vec<String> = cells.iter().map(|&k| lines[k].name()).collect();
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let next = match next_repetitions(lines, &cells, reference, left) {
            Ok(next) => next,
            Err(why) => {
                confirmed
                    .notes
                    .push(format!("{} stayed undecided: {why}", names.join(", ")));
                break;
            }
        };
        context.progress.say(&format!(
            "{} undecided; {next} repetitions of them and of the reference (confirm-{round}.toml)",
            names.join(", ")
        ));
        let mut group = cells.clone();
        group.push(reference);
        let (sweep, baseline) = sweep_of(lines, &group);
        let name = format!("confirm-{round}");
        let spec = spec(&name, context.setup, context.tuned, &sweep, baseline, next)?;
        let outcome = context.run_spec(&name, &spec, &earlier)?;
        let grown = lines::lines(context.setup, &read(&outcome)?, &Default::default());
        let ran = |lines: &[Line]| cells.iter().map(|&k| lines[k].scores.len()).sum::<usize>();
        let before = ran(lines);
        merge(lines, &grown);
        if ran(lines) <= before {
            // Nothing new (its runs cut by the deadline, or rows that do not reach the lines):
            // another round would be the same round.
            confirmed.notes.push(format!(
                "{} stayed undecided: {name}.toml ran no new repetition of them",
                names.join(", ")
            ));
            break;
        }
        confirmed.notes.push(format!(
            "{} (and the reference) ran {next} repetitions ({name}.toml)",
            names.join(", ")
        ));
        earlier.extend(outcome.rows);
    }
    Ok(confirmed)
}

/// The repetitions the next round gives `cells` (and the reference): twice the fewest a cell
/// has, at least the reference's, at most [`MAX_REPETITIONS`], fewer where the estimate (each
/// cell's mean time per new repetition, a fifth more for loading) would pass the `left`
/// seconds; why not, when not even one more fits or every cell has the most.
fn next_repetitions(
    lines: &[Line],
    cells: &[usize],
    reference: usize,
    left: f64,
) -> std::result::Result<usize, String> {
    let have = |k: usize| lines[k].scores.len();
    let fewest = cells.iter().map(|&k| have(k)).min().unwrap_or(0);
    if fewest >= MAX_REPETITIONS {
        return Err(format!("{fewest} repetitions, the most a cell is given"));
    }
    // The reference reruns unless it ran once (a fixed test file: no random draw).
    let reruns = have(reference) > 1;
    let cost = |target: usize| {
        let mut group: Vec<usize> = cells.to_vec();
        if reruns {
            group.push(reference);
        }
        group
            .iter()
            .map(|&k| target.saturating_sub(have(k)) as f64 * lines[k].seconds)
            .sum::<f64>()
            * 1.2
    };
    let floor = if reruns { have(reference) } else { 0 };
    let wanted = (2 * fewest).max(floor).min(MAX_REPETITIONS);
    (fewest + 1..=wanted)
        .rev()
        .find(|&t| cost(t) <= left)
        .ok_or_else(|| {
            format!(
                "one more repetition needs about {:.1} s and {left:.0} s of the sweep's time \
                 were left",
                cost(fewest + 1)
            )
        })
}

/// The cells `group` as a sweep (each map with its D; the exact machine at its training size),
/// and whether the linear baseline is among them.
fn sweep_of(lines: &[Line], group: &[usize]) -> (Sweep, bool) {
    let mut sweep = Sweep {
        per_map: Vec::new(),
        exact_train_size: None,
        skipped: Vec::new(),
    };
    let mut baseline = false;
    for &k in group {
        let line = &lines[k];
        if line.is_baseline() {
            baseline = true;
        } else if !line.is_map() {
            sweep.exact_train_size = Some(line.train_size);
        } else if let Some(series) = line.registry_series() {
            match sweep.per_map.iter_mut().find(|(m, _)| *m == series.name()) {
                Some((_, ds)) => ds.push(line.d),
                None => sweep.per_map.push((series.name(), vec![line.d])),
            }
        }
    }
    for (_, ds) in &mut sweep.per_map {
        ds.sort_unstable();
    }
    (sweep, baseline)
}

/// Each line of `grown` (which holds every repetition its round ran of its cells) replaces its
/// scores and time in `lines` where it has more repetitions.
fn merge(lines: &mut [Line], grown: &[Line]) {
    for g in grown.iter().filter(|g| !g.scores.is_empty()) {
        let same = |l: &&mut Line| l.map == g.map && l.d == g.d && l.train_size == g.train_size;
        if let Some(line) = lines
            .iter_mut()
            .find(same)
            .filter(|l| l.scores.len() < g.scores.len())
        {
            line.scores = g.scores.clone();
            line.rmse = g.rmse.clone();
            line.seconds = g.seconds;
            line.unconverged = g.unconverged;
        }
    }
}

/// `name`: more repetitions of a few of the sweep's cells (`sweep`'s, and the baseline when
/// `baseline`), `repetitions` in all: the sweep's own repetitions have the same seeds, so
/// they are taken from its rows and only the new ones run.
pub fn spec(
    name: &str,
    setup: &Setup,
    tuned: Tuned,
    sweep: &Sweep,
    baseline: bool,
    repetitions: usize,
) -> Result<Written> {
    let what = "more repetitions of the cells the sweep's could not decide";
    let title = "Confirmation run of rfbench compare";
    let w = base(setup, name, title, what, LEARNING.name)?;
    cells(w, setup, tuned, sweep, baseline, repetitions, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::line;

    #[test]
    fn a_group_of_cells_becomes_a_sweep_of_its_maps_and_the_reference() {
        let exact = rfbench_registry::exact_map().name;
        let map = rfbench_registry::map_names()
            .into_iter()
            .find(|m| rfbench_registry::map(m).is_some_and(|i| i.in_default_comparison))
            .unwrap();
        let lines = vec![
            line(rfbench_registry::raw_map().name, 0, &[80.0, 81.0], 0.1),
            line(exact, 0, &[90.0, 91.0], 5.0),
            line(map, 256, &[89.0, 90.0], 1.0),
            line(map, 64, &[88.0, 89.0], 0.5),
        ];
        let (sweep, baseline) = sweep_of(&lines, &[2, 3, 1]);
        assert!(!baseline);
        assert_eq!(sweep.exact_train_size, Some(0));
        assert_eq!(sweep.per_map, vec![(map, vec![64, 256])]);
        let mut merged = lines.clone();
        let grown = vec![
            line(map, 64, &[88.0, 89.0, 88.5, 88.7], 0.6),
            line(map, 256, &[89.0], 1.0),
        ];
        merge(&mut merged, &grown);
        assert_eq!(merged[3].scores.len(), 4);
        assert_eq!(
            merged[2].scores.len(),
            2,
            "a round with fewer repetitions changes nothing"
        );
    }

    #[test]
    fn each_round_doubles_the_fewest_catches_up_with_the_reference_and_fits_the_time() {
        let exact = rfbench_registry::exact_map().name;
        let reps = |n: usize| vec![90.0; n];
        let mut lines = vec![
            line(exact, 0, &reps(12), 2.0),
            line("map-a", 64, &reps(3), 1.0),
            line("map-a", 128, &reps(12), 1.0),
        ];
        // A new cell catches up with the reference's 12: 9 x 1 s x 1.2.
        assert_eq!(next_repetitions(&lines, &[1], 0, 100.0), Ok(12));
        // Then doubles: 12 more of the cell and of the reference: 12 x 3 s x 1.2 = 43.2 s.
        assert_eq!(next_repetitions(&lines, &[2], 0, 100.0), Ok(24));
        // Less time: the most that fits, 23 s: 6 more (21.6 s).
        assert_eq!(next_repetitions(&lines, &[2], 0, 23.0), Ok(18));
        let none = next_repetitions(&lines, &[2], 0, 1.0).unwrap_err();
        assert!(
            none.contains("one more repetition needs about 3.6 s"),
            "{none}"
        );
        lines[2].scores = (0..MAX_REPETITIONS).map(|r| (r, 90.0)).collect();
        let most = next_repetitions(&lines, &[2], 0, 1e9).unwrap_err();
        assert!(most.starts_with("32 repetitions, the most"), "{most}");
        // A reference that ran once (a fixed test file) costs nothing and sets no floor.
        lines[0].scores = [(0, 90.0)].into();
        assert_eq!(next_repetitions(&lines, &[1], 0, 100.0), Ok(6));
    }
}
