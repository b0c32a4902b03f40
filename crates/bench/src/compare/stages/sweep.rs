//! Stage `sweep`: the cells that fit what the stages before it left of the budget
//! ([`crate::compare::budget::fit`]; the rest is kept for the Gram errors), run in rounds, one rung of the ladder at a time, so that a map stops once it has
//! plateaued instead of spending the budget on values of D that cannot change the answer.
//!
//! Round 0 runs the linear baseline and the exact machine alone, at the size the sweep runs them;
//! the maps' rungs are then planned again in the time they left, at the pace the baseline ran
//! at against the pilot's estimate (the maps' learner at the sweep's size). Round 1 runs every
//! map's first rung; each later round adds the next rung of the maps still gaining, at the pace
//! the rounds so far ran at. No run starts past the sweep's deadline: the runner cuts it, and
//! its row says so ([`crate::results::CUT_BY_DEADLINE`]). Every round writes `compare.toml`
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

use std::path::Path;
use std::time::{Duration, Instant};

use crate::compare::budget::{exact_repetitions, fit, fit_maps, total, Estimates, Sweep};
use crate::compare::curve;
use crate::compare::lines::{self, Line};
use crate::compare::pipeline::SWEEP;
use crate::compare::setup::Setup;
use crate::compare::specs::{
    add_total_seconds, base, constants, figure, files, grid, metric_label, ran, tuned_kernel,
    Tuned, Written, SCORE_FIGURE, TIME_FIGURE, TOTAL_SECONDS,
};
use crate::compare::state::{read, Context, State};
use crate::error::{Error, Result};
use crate::results::{CellValue, ResultRow};
use crate::run::Outcome;
use crate::spec::raw::table;
use rfbench_registry::kinds::LEARNING;
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::raw_map;
use toml::Value;

/// Points of mean score a doubling of D must gain for the map to go on.
pub const PLATEAU_GAIN: f64 = 0.2;

/// Within this many points of the exact kernel machine a map has answered the report's
/// smallest tolerance.
pub const TOLERANCE: f64 = 0.5;

/// The time the sweep may take, and the estimates of the maps' cells: the pilot's at the pace
/// the baseline ran at, then each map's measured at the sweep's size ([`calibrated`]); each
/// round's new rungs are kept while their estimate, scaled by how far the rounds so far overran
/// theirs, fits what is left.
pub struct Clock {
    pub estimates: Estimates,
    pub deadline: Instant,
    pub repetitions: f64,
    /// Seconds the plan keeps after the sweep (the Gram step), for the estimated end.
    pub after: f64,
}

impl Clock {
    /// Estimated seconds of the maps' cells of `sweep` (every repetition).
    fn maps_estimate(&self, setup: &Setup, sweep: &Sweep) -> f64 {
        let maps = Sweep {
            per_map: sweep.per_map.clone(),
            ..Sweep::default()
        };
        total(setup, &self.estimates.maps_only(), &maps)
    }
}

