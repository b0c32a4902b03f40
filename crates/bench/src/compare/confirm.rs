//! More repetitions where the sweep's cannot decide: the cheapest cells whose mean is within a
//! tolerance of the reference but whose interval is too wide to say so ([`decide::to_confirm`])
//! run again with the reference, the repetitions doubling (up to [`MAX_REPETITIONS`]) while the
//! sweep's time allows, until each is decided. `confirm.toml` holds the last round: the sweep's
//! repetitions share its seeds, so they are taken from its rows and only the new ones run, and
//! `rfbench reproduce confirm.toml` reruns them all.

use std::time::Instant;

use super::budget::Sweep;
use super::decide;
use super::lines::{self, Line};
use super::specs;
use super::steps::{self, Context};
use crate::error::Result;
use crate::results::ResultRow;

/// Repetitions a cell may be given to decide it (the checks use 15 to 30 fresh splits).
pub const MAX_REPETITIONS: usize = 32;

/// What the confirmation rounds did, for the report.
#[derive(Debug, Default)]
pub struct Confirmed {
    /// One sentence per round, and why the last one stopped.
    pub notes: Vec<String>,
}

/// Runs confirmation rounds until nothing is left to decide, [`MAX_REPETITIONS`] is reached or
/// the next round would pass `deadline`; updates `lines` with every repetition that ran.
pub fn run(
    context: &Context,
    lines: &mut [Line],
    sweep_rows: Vec<ResultRow>,
    deadline: Instant,
) -> Result<Confirmed> {
    let setup = context.setup;
    let mut confirmed = Confirmed::default();
    let mut repetitions = setup.repetitions;
    let mut earlier = sweep_rows;
    while let Some(reference) = decide::reference(lines) {
        let cells = decide::to_confirm(lines);
        if cells.is_empty() {
            break;
        }
        let names: Vec<String> = cells.iter().map(|&k| lines[k].name()).collect();
        if repetitions >= MAX_REPETITIONS {
            confirmed.notes.push(format!(
                "{} stayed undecided after {repetitions} repetitions, the most a cell is given",
                names.join(", ")
            ));
            break;
        }
        let mut group = cells.clone();
        group.push(reference);
        // The reference's share: none when it ran once (a fixed test file, no random draw).
        let per_repetition: f64 = group
            .iter()
            .filter(|&&k| k != reference || lines[k].scores.len() > 1)
            .map(|&k| lines[k].seconds)
            .sum::<f64>()
            * 1.2;
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let affordable = repetitions + (left / per_repetition.max(1e-9)).floor() as usize;
        let next = (2 * repetitions).min(MAX_REPETITIONS).min(affordable);
        if next <= repetitions {
            confirmed.notes.push(format!(
                "{} stayed undecided after {repetitions} repetitions: another needs about \
                 {per_repetition:.0} s and {left:.0} s of the sweep's time were left",
                names.join(", ")
            ));
            break;
        }
        context.progress.say(&format!(
            "{} undecided; {next} repetitions of them and of the reference",
            names.join(", ")
        ));
        let (sweep, baseline) = sweep_of(lines, &group);
        let spec = specs::confirm(setup, context.tuned, &sweep, baseline, next)?;
        let outcome = context.run_spec("confirm", &spec, &earlier)?;
        let grown = lines::lines(setup, &steps::read(&outcome)?, &Default::default());
        merge(lines, &grown);
        confirmed.notes.push(format!(
            "{} (and the reference) ran {next} repetitions to decide them",
            names.join(", ")
        ));
        repetitions = next;
        earlier.extend(outcome.rows);
    }
    Ok(confirmed)
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
        } else if let Some(map) = rfbench_registry::map(&line.map) {
            match sweep.per_map.iter_mut().find(|(m, _)| *m == map.name) {
                Some((_, ds)) => ds.push(line.d),
                None => sweep.per_map.push((map.name, vec![line.d])),
            }
        }
    }
    for (_, ds) in &mut sweep.per_map {
        ds.sort_unstable();
    }
    (sweep, baseline)
}

/// Each line of `grown` (which holds every repetition of its cells) replaces its scores and
/// time in `lines`.
fn merge(lines: &mut [Line], grown: &[Line]) {
    for g in grown.iter().filter(|g| !g.scores.is_empty()) {
        let same = |l: &&mut Line| l.map == g.map && l.d == g.d && l.train_size == g.train_size;
        if let Some(line) = lines.iter_mut().find(same) {
            line.scores = g.scores.clone();
            line.rmse = g.rmse.clone();
            line.seconds = g.seconds;
        }
    }
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
        let grown = vec![line(map, 64, &[88.0, 89.0, 88.5, 88.7], 0.6)];
        merge(&mut merged, &grown);
        assert_eq!(merged[3].scores.len(), 4);
        assert_eq!(merged[2].scores.len(), 2, "other lines are left alone");
    }
}
