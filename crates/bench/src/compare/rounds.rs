//! The sweep in rounds, one rung of the ladder at a time, so that a map stops once it has
//! plateaued instead of spending the budget on values of D that cannot change the answer.
//!
//! The first round runs the baseline, the exact machine and every map's first two rungs; each
//! later round adds the next rung of the maps still gaining. Every round writes `compare.toml`
//! (the cells so far) and runs it, taking the rows of the round before for the cells it already
//! measured ([`run::reproduce_reusing`]): the last round's spec holds exactly the cells that ran,
//! so `rfbench reproduce compare.toml` reproduces the CSV.
//!
//! The rule: a map stops when doubling D gained less than [`PLATEAU_GAIN`] points of mean
//! score. If its error keeps falling like 1/sqrt(D) (the maps' rate), all further doublings
//! together gain at most 1/(sqrt(2) - 1) = 2.41 times the last gain: under 0.5 points, the
//! report's smallest tolerance.

use std::path::Path;

use super::budget::{Estimates, Sweep};
use super::report::{self, Line};
use super::setup::Setup;
use super::specs::{self, Tuned};
use crate::error::Result;
use crate::run::{Outcome, RunOptions};

/// Points of mean score a doubling of D must gain for the map to go on.
pub const PLATEAU_GAIN: f64 = 0.2;

/// Runs the cells `plan` allows in rounds; returns the last round's outcome and the sweep that
/// ran (`skipped` says which rungs were left out as plateaued).
pub fn run(
    out: &Path,
    setup: &Setup,
    tuned: Tuned,
    plan: &Sweep,
    options: &RunOptions,
) -> Result<(Outcome, Sweep)> {
    let mut current = Sweep {
        per_map: plan
            .per_map
            .iter()
            .map(|(map, ds)| (*map, ds.iter().take(2).copied().collect()))
            .collect(),
        ..plan.clone()
    };
    let mut stopped = vec![false; plan.per_map.len()];
    let mut earlier = Vec::new();
    for round in 1.. {
        eprintln!("compare: sweep, round {round}: {}", describe(&current));
        let text = specs::sweep(setup, tuned, &current);
        let outcome = super::run_spec(out, "compare", &text, options, &earlier)?;
        let lines = report::lines(setup, &super::read(&outcome)?, &Estimates::default());
        let mut grew = false;
        for (k, (map, planned)) in plan.per_map.iter().enumerate() {
            let ran = &mut current.per_map[k].1;
            if stopped[k] || ran.len() == planned.len() {
                continue;
            }
            if let Some(reason) = plateau(&lines, map, ran) {
                stopped[k] = true;
                current
                    .skipped
                    .push(format!("{map} at D >= {}: {reason}", planned[ran.len()]));
            } else {
                ran.push(planned[ran.len()]);
                grew = true;
            }
        }
        if !grew {
            return Ok((outcome, current));
        }
        earlier = outcome.rows;
    }
    unreachable!("the rounds end when no map grows")
}

/// "rff D = 64, 128; nystroem D = 64, 128".
fn describe(sweep: &Sweep) -> String {
    sweep
        .per_map
        .iter()
        .filter(|(_, ds)| !ds.is_empty())
        .map(|(map, ds)| {
            let ds: Vec<String> = ds.iter().map(usize::to_string).collect();
            format!("{map} D = {}", ds.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why `map` should not go past its last rung in `ran`: its last doubling gained less than
/// [`PLATEAU_GAIN`] points, or its last rung has no score (it failed or was skipped).
pub fn plateau(lines: &[Line], map: &str, ran: &[usize]) -> Option<String> {
    let mean = |d: usize| {
        lines
            .iter()
            .find(|l| l.map == map && l.d == d)
            .map_or(f64::NAN, Line::mean)
    };
    let &last = ran.last()?;
    if mean(last).is_nan() {
        return Some(format!("D = {last} has no score (see the cell's row)"));
    }
    let &previous = ran.get(ran.len().checked_sub(2)?)?;
    let gain = mean(last) - mean(previous);
    (gain < PLATEAU_GAIN).then(|| {
        format!(
            "plateaued: D = {last} scored {:.2} against {:.2} at D = {previous} (a gain under \
             {PLATEAU_GAIN} points)",
            mean(last),
            mean(previous)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn line(map: &str, d: usize, scores: &[f64]) -> Line {
        Line {
            map: map.into(),
            d,
            train_size: 0,
            scores: scores
                .iter()
                .copied()
                .enumerate()
                .collect::<BTreeMap<_, _>>(),
            seconds: 1.0,
            estimate: None,
            skipped: None,
            gram: None,
            memory: None,
        }
    }

    #[test]
    fn a_map_stops_when_doubling_gains_under_the_threshold() {
        let lines = vec![
            line("rff", 64, &[80.0, 80.2]),
            line("rff", 128, &[81.0, 81.2]),
            line("rff", 256, &[81.1, 81.25]),
            line("ts", 64, &[70.0, 70.0]),
            line("ts", 128, &[69.0, 69.0]),
        ];
        // One rung: nothing to compare yet.
        assert_eq!(plateau(&lines, "rff", &[64]), None);
        // +1.0 points: goes on.
        assert_eq!(plateau(&lines, "rff", &[64, 128]), None);
        // +0.075 points: stops, and says why.
        let reason = plateau(&lines, "rff", &[64, 128, 256]).unwrap();
        assert!(
            reason.contains("plateaued: D = 256 scored 81.17"),
            "{reason}"
        );
        // A loss stops too.
        assert!(plateau(&lines, "ts", &[64, 128]).is_some());
        // Exactly the threshold goes on.
        let edge = vec![
            line("m", 64, &[80.0]),
            line("m", 128, &[80.0 + PLATEAU_GAIN]),
        ];
        assert_eq!(plateau(&edge, "m", &[64, 128]), None);
    }

    #[test]
    fn a_rung_without_a_score_stops_its_map() {
        let lines = vec![line("rff", 64, &[80.0]), line("rff", 128, &[])];
        let reason = plateau(&lines, "rff", &[64, 128]).unwrap();
        assert!(reason.contains("D = 128 has no score"), "{reason}");
    }
}