/// Plans the sweep within its share of what is left of the budget, and runs it: the baseline
/// first, then the exact machine on the rows that fit the time it left ([`references`]), the
/// maps' rungs planned again in the time they left, then in rounds; records the plan, its
/// estimate and sentence, the sweep's clock, the cells that ran and their outcome. Where no map's
/// first rung fits, the answer rests on the references and says which budget would have
/// compared the maps (an error if no reference ran either).
pub fn run(state: &mut State) -> Result<()> {
    let remaining = state.budget - state.start.elapsed().as_secs_f64();
    let share = SWEEP.share.of_left();
    let planned = fit(&state.setup, &state.estimates, share * remaining.max(0.0));
    let estimate = total(&state.setup, &state.estimates, &planned);
    state.plan_note = plan_note(&planned, estimate, remaining, state.budget);
    let progress = &state.progress;
    progress.expect_end(progress.elapsed() + estimate / share);
    progress.say(&state.plan_note);
    state.sweep_start = Instant::now();
    state.deadline = state.sweep_start + Duration::from_secs_f64(share * remaining.max(0.0));
    state.after_sweep = estimate / share - estimate;
    let context = state.context().until(state.deadline);
    let References {
        rows: first,
        exact,
        curve,
        pace,
    } = references(&context, &state.estimates)?;
    let estimates = state.estimates.maps_at_pace(pace);
    let mut maps = fit_maps(&state.setup, &estimates, secs_left(state.deadline));
    let mut no_maps = None;
    if maps.per_map.iter().all(|(_, ds)| ds.is_empty()) {
        // With a reference measured the command still answers, and says which budget would
        // have compared the maps; with none, there is nothing to answer.
        if !first.iter().any(|r| r.not_run().is_none()) {
            return Err(Error::Experiment(format!(
                "{}; nothing was compared",
                too_small(state)
            )));
        }
        let note = format!("No random-feature map ran: {}.", too_small(state));
        context.progress.say(&note);
        no_maps = Some(note);
    }
    maps.skipped = fit_maps_skipped(&maps, pace);
    maps.skipped.splice(0..0, exact.skipped);
    maps.exact_train_size = exact.exact_train_size;
    let clock = Clock {
        estimates,
        deadline: state.deadline,
        repetitions: state.setup.repetitions as f64,
        after: state.after_sweep,
    };
    let (outcome, swept) = rounds(&context, &maps, clock, first)?;
    if let Some(note) = &no_maps {
        state.warnings.push(note.clone());
    }
    state.no_maps = no_maps;
    state.curve = curve;
    state.estimate = estimate;
    state.planned = planned;
    state.outcome = Some(outcome);
    state.swept = swept;
    Ok(())
}

/// Seconds from now to `deadline` (0 once past).
fn secs_left(deadline: Instant) -> f64 {
    deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64()
}

/// The reasons [`fit_maps`] gave, said to be at the measured `pace`.
fn fit_maps_skipped(maps: &Sweep, pace: f64) -> Vec<String> {
    let at = |r: &String| match pace > 1.0 {
        true => format!("{r} (estimates at {pace:.2}x the pilot's: the pace the baseline ran at)"),
        false => r.clone(),
    };
    maps.skipped.iter().map(at).collect()
}

/// Below this many seconds a run's time says little about the pace of larger ones.
const PACE_FROM: f64 = 1.0;

/// What round 0 ran: the baseline's and the exact machine's rows, the exact machine's place in
/// the sweep (its rows, the reason when not all), its learning curve's other sizes, and the pace
/// the maps' estimates are taken at.
struct References {
    rows: Vec<ResultRow>,
    exact: Sweep,
    curve: Vec<Line>,
    pace: f64,
}

