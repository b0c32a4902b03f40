//! Stage `pilot`: every map's cost at two values of D on a subsample (`pilot.toml`), the linear
//! baseline's, and the exact machine's on all the subsample's training rows and on half of them,
//! extrapolated to every cell of the sweep ([`estimate`]).
//!
//! The model, per map: seconds per repetition = t(D) x (training rows / pilot's training rows),
//! with t(D) the power law through the pilot's two points (exponent clamped to [0.5, 3]); the
//! exact kernel machine scales with a power of the rows measured by the pilot on all its
//! training rows and on half of them (clamped to [1, 2]; 2, SMO's kernel evaluations, when the
//! two are too fast to time: the square alone overestimated it 3-8x on 20,000 rows).

use std::collections::BTreeMap;

use toml::Value;

use crate::compare::budget::{landmarks, Estimates, Sweep};
use crate::compare::setup::{Setup, PILOT_ROWS};
use crate::compare::specs::{
    base, constants, grid, grid_key, subsampled, tuned_kernel, Tuned, Written,
};
use crate::compare::state::{read, State};
use crate::error::Result;
use crate::results::{CellValue, ResultRow};
use rfbench_registry::kinds::{column, LEARNING, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{exact_map, raw_map};

/// Runs the pilot and records its second D and every cell's estimate.
pub fn run(state: &mut State) -> Result<()> {
    let setup = &state.setup;
    let pilot_train = pilot_train(setup);
    let pilot_d = pilot_d(setup, pilot_train);
    let pilot_ds = match pilot_d == setup.ladder[0] {
        true => format!("D = {pilot_d}"),
        false => format!("D = {} and {pilot_d}", setup.ladder[0]),
    };
    state
        .progress
        .say(&format!("pilot run (every map at {pilot_ds})"));
    let spec = spec(setup, state.tuned, pilot_d)?;
    let pilot = state.context().run_spec("pilot", &spec, &[])?;
    let scale = setup.n_train as f64 / pilot_train as f64;
    state.estimates = estimate(setup, &read(&pilot)?.rows, pilot_d, pilot_train, scale);
    state.pilot_d = pilot_d;
    Ok(())
}

/// The pilot's training rows: the subsample's share of the training rows.
pub fn pilot_train(setup: &Setup) -> usize {
    let rows = setup.n.min(PILOT_ROWS);
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
        let Some(map) = crate::compare::series::series_name(row) else {
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

/// The pilot: every map at the sweep's smallest D and at `pilot_d`, the linear baseline and the
/// exact machine, once, on the subsample.
pub fn spec(setup: &Setup, tuned: Tuned, pilot_d: usize) -> Result<Written> {
    let what = "each cell's cost at two values of D, on a subsample, for the budget";
    let mut w = base(
        setup,
        "pilot",
        "Pilot run of rfbench compare",
        what,
        LEARNING.name,
    )?;
    subsampled(&mut w.spec, setup, PILOT_ROWS)?;
    w.spec.kernel = tuned_kernel(setup, tuned);
    let sweep = Sweep {
        per_map: setup
            .maps
            .iter()
            .map(|m| {
                let mut ds = vec![setup.ladder[0], pilot_d];
                ds.dedup();
                (m.name(), ds)
            })
            .collect(),
        exact_train_size: Some(0),
        skipped: Vec::new(),
    };
    grid(&mut w.spec, setup, &sweep, tuned, true, 0);
    // The exact machine on half the training rows too: how its time grows with them.
    if let Some(half) = exact_half(pilot_train(setup)) {
        let key = grid_key();
        if let Some(Value::Array(tuples)) = w.spec.grid.get_mut(&key).map(|v| v.get_mut()) {
            let exact = rfbench_registry::exact_map().name;
            // A copy of the exact cell on all rows, at half of them.
            let mut half_cell = tuples
                .iter()
                .find(|t| t.as_array().and_then(|a| a[0].as_str()) == Some(exact))
                .cloned();
            if let Some(Value::Array(fields)) = half_cell.as_mut() {
                fields[2] = Value::Integer(half as i64);
            }
            tuples.extend(half_cell);
        }
    }
    constants(&mut w.spec, setup, tuned, true, Some(true));
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::budget::total;
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
}
