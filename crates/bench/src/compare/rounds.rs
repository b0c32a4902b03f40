//! The sweep in rounds, one rung of the ladder at a time, so that a map stops once it has
//! plateaued instead of spending the budget on values of D that cannot change the answer.
//!
//! The first round runs the baseline, the exact machine and every map's first two rungs; each
//! later round adds the next rung of the maps still gaining. Every round writes `compare.toml`
//! (the cells so far) and runs it, taking the rows of the round before for the cells it already
//! measured ([`run::reproduce_reusing`]): the last round's spec holds exactly the cells that ran,
//! so `rfbench reproduce compare.toml --out-dir OTHER` reproduces the CSV.
//!
//! The rules: a map stops once its mean score is within [`TOLERANCE`] points of the exact kernel
//! machine's (on all training rows): the report's smallest tolerance is met, and a larger D
//! cannot be that map's cheapest answer. Otherwise it stops when two doublings in a row each
//! gained less than [`PLATEAU_GAIN`] points. One flat doubling is not enough: accuracy against
//! D can pause and climb again (on a 10,000 x 50 file RFF gained -0.1, then 0.7, then 2.3 points
//! from D = 128), and three repetitions' means move by tenths of a point.

use std::time::Instant;

use super::budget::{Estimates, Sweep};
use super::lines::{self, Line};
use super::setup::Setup;
use super::specs;
use super::steps::{self, Context};
use crate::error::Result;
use crate::run::Outcome;

/// Points of mean score a doubling of D must gain for the map to go on.
pub const PLATEAU_GAIN: f64 = 0.2;

/// Within this many points of the exact kernel machine a map has answered the report's
/// smallest tolerance.
pub const TOLERANCE: f64 = 0.5;

/// The time the sweep may take, and the pilot's estimates: each round's new rungs are kept while
/// their estimate, scaled by how far the rounds so far overran theirs, fits what is left.
pub struct Clock<'a> {
    pub estimates: &'a Estimates,
    pub deadline: Instant,
    pub repetitions: f64,
    /// Seconds the plan keeps after the sweep (the Gram step), for the estimated end.
    pub after: f64,
}

impl Clock<'_> {
    /// Estimated seconds of the cells of `sweep` (every repetition), the baseline and the exact
    /// machine included.
    fn estimate(&self, setup: &Setup, sweep: &Sweep) -> f64 {
        super::budget::total(setup, self.estimates, sweep)
    }
}

/// Runs the cells `plan` allows in rounds; returns the last round's outcome and the sweep that
/// ran (`skipped` says which rungs were left out as plateaued, or by the clock).
pub fn run(context: &Context, plan: &Sweep, clock: &Clock) -> Result<(Outcome, Sweep)> {
    let setup = context.setup;
    let start = Instant::now();
    let mut schedule = Schedule::new(plan);
    let mut earlier = Vec::new();
    for round in 1.. {
        let current = &schedule.current;
        let round_line = format!("sweep, round {round}: {}", describe(current));
        context.progress.say(&round_line);
        let spec = specs::sweep(setup, context.tuned, current)?;
        let outcome = context.run_spec("compare", &spec, &earlier)?;
        let pace = pace(
            start.elapsed().as_secs_f64(),
            clock.estimate(setup, current),
        );
        let lines = lines::lines(setup, &steps::read(&outcome)?, &Estimates::default());
        let left = clock
            .deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        // The estimated end, corrected by the pace so far: the rungs not yet run at that pace
        // (an upper bound: plateaued maps stop early), within the sweep's deadline.
        let to_run = (clock.estimate(setup, plan) - clock.estimate(setup, current)).max(0.0);
        let progress = context.progress;
        progress.expect_end(progress.elapsed() + (to_run * pace).min(left) + clock.after);
        if !schedule.advance(&lines, clock, pace, left) {
            return Ok((outcome, schedule.current));
        }
        earlier = outcome.rows;
    }
    unreachable!("the rounds end when no map grows")
}

/// How far the rounds so far overran the pilot's estimate of them (`estimate` seconds for the
/// cells that ran, `elapsed` measured): at least 1, so a fast round gives no credit.
fn pace(elapsed: f64, estimate: f64) -> f64 {
    (elapsed / estimate.max(1e-9)).max(1.0)
}