/// Round 0, before any map: the linear baseline (the maps' learner at the sweep's size), then
/// the exact machine on every training row if there are at most twice the pilot's and its
/// estimate fits a quarter of the time the baseline left, else on nested subsamples while they
/// fit ([`curve`]). The pace is how much
/// slower than the pilot's estimate the baseline ran, at least 1.
fn references(context: &Context, estimates: &Estimates) -> Result<References> {
    let (setup, progress) = (context.setup, context.progress);
    let none = Sweep {
        per_map: setup
            .map_names()
            .into_iter()
            .map(|m| (m, Vec::new()))
            .collect(),
        ..Sweep::default()
    };
    progress.say("sweep, round 0: the linear baseline");
    let baseline = context.run_spec("compare", &spec(setup, context.tuned, &none)?, &[])?;
    let lines = lines::lines(setup, &read(&baseline)?, &Estimates::default());
    let measured = lines
        .iter()
        .find(|l| l.is_baseline() && !l.scores.is_empty());
    let pace = match (measured, estimates.get(raw_map().name, 0)) {
        (Some(l), Some(e)) if l.seconds >= PACE_FROM => pace(l.seconds, e),
        _ => 1.0,
    };
    // The baseline has run: the exact machine's share is of the time it left.
    let allowance = secs_left(context.deadline.unwrap_or_else(Instant::now)) / 4.0;
    let all_rows = estimates.get(rfbench_registry::exact_map().name, 0);
    let pilot_train = crate::compare::stages::pilot::pilot_train(setup);
    // Trusted only near the pilot's rows: from 1,714 rows it put 60,000 at 52 s.
    let near = setup.n_train <= 2 * pilot_train;
    if near && all_rows.is_some_and(|t| t * exact_repetitions(setup) <= allowance) {
        progress.say("sweep, round 0: the exact kernel machine");
        let exact = Sweep {
            exact_train_size: Some(0),
            ..none
        };
        let spec = spec(setup, context.tuned, &exact)?;
        let outcome = context.run_spec("compare", &spec, &baseline.rows)?;
        let rows = outcome.rows;
        return Ok(References {
            rows,
            exact,
            curve: Vec::new(),
            pace,
        });
    }
    let spec = |name: &str, sweep: &Sweep| spec_named(name, setup, context.tuned, sweep);
    let curve = curve::run(
        context,
        spec,
        &none,
        estimates,
        pilot_train,
        allowance,
        &baseline.rows,
    )?;
    let mut rows = baseline.rows;
    rows.extend(curve.rows);
    let exact = Sweep {
        exact_train_size: curve.size,
        skipped: curve.skipped,
        ..none
    };
    Ok(References {
        rows,
        exact,
        curve: curve.lines,
        pace,
    })
}

/// The smallest and largest factor a map's measured time may set its estimates by: a first rung
/// timed by the pilot at 3.5 s (a fixed cost scaled by the rows) ran in 0.1 s.
const CALIBRATION: (f64, f64) = (0.05, 20.0);

/// `estimates` with each map's rungs scaled by how its last measured rung in `lines` compared
/// with its estimate (within [`CALIBRATION`]): every map timed at the sweep's size.
pub fn calibrated(estimates: &Estimates, lines: &[Line]) -> Estimates {
    let mut out = estimates.clone();
    let factor = |map: &str| {
        let line = lines
            .iter()
            .filter(|l| l.map == map && l.is_map() && !l.scores.is_empty())
            .max_by_key(|l| l.d)?;
        let estimate = estimates.get(map, line.d).filter(|e| *e > 0.0)?;
        Some((line.seconds / estimate).clamp(CALIBRATION.0, CALIBRATION.1))
    };
    for ((map, _), t) in out.seconds.iter_mut() {
        if let Some(f) = factor(map) {
            *t *= f;
        }
    }
    out
}

/// Runs the maps' cells of `plan` in rounds, from the references' rows `first`; returns the
/// last round's outcome and the sweep that ran (`skipped` says which rungs were left out as
/// plateaued, or by the clock).
fn rounds(
    context: &Context,
    plan: &Sweep,
    mut clock: Clock,
    first: Vec<ResultRow>,
) -> Result<(Outcome, Sweep)> {
    let setup = context.setup;
    let pilot = clock.estimates.clone();
    let mut schedule = Schedule::new(plan);
    let mut earlier = first;
    for round in 1.. {
        let current = &schedule.current;
        let round_line = format!("sweep, round {round}: {}", describe(current));
        context.progress.say(&round_line);
        let spec = spec(setup, context.tuned, current)?;
        let start = Instant::now();
        let outcome = context.run_spec("compare", &spec, &earlier)?;
        let cut = outcome.rows.iter().filter(|r| r.is_cut()).count();
        if cut > 0 {
            context.progress.say(&format!(
                "round {round}: {cut} runs cut, the sweep's time was up (see compare.csv)"
            ));
        }
        let lines = lines::lines(setup, &read(&outcome)?, &Estimates::default());
        clock.estimates = calibrated(&pilot, &lines);
        // How much longer than its runs' measured times the round took (loading the data,
        // writing the files): the cells new in this round at the calibrated estimates.
        let new = clock.maps_estimate(setup, current)
            - clock.maps_estimate(setup, &measured(&earlier, current));
        let pace = pace(start.elapsed().as_secs_f64(), new);
        let left = secs_left(clock.deadline);
        // The estimated end, corrected by the pace so far: the rungs not yet run at that pace
        // (an upper bound: plateaued maps stop early), within the sweep's deadline.
        let to_run =
            (clock.maps_estimate(setup, plan) - clock.maps_estimate(setup, current)).max(0.0);
        let progress = context.progress;
        progress.expect_end(progress.elapsed() + (to_run * pace).min(left) + clock.after);
        if !schedule.advance(&lines, &clock, pace, left) {
            return Ok((outcome, schedule.current));
        }
        earlier = outcome.rows;
    }
    unreachable!("the rounds end when no map grows")
}

