//! The time budget: the pilot's measured cost of each map at two values of D on a subsample,
//! extrapolated to every cell of the sweep, and the cells kept while the estimate fits.
//!
//! The model, per map: seconds per repetition = t(D) x (training rows / pilot's training rows),
//! with t(D) the power law through the pilot's two points (exponent clamped to [0.5, 3]); the
//! exact kernel machine scales with a power of the rows measured by the pilot on all its
//! training rows and on half of them (clamped to [1, 2]; 2, SMO's kernel evaluations, when the
//! two are too fast to time: the square alone overestimated it 3-8x on 20,000 rows), and runs
//! on a subsample of the training rows when all of them would not fit a quarter of the budget
//! (or what the baseline left of it).
//! A rough model: the report prints each estimate beside the time measured.

use std::collections::BTreeMap;

use super::setup::Setup;
use crate::results::{CellValue, ResultRow};
use rfbench_registry::kinds::{column, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{exact_map, raw_map};

/// What the sweep runs.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    /// Each map's list of D (empty: none fits).
    pub per_map: Vec<(&'static str, Vec<usize>)>,
    /// `Some(0)`: the exact machine on all training rows; `Some(m)`: on m of them; `None`:
    /// not run.
    pub exact_train_size: Option<usize>,
    /// Cells left out, with the reason.
    pub skipped: Vec<String>,
}

/// Estimated seconds of one repetition of each cell, keyed by (map, D); the exact machine and
/// the baseline under D = 0.
#[derive(Debug, Clone, Default)]
pub struct Estimates {
    pub seconds: BTreeMap<(String, usize), f64>,
    /// The power of the training rows the exact machine's time grows with (`None`: 2).
    pub exact_exponent: Option<f64>,
}

impl Estimates {
    pub fn get(&self, map: &str, d: usize) -> Option<f64> {
        self.seconds.get(&(map.to_string(), d)).copied()
    }

    fn exact_exponent(&self) -> f64 {
        self.exact_exponent.unwrap_or(2.0)
    }

    /// The exact machine's seconds a repetition on `share` of the training rows.
    fn exact_on(&self, share: f64) -> Option<f64> {
        let t = self.get(exact_map().name, 0)?;
        Some(t * share.powf(self.exact_exponent()))
    }
}

/// The pilot's training rows: the subsample's share of the training rows.
pub fn pilot_train(setup: &Setup) -> usize {
    let rows = setup.n.min(super::setup::PILOT_ROWS);
    ((rows as f64) * setup.n_train as f64 / setup.n as f64)
        .round()
        .max(1.0) as usize
}

/// The pilot's exact machine also runs on this many of its training rows (half), to measure how
/// its time grows with the rows; `None` when too few to time.
pub fn exact_half(pilot_train: usize) -> Option<usize> {
    (pilot_train >= 400).then_some(pilot_train / 2)
}

/// Below this many seconds the exact machine's two pilot times are too noisy for an exponent.
const TIMEABLE: f64 = 0.05;

/// Whether the components of `series` (a map, or a variant of one) are training rows
/// (Nystroem's landmarks): its D is capped by the rows it is fitted on.
pub fn components_are_rows(series: &str) -> bool {
    rfbench_registry::series::named(series).is_some_and(|s| s.map.components_are_rows)
}

/// The most landmarks Nystroem may take from `train` training rows: a split's rounding per class
/// moves the count by a few rows, so a margin of 5 %.
pub fn landmarks(train: usize) -> usize {
    train - train / 20
}

/// The D the pilot measures besides the smallest: the smallest doubled while at most 1,024, at
/// most the sweep's largest D (a cell the sweep will not run need not be measured) and at most
/// the pilot's landmarks (Nystroem's are training rows); the smallest itself on tiny data or a
/// one-rung ladder (then costs are taken as linear in D).
pub fn pilot_d(setup: &Setup, pilot_train: usize) -> usize {
    let largest = setup.ladder.last().copied().unwrap_or(0);
    let cap = 1024.min(largest).min(landmarks(pilot_train));
    let d0 = setup.ladder[0];
    std::iter::successors(Some(d0), |&d| Some(d * 2))
        .take_while(|&d| d <= cap)
        .last()
        .unwrap_or(d0)
}

/// The pilot's mean total seconds per (series, D, training rows; 0: all): each variant of a map
/// (RFF's phase form, twice the projections of the paired one at equal D) timed as its own.
fn measured(pilot: &[ResultRow]) -> BTreeMap<(String, usize, usize), f64> {
    let mut sums: BTreeMap<(String, usize, usize), (f64, usize)> = BTreeMap::new();
    for row in pilot {
        let parts = [
            column::MAP_SECONDS,
            column::TRAIN_SECONDS,
            column::PREDICT_SECONDS,
        ];
        let Some(total) = parts.iter().map(|p| row.metric(p)).sum::<Option<f64>>() else {
            continue;
        };
        let Some(map) = super::series::series_name(row) else {
            continue;
        };
        let d = match row.coordinates.get(N_COMPONENTS.name) {
            Some(CellValue::Int(d)) => *d as usize,
            _ => 0,
        };
        let size = match row.coordinates.get(TRAIN_SIZE.name) {
            Some(CellValue::Int(m)) => *m as usize,
            _ => 0,
        };
        let slot = sums.entry((map, d, size)).or_default();
        slot.0 += total;
        slot.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect()
}

/// Every cell's estimate from the pilot's rows, `scale` = full training rows over the pilot's
/// `pilot_train`.
pub fn estimate(
    setup: &Setup,
    pilot: &[ResultRow],
    pilot_d: usize,
    pilot_train: usize,
    scale: f64,
) -> Estimates {
    let all = measured(pilot);
    let measured: BTreeMap<(String, usize), f64> = all
        .iter()
        .filter(|((_, _, size), _)| *size == 0)
        .map(|((map, d, _), t)| ((map.clone(), *d), *t))
        .collect();
    let mut seconds = BTreeMap::new();
    let d0 = setup.ladder[0];
    for map in setup.map_names() {
        let (Some(&t0), Some(&t1)) = (
            measured.get(&(map.to_string(), d0)),
            measured.get(&(map.to_string(), pilot_d)),
        ) else {
            continue;
        };
        let exponent = if pilot_d > d0 && t0 > 0.0 && t1 > 0.0 {
            ((t1 / t0).ln() / (pilot_d as f64 / d0 as f64).ln()).clamp(0.5, 3.0)
        } else {
            1.0
        };
        // Past the pilot's D, never a smaller power than the algorithm's (the registry's).
        let growth = rfbench_registry::series::named(map).map_or(1.0, |s| s.map.cost_growth);
        for &d in &setup.ladder {
            let t = match d > pilot_d {
                true => t1 * (d as f64 / pilot_d as f64).powf(exponent.max(growth)),
                false => t0 * (d as f64 / d0 as f64).powf(exponent),
            };
            seconds.insert((map.to_string(), d), t * scale);
        }
    }
    let (raw, exact) = (raw_map().name.to_string(), exact_map().name.to_string());
    if let Some(&t) = measured.get(&(raw.clone(), 0)) {
        seconds.insert((raw, 0), t * scale);
    }
    let half = exact_half(pilot_train).and_then(|m| Some((m, *all.get(&(exact.clone(), 0, m))?)));
    let exact_exponent = match (measured.get(&(exact.clone(), 0)), half) {
        (Some(&t), Some((m, t_half))) if t_half >= TIMEABLE && t > 0.0 => {
            let ratio = pilot_train as f64 / m as f64;
            Some(((t / t_half).ln() / ratio.ln()).clamp(1.0, 2.0))
        }
        _ => None,
    };
    if let Some(&t) = measured.get(&(exact.clone(), 0)) {
        seconds.insert((exact, 0), t * scale.powf(exact_exponent.unwrap_or(2.0)));
    }
    Estimates {
        seconds,
        exact_exponent,
    }
}

/// A subsample of the training rows this large a share of them runs on all of them instead: the
/// exact machine on every row is the reference of every answer (on 99 % of Adult's rows it was
/// not, and the best cell became the reference).
const ALL_ROWS_ABOVE: f64 = 0.9;

/// The exact machine's repetitions: one with a fixed test file (it draws nothing at random, and
/// the sweep runs it once).
fn exact_repetitions(setup: &Setup) -> f64 {
    if setup.has_test {
        1.0
    } else {
        setup.repetitions as f64
    }
}

/// The cells that fit `budget` seconds: the baseline, the exact machine (on all training rows
/// if that takes at most a quarter of the budget and what the baseline left, else on the
/// subsample that does), then the rungs of the ladder in increasing D, every map's rung before
/// the next one, while the total fits. Nystroem stops at the training rows.
pub fn fit(setup: &Setup, estimates: &Estimates, budget: f64) -> Sweep {
    let reps = setup.repetitions as f64;
    let mut spent = estimates.get(raw_map().name, 0).unwrap_or(0.0) * reps;
    let mut sweep = Sweep::default();
    // Capped by what the baseline left, so that the plan's total stays within the budget.
    let exact_allowance = (budget / 4.0).min(budget - spent).max(0.0);
    let exact_reps = exact_repetitions(setup);
    match estimates.get(exact_map().name, 0) {
        Some(t) if t * exact_reps <= exact_allowance => {
            spent += t * exact_reps;
            sweep.exact_train_size = Some(0);
        }
        Some(t) => {
            // A power e of the rows: m = n (share / t)^(1 / e).
            let share = exact_allowance / exact_reps;
            let e = estimates.exact_exponent();
            let m = (setup.n_train as f64 * (share / t).powf(1.0 / e)) as usize;
            if m as f64 >= ALL_ROWS_ABOVE * setup.n_train as f64 {
                // Nearly all of them: the reference on every row is worth the overrun.
                spent += t * exact_reps;
                sweep.exact_train_size = Some(0);
            } else if m >= 200 {
                spent += exact_allowance;
                sweep.exact_train_size = Some(m);
                sweep.skipped.push(format!(
                    "exact on all {} training rows: estimated {:.0} s a repetition; run on {m} \
                     of them",
                    setup.n_train, t
                ));
            } else {
                sweep.skipped.push(format!(
                    "exact: estimated {t:.0} s a repetition, more than the budget allows"
                ));
            }
        }
        None => sweep
            .skipped
            .push("exact: the pilot did not measure it".to_string()),
    }
    sweep.per_map = setup
        .map_names()
        .into_iter()
        .map(|m| (m, Vec::new()))
        .collect();
    let mut stopped = vec![false; setup.maps.len()];
    for &d in &setup.ladder {
        for (k, map) in setup.map_names().into_iter().enumerate() {
            if stopped[k] {
                continue;
            }
            if components_are_rows(map) && d > landmarks(setup.n_train) {
                stopped[k] = true;
                sweep.skipped.push(format!(
                    "{map} at D >= {d}: more landmarks than the {} training rows",
                    setup.n_train
                ));
                continue;
            }
            let Some(t) = estimates.get(map, d) else {
                stopped[k] = true;
                sweep
                    .skipped
                    .push(format!("{map}: the pilot did not measure it"));
                continue;
            };
            if spent + t * reps > budget {
                stopped[k] = true;
                sweep.skipped.push(format!(
                    "{map} at D >= {d}: estimated {:.1} s for {} repetitions would pass the \
                     budget",
                    t * reps,
                    setup.repetitions
                ));
                continue;
            }
            spent += t * reps;
            sweep.per_map[k].1.push(d);
        }
    }
    sweep
}

/// The Gram step's cells that fit `left` seconds: each map's D of `sweep` in increasing order
/// while the estimate fits, a cell's estimate its sweep time (`seconds`, per repetition) scaled
/// to the Gram step's `rows` of the `n_train` training rows, twice over for the Gram matrices;
/// the rest left out with the reason.
pub fn gram_sweep(
    sweep: &Sweep,
    seconds: impl Fn(&str, usize) -> Option<f64>,
    rows: usize,
    n_train: usize,
    repetitions: usize,
    left: f64,
) -> Sweep {
    let share = (rows as f64 / n_train.max(1) as f64).min(1.0);
    let mut spent = 0.0;
    let mut out = Sweep::default();
    for (map, ds) in &sweep.per_map {
        let mut kept = Vec::new();
        for &d in ds {
            let t = seconds(map, d).unwrap_or(0.0) * share * 2.0 * repetitions as f64;
            if spent + t > left {
                out.skipped.push(format!(
                    "the Gram error of {map} at D >= {d}: estimated {t:.1} s, {:.0} s of the \
                     budget left",
                    (left - spent).max(0.0)
                ));
                break;
            }
            spent += t;
            kept.push(d);
        }
        out.per_map.push((map, kept));
    }
    out
}

/// The total estimate of a sweep, in seconds.
pub fn total(setup: &Setup, estimates: &Estimates, sweep: &Sweep) -> f64 {
    let reps = setup.repetitions as f64;
    let mut t = estimates.get(raw_map().name, 0).unwrap_or(0.0) * reps;
    if let Some(size) = sweep.exact_train_size {
        let share = match size {
            0 => 1.0,
            m => m as f64 / setup.n_train as f64,
        };
        t += estimates.exact_on(share).unwrap_or(0.0) * exact_repetitions(setup);
    }
    for (map, ds) in &sweep.per_map {
        t += ds
            .iter()
            .filter_map(|&d| estimates.get(map, d))
            .sum::<f64>()
            * reps;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::two_maps;
    use crate::results::{CellOutcome, MetricsBuilder};

    /// A pilot row of `map` at `d` (0: no D) whose three times add up to `total` seconds.
    fn row(map: &str, d: usize, total: f64) -> ResultRow {
        let declared = [
            column::MAP_SECONDS,
            column::TRAIN_SECONDS,
            column::PREDICT_SECONDS,
        ]
        .map(String::from);
        let mut metrics = MetricsBuilder::new(&declared);
        let parts = [0.25 * total, 0.5 * total, 0.25 * total];
        metrics
            .extend(declared.iter().map(|c| c.as_str()).zip(parts))
            .unwrap();
        let mut coordinates = BTreeMap::from([("map".to_string(), CellValue::Text(map.into()))]);
        if d > 0 {
            coordinates.insert(N_COMPONENTS.name.into(), CellValue::Int(d as i64));
        }
        ResultRow {
            coordinates,
            repetition: 0,
            seeds: Vec::new(),
            outcome: CellOutcome::Done(metrics.finish()),
        }
    }

    fn assert_close(actual: Option<f64>, expected: f64, what: &str) {
        let actual = actual.unwrap_or_else(|| panic!("{what}: no estimate"));
        assert!(
            (actual - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{what}: {actual} != {expected}"
        );
    }

    fn estimates(cells: &[(&str, usize, f64)]) -> Estimates {
        let seconds = cells.iter().map(|&(m, d, t)| ((m.to_string(), d), t));
        Estimates {
            seconds: seconds.collect(),
            exact_exponent: None,
        }
    }

    #[test]
    fn landmarks_leave_a_twentieth_of_the_rows() {
        let cases = [(0, 0), (19, 19), (20, 19), (450, 428), (1000, 950)];
        for (train, expected) in cases {
            assert_eq!(landmarks(train), expected, "{train} rows");
        }
    }

    #[test]
    fn the_pilot_doubles_the_smallest_d_up_to_its_caps() {
        let mut s = two_maps(false);
        s.ladder = vec![64, 128, 256, 512, 1024, 2048, 4096];
        // 1,024 at most; then the pilot's landmarks (1500 - 75 = 1425, 300 - 15 = 285).
        assert_eq!(pilot_d(&s, 1500), 1024);
        assert_eq!(pilot_d(&s, 300), 256);
        // Fewer landmarks than the smallest D: the smallest itself.
        assert_eq!(pilot_d(&s, 60), 64);
        // Never past the sweep's largest D.
        s.ladder = vec![64, 128, 256, 300];
        assert_eq!(pilot_d(&s, 1500), 256);
        s.ladder = vec![64, 100];
        assert_eq!(pilot_d(&s, 1500), 64);
        s.ladder = vec![64];
        assert_eq!(pilot_d(&s, 1500), 64);
    }

    /// t(D) = t0 (D / D0)^e with e from the pilot's two points, clamped to [0.5, 3], times the
    /// rows' scale; the baseline scales with the rows, the exact machine with their square.
    #[test]
    fn estimates_follow_the_power_law_through_the_pilots_two_points() {
        let s = two_maps(false);
        let (quadratic, flat) = (s.maps[0].name(), s.maps[1].name());
        let (raw, exact) = (raw_map().name, exact_map().name);
        let pilot = [
            // Two repetitions at D = 64: their mean, 1 s.
            row(quadratic, 64, 0.8),
            row(quadratic, 64, 1.2),
            // 16 times the time for 4 times the D: exponent 2.
            row(quadratic, 256, 16.0),
            // No growth: exponent 0, clamped to 0.5.
            row(flat, 64, 2.0),
            row(flat, 256, 2.0),
            row(raw, 0, 0.5),
            row(exact, 0, 2.0),
        ];
        let e = estimate(&s, &pilot, 256, 100, 3.0);
        for (d, t) in [(64, 1.0), (128, 4.0), (256, 16.0)] {
            assert_close(
                e.get(quadratic, d),
                3.0 * t,
                &format!("{quadratic} D = {d}"),
            );
        }
        for (d, t) in [(64, 2.0), (128, 2.0 * 2f64.sqrt()), (256, 4.0)] {
            assert_close(e.get(flat, d), 3.0 * t, &format!("{flat} D = {d}"));
        }
        assert_close(e.get(raw, 0), 1.5, "baseline");
        assert_close(e.get(exact, 0), 18.0, "the exact machine");
        // Only the ladder's rungs and the two machines.
        assert_eq!(e.seconds.len(), 2 * 3 + 2);
    }

    #[test]
    fn the_exact_machines_growth_is_measured_on_half_the_pilots_rows() {
        let s = two_maps(false);
        let exact = exact_map().name;
        let on = |m: usize, total: f64| {
            let mut r = row(exact, 0, total);
            r.coordinates
                .insert(TRAIN_SIZE.name.into(), CellValue::Int(m as i64));
            r
        };
        // 1,000 pilot rows, 1 s; 500 rows, 0.4 s: exponent log2(2.5) = 1.32; on 10x the rows,
        // 10^1.32 s instead of the square's 100 s.
        let pilot = [row(exact, 0, 1.0), on(500, 0.4)];
        let e = estimate(&s, &pilot, 256, 1000, 10.0);
        let exponent = 2.5f64.log2();
        assert_close(e.exact_exponent, exponent, "exponent");
        assert_close(e.get(exact, 0), 10f64.powf(exponent), "the exact machine");
        // Linear at most... at least: a half that took longer is clamped to 1.
        let e = estimate(&s, &[row(exact, 0, 1.0), on(500, 1.0)], 256, 1000, 10.0);
        assert_close(e.get(exact, 0), 10.0, "clamped to linear");
        // Too fast to time: the square.
        let e = estimate(&s, &[row(exact, 0, 0.06), on(500, 0.01)], 256, 1000, 10.0);
        assert_eq!(e.exact_exponent, None);
        assert_close(e.get(exact, 0), 6.0, "the square");
        // A subsample that fits follows the measured power too.
        let e = estimate(&s, &pilot, 256, 1000, 10.0);
        let sweep = Sweep {
            exact_train_size: Some(s.n_train / 2),
            ..Sweep::default()
        };
        let expected = 10f64.powf(exponent) * 0.5f64.powf(exponent) * s.repetitions as f64;
        assert_close(Some(total(&s, &e, &sweep)), expected, "half the rows");
    }

    #[test]
    fn the_gram_step_keeps_each_maps_d_while_they_fit_what_is_left() {
        let sweep = Sweep {
            per_map: vec![("map-a", vec![64, 128, 256]), ("map-b", vec![64])],
            ..Sweep::default()
        };
        // 1,000 training rows, 500 compared: a cell's Gram estimate is its time (D / 64 s)
        // x 0.5 x 2 x 2 repetitions = D / 32 s: 2 + 4 + 8 for map-a, 2 for map-b.
        let seconds = |_: &str, d: usize| Some(d as f64 / 64.0);
        let all = gram_sweep(&sweep, seconds, 500, 1000, 2, 16.0);
        assert_eq!(all.per_map, sweep.per_map);
        assert!(all.skipped.is_empty());
        let some = gram_sweep(&sweep, seconds, 500, 1000, 2, 7.0);
        assert_eq!(
            some.per_map,
            vec![("map-a", vec![64, 128]), ("map-b", vec![])]
        );
        assert_eq!(
            some.skipped,
            [
                "the Gram error of map-a at D >= 256: estimated 8.0 s, 1 s of the budget left",
                "the Gram error of map-b at D >= 64: estimated 2.0 s, 1 s of the budget left"
            ]
        );
    }

    #[test]
    fn a_steep_or_unmeasured_map_is_clamped_or_left_out() {
        let s = two_maps(false);
        let (steep, unmeasured) = (s.maps[0].name(), s.maps[1].name());
        let failed = ResultRow {
            outcome: CellOutcome::Failed("out of memory".into()),
            ..row(unmeasured, 256, 1.0)
        };
        // 4^4 = 256 times the time: exponent 4, clamped to 3.
        let pilot = [
            row(steep, 64, 1.0),
            row(steep, 256, 256.0),
            row(unmeasured, 64, 1.0),
            failed,
        ];
        let e = estimate(&s, &pilot, 256, 100, 1.0);
        assert_close(e.get(steep, 128), 8.0, "steep D = 128");
        assert_close(e.get(steep, 256), 64.0, "steep D = 256");
        // The failed row has no times: without its second point the map has no estimate.
        assert_eq!(e.get(unmeasured, 64), None);
        assert_eq!(e.get(exact_map().name, 0), None);
    }

    /// Past the pilot's D the power is at least the registry's: PRFF (O(D^2)) timed as D^1.25
    /// between 64 and 512 is estimated as D^2 above 512; RFF keeps its measured power.
    #[test]
    fn past_the_pilot_a_map_grows_at_least_as_its_algorithm_does() {
        let mut s =
            crate::compare::test_support::setup("gaussian", rfbench_data::Task::Binary, None);
        s.maps.retain(|m| m.name() == "prff" || m.name() == "rff");
        assert_eq!(s.maps.len(), 2);
        s.ladder = vec![64, 512, 4096];
        let slow = 8f64.powf(1.25);
        let pilot = [
            row("prff", 64, 1.0),
            row("prff", 512, slow),
            row("rff", 64, 1.0),
            row("rff", 512, slow),
        ];
        let e = estimate(&s, &pilot, 512, 100, 1.0);
        assert_close(e.get("prff", 512), slow, "prff at the pilot's D");
        assert_close(e.get("prff", 4096), slow * 64.0, "prff past it: D^2");
        assert_close(
            e.get("rff", 4096),
            slow * slow,
            "rff past it: its own D^1.25",
        );
    }

    /// A map's variant is timed by the pilot as a series of its own, told apart by its
    /// parameter in the rows: RFF's phase form, twice the projections of the paired form at
    /// equal D, gets its own (here twice as large) estimates.
    #[test]
    fn the_pilot_times_a_variant_as_a_series_of_its_own() {
        let mut s =
            crate::compare::test_support::setup("gaussian", rfbench_data::Task::Binary, None);
        let variant = s
            .maps
            .iter()
            .copied()
            .find(|m| m.variant.is_some())
            .unwrap();
        let plain = rfbench_registry::Series::plain(variant.map);
        s.maps = vec![plain, variant];
        let v = variant.variant.unwrap();
        let with = |mut r: ResultRow| {
            let value = CellValue::Text(v.value.into());
            r.coordinates.insert(v.param.into(), value);
            r
        };
        let map = plain.name();
        let pilot = [
            row(map, 64, 1.0),
            row(map, 256, 4.0),
            with(row(map, 64, 2.0)),
            with(row(map, 256, 8.0)),
        ];
        let e = estimate(&s, &pilot, 256, 100, 1.0);
        assert_close(e.get(map, 128), 2.0, "the map at its defaults");
        assert_close(e.get(variant.name(), 128), 4.0, "its variant");
        assert_close(
            e.get(variant.name(), 256),
            8.0,
            "its variant at the pilot's D",
        );
    }

    #[test]
    fn one_pilot_d_means_costs_linear_in_d() {
        let mut s = two_maps(false);
        s.ladder = vec![64, 100];
        let map = s.maps[0].name();
        let e = estimate(&s, &[row(map, 64, 2.0)], 64, 100, 2.0);
        assert_close(e.get(map, 64), 4.0, "D = 64");
        assert_close(e.get(map, 100), 4.0 * 100.0 / 64.0, "D = 100");
    }

    /// Two maps (a, b), 2 repetitions; per repetition the baseline 1 s, the exact machine 1 s,
    /// a 1, 2, 4 s and b 1, 3, 9 s at D = 64, 128, 256.
    fn ladder_estimates(s: &Setup) -> Estimates {
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        estimates(&[
            (raw_map().name, 0, 1.0),
            (exact_map().name, 0, 1.0),
            (a, 64, 1.0),
            (a, 128, 2.0),
            (a, 256, 4.0),
            (b, 64, 1.0),
            (b, 128, 3.0),
            (b, 256, 9.0),
        ])
    }

    #[test]
    fn the_sweep_keeps_rungs_in_order_while_the_total_fits() {
        let mut s = two_maps(false);
        s.repetitions = 2;
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        let e = ladder_estimates(&s);
        // 2 + 2 (baseline, exact), D = 64: + 2 + 2, D = 128: + 4 + 6 = 18; D = 256: a's 8
        // would make 26.
        let sweep = fit(&s, &e, 20.0);
        assert_eq!(sweep.per_map, vec![(a, vec![64, 128]), (b, vec![64, 128])]);
        assert_eq!(sweep.exact_train_size, Some(0));
        assert_eq!(total(&s, &e, &sweep), 18.0);
        let want =
            format!("{a} at D >= 256: estimated 8.0 s for 2 repetitions would pass the budget");
        assert_eq!(sweep.skipped[0], want);
        assert_eq!(sweep.skipped.len(), 2, "{:?}", sweep.skipped);
        // 16 s: b's D = 128 (6 s) does not fit after a's (12 s so far), and b stops there; a's
        // D = 256 (8 s) does not fit either.
        let sweep = fit(&s, &e, 16.0);
        assert_eq!(sweep.per_map, vec![(a, vec![64, 128]), (b, vec![64])]);
        assert_eq!(total(&s, &e, &sweep), 12.0);
        // The baseline (2 s) leaves 0.5 s of 2.5 s: the exact machine's share is capped there
        // (not a quarter, 0.625 s), on m = 450 sqrt((0.5 / 2) / 1) = 225 rows.
        let sweep = fit(&s, &e, 2.5);
        assert_eq!(sweep.exact_train_size, Some(225));
        assert_eq!(total(&s, &e, &sweep), 2.5);
        // Whatever the budget, the plan's estimate stays within it once the baseline fits.
        for budget in [2.0, 2.5, 4.0, 5.0, 8.0, 11.0, 17.0, 25.0, 33.0, 100.0] {
            let t = total(&s, &e, &fit(&s, &e, budget));
            assert!(t <= budget, "budget {budget}: planned {t}");
        }
    }

    #[test]
    fn the_exact_machine_takes_a_subsample_that_fits_a_quarter_of_the_budget() {
        let mut s = two_maps(false);
        s.repetitions = 2;
        let exact = exact_map().name;
        let e = estimates(&[(exact, 0, 10.0)]);
        // 20 s for two repetitions, more than 40 / 4: m = 450 sqrt((10 / 2) / 10) = 318.2.
        let sweep = fit(&s, &e, 40.0);
        assert_eq!(sweep.exact_train_size, Some(318));
        assert_eq!(
            sweep.skipped[0],
            "exact on all 450 training rows: estimated 10 s a repetition; run on 318 of them"
        );
        let share = (318.0f64 / 450.0).powi(2);
        assert_close(Some(total(&s, &e, &sweep)), 10.0 * share * 2.0, "total");
        // Under 200 rows is not worth running: m = 450 sqrt(1 / 10) = 142.
        let sweep = fit(&s, &e, 8.0);
        assert_eq!(sweep.exact_train_size, None);
        assert_eq!(
            sweep.skipped[0],
            "exact: estimated 10 s a repetition, more than the budget allows"
        );
        assert_eq!(total(&s, &e, &sweep), 0.0);
        let sweep = fit(&s, &Estimates::default(), 40.0);
        assert_eq!(sweep.exact_train_size, None);
        assert_eq!(sweep.skipped[0], "exact: the pilot did not measure it");
        // 90 % of the rows or more: all of them (m = 450 sqrt(9 / 10) = 427).
        let sweep = fit(&s, &e, 72.0);
        assert_eq!(sweep.exact_train_size, Some(0));
        // With a fixed test file the exact machine runs once: 10 s fits a quarter of 40 s.
        s.has_test = true;
        let sweep = fit(&s, &e, 40.0);
        assert_eq!(sweep.exact_train_size, Some(0));
        assert_close(Some(total(&s, &e, &sweep)), 10.0, "one run");
    }

    #[test]
    fn landmarks_stop_at_the_training_rows() {
        let mut s = two_maps(true);
        s.n_train = 150;
        let rows_map = s.maps[2].name();
        let mut e = ladder_estimates(&s);
        for d in [64, 128, 256] {
            e.seconds.insert((rows_map.to_string(), d), 0.0);
        }
        let sweep = fit(&s, &e, f64::INFINITY);
        // 142 landmarks at most (150 - 7): D = 128 fits, 256 does not.
        assert_eq!(sweep.per_map[2], (rows_map, vec![64, 128]));
        assert_eq!(sweep.per_map[0].1, vec![64, 128, 256]);
        assert_eq!(
            sweep.skipped,
            vec![format!(
                "{rows_map} at D >= 256: more landmarks than the 150 training rows"
            )]
        );
    }

    #[test]
    fn a_zero_or_infinite_budget_gives_a_plan_not_a_panic() {
        let s = two_maps(false);
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        let e = ladder_estimates(&s);
        // Nothing fits but the baseline, which always runs.
        let none = fit(&s, &e, 0.0);
        assert_eq!(none.per_map, vec![(a, vec![]), (b, vec![])]);
        assert_eq!(none.exact_train_size, None);
        assert_eq!(total(&s, &e, &none), 3.0);
        assert_eq!(none.skipped.len(), 3, "{:?}", none.skipped);
        // Everything.
        let all = fit(&s, &e, f64::INFINITY);
        assert_eq!(
            all.per_map,
            vec![(a, vec![64, 128, 256]), (b, vec![64, 128, 256])]
        );
        assert_eq!(all.exact_train_size, Some(0));
        assert!(all.skipped.is_empty(), "{:?}", all.skipped);
        assert_eq!(total(&s, &e, &all), 3.0 * (1.0 + 1.0 + 7.0 + 13.0));
        // A map the pilot did not measure is left out, and says so.
        let mut partial = e.clone();
        partial.seconds.retain(|(m, _), _| m != b);
        let sweep = fit(&s, &partial, f64::INFINITY);
        assert_eq!(sweep.per_map[1], (b, vec![]));
        assert_eq!(
            sweep.skipped,
            vec![format!("{b}: the pilot did not measure it")]
        );
    }
}