/// Which rungs each round runs: the plan's, each map's first two in the first round, then one
/// more per round while the map is still gaining and its next rung fits the time left.
struct Schedule<'a> {
    plan: &'a Sweep,
    /// The cells of the round to run (every rung so far).
    current: Sweep,
    /// The maps that stopped (plateaued, or out of time): they grow no more.
    stopped: Vec<bool>,
}

impl<'a> Schedule<'a> {
    fn new(plan: &'a Sweep) -> Self {
        let current = Sweep {
            per_map: plan
                .per_map
                .iter()
                .map(|(map, ds)| (*map, ds.iter().take(2).copied().collect()))
                .collect(),
            ..plan.clone()
        };
        Schedule {
            plan,
            current,
            stopped: vec![false; plan.per_map.len()],
        }
    }

    /// The next round from the last one's `lines`: each map that has rungs left adds its next
    /// one, unless [`plateau`] stops it or the rung's estimate at `pace` passes the `left`
    /// seconds the maps before it left. Returns whether any map grew (else the sweep is done).
    fn advance(&mut self, lines: &[Line], clock: &Clock, pace: f64, mut left: f64) -> bool {
        let exact = lines
            .iter()
            .find(|l| l.is_exact_reference() && !l.scores.is_empty())
            .map(Line::mean);
        let mut grew = false;
        for (k, (map, planned)) in self.plan.per_map.iter().enumerate() {
            let ran = &mut self.current.per_map[k].1;
            if self.stopped[k] || ran.len() == planned.len() {
                continue;
            }
            let next = planned[ran.len()];
            let cost = clock.estimates.get(map, next).unwrap_or(0.0) * clock.repetitions * pace;
            let reason = plateau(lines, map, ran, exact).or_else(|| {
                (cost > left).then(|| {
                    format!(
                        "estimated {cost:.0} s at the pace of the rounds so far ({pace:.2}x the \
                         pilot's estimates), {left:.0} s left of the sweep's time"
                    )
                })
            });
            match reason {
                Some(reason) => {
                    self.stopped[k] = true;
                    self.current
                        .skipped
                        .push(format!("{map} at D >= {next}: {reason}"));
                }
                None => {
                    left -= cost;
                    ran.push(next);
                    grew = true;
                }
            }
        }
        grew
    }
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

/// Why `map` should not go past its last rung in `ran`: its last rung has no score (it failed
/// or was skipped), it is within [`TOLERANCE`] of the exact machine's score `exact`, or its
/// last two doublings each gained less than [`PLATEAU_GAIN`] points.
pub fn plateau(lines: &[Line], map: &str, ran: &[usize], exact: Option<f64>) -> Option<String> {
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
    if let Some(exact) = exact.filter(|e| mean(last) >= e - TOLERANCE) {
        return Some(format!(
            "D = {last} scored {:.2}, within {TOLERANCE} points of the exact kernel machine's \
             {exact:.2}: a larger D cannot be cheaper",
            mean(last)
        ));
    }
    let [a, b, c] = ran.get(ran.len().checked_sub(3)?..)? else {
        return None;
    };
    let flat = |from: usize, to: usize| mean(to) - mean(from) < PLATEAU_GAIN;
    (flat(*a, *b) && flat(*b, *c)).then(|| {
        format!(
            "plateaued: D = {a}, {b}, {c} scored {:.2}, {:.2}, {:.2} (two doublings, each a gain \
             under {PLATEAU_GAIN} points)",
            mean(*a),
            mean(*b),
            mean(*c)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::two_maps;
    use rfbench_registry::exact_map;
    use std::collections::BTreeMap;

    fn line(map: &str, d: usize, scores: &[f64]) -> Line {
        crate::compare::lines::tests::line(map, d, scores, 1.0)
    }

    #[test]
    fn a_map_stops_after_two_flat_doublings() {
        let lines = vec![
            line("map-a", 64, &[80.0, 80.2]),
            line("map-a", 128, &[81.0, 81.2]),
            line("map-a", 256, &[81.1, 81.25]),
            line("map-a", 512, &[81.2, 81.3]),
            line("map-b", 64, &[70.0, 70.0]),
            line("map-b", 128, &[69.0, 69.0]),
            line("map-b", 256, &[72.0, 72.0]),
        ];
        // Fewer than three rungs: nothing to decide yet.
        assert_eq!(plateau(&lines, "map-a", &[64], None), None);
        assert_eq!(plateau(&lines, "map-a", &[64, 128], None), None);
        // +1.0 then +0.075: one flat doubling goes on.
        assert_eq!(plateau(&lines, "map-a", &[64, 128, 256], None), None);
        // +0.075 then +0.075: stops, and says why.
        let reason = plateau(&lines, "map-a", &[64, 128, 256, 512], None).unwrap();
        assert!(
            reason.contains("plateaued: D = 128, 256, 512 scored 81.10, 81.17, 81.25"),
            "{reason}"
        );
        // A loss, then a climb: goes on (accuracy against D can pause).
        assert_eq!(plateau(&lines, "map-b", &[64, 128, 256], None), None);
        // Exactly the threshold is a gain.
        let edge = vec![
            line("m", 64, &[80.0]),
            line("m", 128, &[80.0]),
            line("m", 256, &[80.0 + PLATEAU_GAIN]),
        ];
        assert_eq!(plateau(&edge, "m", &[64, 128, 256], None), None);
    }

    #[test]
    fn a_map_within_the_tolerance_of_the_exact_machine_stops() {
        let lines = vec![
            line("map-a", 64, &[80.0, 80.2]),
            line("map-a", 128, &[84.6, 84.8]),
        ];
        assert_eq!(plateau(&lines, "map-a", &[64, 128], Some(85.4)), None);
        let reason = plateau(&lines, "map-a", &[64, 128], Some(85.0)).unwrap();
        assert!(
            reason.contains("within 0.5 points of the exact"),
            "{reason}"
        );
        // Even at its first rung.
        assert!(plateau(&lines, "map-a", &[64], Some(80.5)).is_some());
    }

    #[test]
    fn a_rung_without_a_score_stops_its_map() {
        let lines = vec![line("map-a", 64, &[80.0]), line("map-a", 128, &[])];
        let reason = plateau(&lines, "map-a", &[64, 128], None).unwrap();
        assert!(reason.contains("D = 128 has no score"), "{reason}");
    }

    /// Maps a and b; a planned at D = 64 to 512, b at D = 64 only; an empty plan for the third.
    fn plan(a: &'static str, b: &'static str, c: &'static str) -> Sweep {
        Sweep {
            per_map: vec![(a, vec![64, 128, 256, 512]), (b, vec![64]), (c, vec![])],
            exact_train_size: Some(300),
            skipped: vec!["planned out".into()],
        }
    }

    fn clock(estimates: &Estimates) -> Clock<'_> {
        Clock {
            estimates,
            deadline: Instant::now(),
            repetitions: 3.0,
            after: 0.0,
        }
    }

    #[test]
    fn the_first_round_runs_each_maps_first_two_rungs() {
        let s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let plan = plan(a, b, c);
        let schedule = Schedule::new(&plan);
        let first = &schedule.current;
        assert_eq!(
            first.per_map,
            vec![(a, vec![64, 128]), (b, vec![64]), (c, vec![])]
        );
        // The exact machine and what the budget left out come with the first round.
        assert_eq!(first.exact_train_size, Some(300));
        assert_eq!(first.skipped, vec!["planned out".to_string()]);
        assert_eq!(describe(first), format!("{a} D = 64, 128; {b} D = 64"));
    }

    /// One rung a round for the map still gaining, none for the map whose plan is done, and the
    /// end once nothing grows.
    #[test]
    fn each_round_adds_one_rung_until_the_map_plateaus() {
        let s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let plan = plan(a, b, c);
        let estimates = Estimates::default();
        let clock = clock(&estimates);
        let mut schedule = Schedule::new(&plan);
        let mut lines = vec![
            line(a, 64, &[70.0]),
            line(a, 128, &[75.0]),
            line(b, 64, &[60.0]),
        ];
        assert!(schedule.advance(&lines, &clock, 1.0, 100.0));
        assert_eq!(schedule.current.per_map[0], (a, vec![64, 128, 256]));
        assert_eq!(schedule.current.per_map[1], (b, vec![64]));
        // +0.1 after +5: one flat doubling goes on.
        lines.push(line(a, 256, &[75.1]));
        assert!(schedule.advance(&lines, &clock, 1.0, 100.0));
        assert_eq!(schedule.current.per_map[0].1, vec![64, 128, 256, 512]);
        // Every planned rung ran: the sweep is done, and nothing is said to be left out.
        lines.push(line(a, 512, &[80.0]));
        assert!(!schedule.advance(&lines, &clock, 1.0, 100.0));
        assert_eq!(schedule.current.skipped, vec!["planned out".to_string()]);
        // Two flat doublings stop a map short of its plan.
        let mut schedule = Schedule::new(&plan);
        schedule.advance(&lines[..3], &clock, 1.0, 100.0);
        let flat = [
            line(a, 64, &[70.0]),
            line(a, 128, &[70.1]),
            line(a, 256, &[70.2]),
        ];
        assert!(!schedule.advance(&flat, &clock, 1.0, 100.0));
        assert_eq!(schedule.current.per_map[0].1, vec![64, 128, 256]);
        let reason = &schedule.current.skipped[1];
        assert!(
            reason.starts_with(&format!("{a} at D >= 512: plateaued")),
            "{reason}"
        );
    }

    #[test]
    fn a_map_within_the_tolerance_of_the_exact_machine_runs_no_further() {
        let s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let plan = plan(a, b, c);
        let estimates = Estimates::default();
        let mut schedule = Schedule::new(&plan);
        let exact = |scores: &[f64], train_size| Line {
            train_size,
            ..line(exact_map().name, 0, scores)
        };
        let lines = [line(a, 64, &[70.0]), line(a, 128, &[75.0])];
        // The exact machine on a subsample, or without a score, is no reference.
        for reference in [exact(&[75.2], 300), exact(&[], 0)] {
            let mut lines = lines.to_vec();
            lines.push(reference);
            let mut schedule = Schedule::new(&plan);
            assert!(schedule.advance(&lines, &clock(&estimates), 1.0, 100.0));
        }
        let mut with_exact = lines.to_vec();
        with_exact.push(exact(&[75.4, 75.6], 0));
        assert!(!schedule.advance(&with_exact, &clock(&estimates), 1.0, 100.0));
        let reason = &schedule.current.skipped[1];
        assert!(
            reason.starts_with(&format!(
                "{a} at D >= 256: D = 128 scored 75.00, within 0.5"
            )),
            "{reason}"
        );
    }

    /// A rung's cost is its estimate x repetitions x pace; the maps before it in the plan take
    /// their share of the time left first.
    #[test]
    fn the_clock_stops_a_map_whose_next_rung_does_not_fit() {
        let s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let plan = Sweep {
            per_map: vec![
                (a, vec![64, 128, 256]),
                (b, vec![64, 128, 256]),
                (c, vec![]),
            ],
            ..Sweep::default()
        };
        let mut seconds = BTreeMap::new();
        seconds.insert((a.to_string(), 256), 4.0);
        seconds.insert((b.to_string(), 256), 2.0);
        let estimates = Estimates {
            seconds,
            exact_exponent: None,
        };
        let lines = [
            line(a, 64, &[70.0]),
            line(a, 128, &[75.0]),
            line(b, 64, &[70.0]),
            line(b, 128, &[75.0]),
        ];
        // a: 4 x 3 x 1.5 = 18 s of 30; b: 9 s of the 12 left.
        let mut schedule = Schedule::new(&plan);
        assert!(schedule.advance(&lines, &clock(&estimates), 1.5, 30.0));
        assert_eq!(schedule.current.per_map[0].1, vec![64, 128, 256]);
        assert_eq!(schedule.current.per_map[1].1, vec![64, 128, 256]);
        // 20 s: a fits (2 s left), b's 9 s do not.
        let mut schedule = Schedule::new(&plan);
        assert!(schedule.advance(&lines, &clock(&estimates), 1.5, 20.0));
        assert_eq!(schedule.current.per_map[1].1, vec![64, 128]);
        assert_eq!(
            schedule.current.skipped,
            vec![format!(
                "{b} at D >= 256: estimated 9 s at the pace of the rounds so far (1.50x the \
                 pilot's estimates), 2 s left of the sweep's time"
            )]
        );
    }

    #[test]
    fn the_pace_never_gives_credit_and_survives_a_zero_estimate() {
        assert_eq!(pace(30.0, 20.0), 1.5);
        assert_eq!(pace(10.0, 20.0), 1.0);
        assert_eq!(pace(0.0, 0.0), 1.0);
        // No estimate: any rung with a cost is past the time left.
        assert!(pace(2.0, 0.0) > 1e9);
    }
}