/// The cells of `current` that `earlier` holds a finished row of (the rounds before).
fn measured(earlier: &[ResultRow], current: &Sweep) -> Sweep {
    let done = |map: &str, d: usize| {
        earlier.iter().any(|r| {
            r.not_run().is_none()
                && crate::compare::series::series_name(r).as_deref() == Some(map)
                && r.coordinates.get(N_COMPONENTS.name) == Some(&CellValue::Int(d as i64))
        })
    };
    Sweep {
        per_map: current
            .per_map
            .iter()
            .map(|(m, ds)| (*m, ds.iter().copied().filter(|&d| done(m, d)).collect()))
            .collect(),
        ..Sweep::default()
    }
}

/// How far the rounds so far overran the estimate of them (`estimate` seconds for the cells
/// that ran, `elapsed` measured): at least 1, so a fast round gives no credit.
fn pace(elapsed: f64, estimate: f64) -> f64 {
    (elapsed / estimate.max(1e-9)).max(1.0)
}

/// Which rungs each round runs: the plan's, each map's first in the first round, then one
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
                .map(|(map, ds)| (*map, ds.iter().take(1).copied().collect()))
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

/// Why no map ran, when none fits what tuning, the pilot and the references left of the budget:
/// what the smallest sweep (the baseline, the exact machine and every map at its first D) is
/// estimated to take, and the budget that would hold it.
fn too_small(state: &State) -> String {
    let (setup, budget) = (&state.setup, state.budget);
    let first = setup.ladder[0];
    let smallest = Sweep {
        per_map: setup
            .map_names()
            .into_iter()
            .map(|m| (m, vec![first]))
            .collect(),
        exact_train_size: Some(0),
        skipped: Vec::new(),
    };
    let needed = total(setup, &state.estimates, &smallest) / SWEEP.share.of_left();
    let spent = state.progress.elapsed();
    format!(
        "--budget {budget}s leaves no time for any map: tuning, the pilot and the references took \
         {spent:.1} s, and the smallest sweep (the linear baseline, the exact machine and every \
         map at D = {first}, {} repetitions) is estimated at {needed:.1} s more. Give --budget \
         {}s or more, or fewer --maps or --repetitions",
        setup.repetitions,
        (spent + needed).max(2.0 * budget).ceil()
    )
}

/// The plan in a sentence, for the command's output and the report.
fn plan_note(sweep: &Sweep, estimate: f64, remaining: f64, budget: f64) -> String {
    let cells: usize = sweep.per_map.iter().map(|(_, ds)| ds.len()).sum();
    format!(
        "The sweep planned: {cells} (map, D) cells (fewer where a map plateaued), the linear \
         baseline{}; estimated {estimate:.0} s of the {remaining:.0} s left of the {budget:.0} s budget after tuning and the pilot.",
        match sweep.exact_train_size {
            Some(0) => " and the exact kernel machine".to_string(),
            Some(m) => format!(
                " and the exact kernel machine on {m} training rows ({})",
                curve::SPEED_BOUND
            ),
            None => String::new(),
        }
    )
}

/// The sweep.
pub fn spec(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> Result<Written> {
    spec_named("compare", setup, tuned, sweep)
}

/// The sweep's spec under another `name` (the exact machine's sizes: `exact-1`, ...).
pub fn spec_named(name: &str, setup: &Setup, tuned: Tuned, sweep: &Sweep) -> Result<Written> {
    let what = "which map, at what D, on this data";
    let title = "Which map, at what D (rfbench compare)";
    let mut w = base(setup, name, title, what, LEARNING.name)?;
    let bandwidth = setup.kernel.bandwidth_param().map(|p| p.name);
    let mut chosen = Vec::new();
    if let (Some(name), Some(sigma), Some(_)) = (bandwidth, tuned.sigma, setup.median) {
        chosen.push(format!("{name} = {sigma:?}"));
    }
    chosen.push(format!("{} = {:?}", setup.penalty, tuned.penalty));
    for (map, own) in tuned.own_penalties() {
        chosen.push(format!(
            "{map}'s own {} = {:?} (at D = {})",
            setup.penalty, own.value, own.d
        ));
    }
    for (map, own) in tuned.last_rung_penalties() {
        chosen.push(format!(
            "{map}'s own {} at its last D = {}: {:?}",
            setup.penalty, own.d, own.value
        ));
    }
    if let (Some(name), Some(sigma), Some(_)) = (bandwidth, tuned.exact_sigma, setup.median) {
        chosen.push(format!("the exact machine's own {name} = {sigma:?}"));
    }
    chosen.push(format!(
        "the exact machine's own {} = {:?}",
        setup.exact_penalty, tuned.exact_penalty
    ));
    w.comments.push(format!(
        "- {}: chosen by {}",
        chosen.join(", "),
        files(Path::new(""), "tune").csv().display()
    ));
    for reason in &sweep.skipped {
        w.comments.push(format!("- left out: {reason}"));
    }
    w.spec.kernel = tuned_kernel(setup, tuned);
    grid(&mut w.spec, setup, sweep, tuned, true, 0);
    // With the same rows in every repetition the exact machine and the baseline (no random
    // draw) run once.
    let exact_once = sweep.exact_train_size.map(|_| setup.has_test);
    constants(&mut w.spec, setup, tuned, false, exact_once);
    if setup.has_test {
        let once = table([("repetitions", Value::Integer(1))]);
        w.spec
            .maps
            .entry(raw_map().name.into())
            .or_default()
            .extend(once);
    }
    add_total_seconds(&mut w.spec);
    let metric = setup.task_kind().score_metric();
    let mut variant_params: Vec<&str> = Vec::new();
    for (series, _) in ran(sweep).filter(|(s, _)| s.variant.is_some()) {
        variant_params.extend(series.variant_params());
    }
    variant_params.dedup();
    if sweep.per_map.iter().all(|(_, ds)| ds.is_empty()) {
        // Round 0 (the references alone): no D to draw against.
        return Ok(w);
    }
    w.spec.figures = vec![
        figure(SCORE_FIGURE, metric, metric_label(setup), &variant_params),
        figure(
            TIME_FIGURE,
            TOTAL_SECONDS,
            "Map + train + predict (s)",
            &variant_params,
        ),
    ];
    Ok(w)
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

    fn timed(map: &str, d: usize, scores: &[f64], seconds: f64) -> Line {
        crate::compare::lines::tests::line(map, d, scores, seconds)
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

    fn clock(estimates: &Estimates) -> Clock {
        Clock {
            estimates: estimates.clone(),
            deadline: Instant::now(),
            repetitions: 3.0,
            after: 0.0,
        }
    }

    #[test]
    fn the_first_round_runs_each_maps_first_rung() {
        let s = two_maps(true);
        let (a, b, c) = (s.maps[0].name(), s.maps[1].name(), s.maps[2].name());
        let plan = plan(a, b, c);
        let schedule = Schedule::new(&plan);
        let first = &schedule.current;
        assert_eq!(
            first.per_map,
            vec![(a, vec![64]), (b, vec![64]), (c, vec![])]
        );
        // The exact machine and what the budget left out come with the first round.
        assert_eq!(first.exact_train_size, Some(300));
        assert_eq!(first.skipped, vec!["planned out".to_string()]);
        assert_eq!(describe(first), format!("{a} D = 64; {b} D = 64"));
        // Its second round adds a's second rung; b's plan is done.
        let estimates = Estimates::default();
        let mut schedule = Schedule::new(&plan);
        let lines = [line(a, 64, &[70.0]), line(b, 64, &[60.0])];
        assert!(schedule.advance(&lines, &clock(&estimates), 1.0, 100.0));
        assert_eq!(
            describe(&schedule.current),
            format!("{a} D = 64, 128; {b} D = 64")
        );
    }

    /// The schedule after two rounds of a map still gaining: its first two rungs.
    fn two_rungs(plan: &Sweep) -> Schedule<'_> {
        let mut schedule = Schedule::new(plan);
        for (k, (_, ds)) in plan.per_map.iter().enumerate() {
            schedule.current.per_map[k].1 = ds.iter().take(2).copied().collect();
        }
        schedule
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
        let mut schedule = two_rungs(&plan);
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
        let mut schedule = two_rungs(&plan);
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
        let mut schedule = two_rungs(&plan);
        let exact = |scores: &[f64], train_size| Line {
            train_size,
            ..line(exact_map().name, 0, scores)
        };
        let lines = [line(a, 64, &[70.0]), line(a, 128, &[75.0])];
        // The exact machine on a subsample, or without a score, is no reference.
        for reference in [exact(&[75.2], 300), exact(&[], 0)] {
            let mut lines = lines.to_vec();
            lines.push(reference);
            let mut schedule = two_rungs(&plan);
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
        let mut schedule = two_rungs(&plan);
        assert!(schedule.advance(&lines, &clock(&estimates), 1.5, 30.0));
        assert_eq!(schedule.current.per_map[0].1, vec![64, 128, 256]);
        assert_eq!(schedule.current.per_map[1].1, vec![64, 128, 256]);
        // 20 s: a fits (2 s left), b's 9 s do not.
        let mut schedule = two_rungs(&plan);
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

    /// Each map's estimates are scaled by its last measured rung against its estimate, within
    /// [`CALIBRATION`]; a map not measured keeps the pilot's.
    #[test]
    fn each_map_is_calibrated_by_its_last_measured_rung() {
        let seconds = [
            (("a", 64), 10.0),
            (("a", 128), 20.0),
            (("b", 64), 1.0),
            (("b", 128), 2.0),
            (("c", 64), 1.0),
            (("d", 64), 1.0),
        ];
        let estimates = Estimates {
            seconds: seconds
                .iter()
                .map(|((m, d), t)| ((m.to_string(), *d), *t))
                .collect(),
            exact_exponent: None,
        };
        let lines = [
            // a: 0.5 s where 10 s were estimated at D = 64, 2 s where 20 at D = 128.
            timed("a", 64, &[80.0], 0.5),
            timed("a", 128, &[81.0], 2.0),
            // b: 3 s where 1 s was estimated; c: 100x, clamped; d: no score.
            timed("b", 64, &[80.0], 3.0),
            timed("c", 64, &[80.0], 100.0),
            timed("d", 64, &[], 50.0),
        ];
        let e = calibrated(&estimates, &lines);
        assert_eq!(e.get("a", 64), Some(1.0));
        assert_eq!(e.get("a", 128), Some(2.0));
        assert_eq!(e.get("b", 128), Some(6.0));
        assert_eq!(e.get("c", 64), Some(CALIBRATION.1));
        assert_eq!(e.get("d", 64), Some(1.0));
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
