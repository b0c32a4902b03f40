//! The time budget: the pilot's measured cost of each map at two values of D on a subsample,
//! extrapolated to every cell of the sweep, and the cells kept while the estimate fits.
//!
//! The model, per map: seconds per repetition = t(D) x (training rows / pilot's training rows),
//! with t(D) the power law through the pilot's two points (exponent clamped to [0.5, 3]); the
//! exact kernel machine scales with the square of the rows (SMO's kernel evaluations), and runs
//! on a subsample of the training rows when all of them would not fit a quarter of the budget.
//! A rough model: the report prints each estimate beside the time measured.

use std::collections::BTreeMap;

use super::setup::Setup;
use crate::results::{CellValue, ResultRow};
use rfbench_registry::kinds::column;
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
}

impl Estimates {
    pub fn get(&self, map: &str, d: usize) -> Option<f64> {
        self.seconds.get(&(map.to_string(), d)).copied()
    }
}

/// Whether `map`'s components are training rows (Nystroem's landmarks): its D is capped by the
/// rows it is fitted on.
pub fn components_are_rows(map: &str) -> bool {
    rfbench_registry::map(map).is_some_and(|info| info.components_are_rows)
}

/// The most landmarks Nystroem may take from `train` training rows: a split's rounding per class
/// moves the count by a few rows, so a margin of 5 %.
pub fn landmarks(train: usize) -> usize {
    train - train / 20
}

/// The D the pilot measures besides the smallest: the smallest doubled while at most 1,024 and
/// at most the pilot's landmarks (Nystroem's are training rows); the smallest itself on tiny
/// data (then costs are taken as linear in D).
pub fn pilot_d(setup: &Setup, pilot_train: usize) -> usize {
    let cap = 1024.min(landmarks(pilot_train));
    let d0 = setup.ladder[0];
    std::iter::successors(Some(d0), |&d| Some(d * 2))
        .take_while(|&d| d <= cap)
        .last()
        .unwrap_or(d0)
}

/// The pilot's mean total seconds per (map, D).
fn measured(pilot: &[ResultRow]) -> BTreeMap<(String, usize), f64> {
    let mut sums: BTreeMap<(String, usize), (f64, usize)> = BTreeMap::new();
    for row in pilot {
        let parts = [
            column::MAP_SECONDS,
            column::TRAIN_SECONDS,
            column::PREDICT_SECONDS,
        ];
        let Some(total) = parts.iter().map(|p| row.metric(p)).sum::<Option<f64>>() else {
            continue;
        };
        let map = match row.coordinates.get("map") {
            Some(CellValue::Text(m)) => m.clone(),
            _ => continue,
        };
        let d = match row.coordinates.get(N_COMPONENTS.name) {
            Some(CellValue::Int(d)) => *d as usize,
            _ => 0,
        };
        let slot = sums.entry((map, d)).or_default();
        slot.0 += total;
        slot.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect()
}

/// Every cell's estimate from the pilot's rows, `scale` = full training rows over the pilot's.
pub fn estimate(setup: &Setup, pilot: &[ResultRow], pilot_d: usize, scale: f64) -> Estimates {
    let measured = measured(pilot);
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
        for &d in &setup.ladder {
            let t = t0 * (d as f64 / d0 as f64).powf(exponent);
            seconds.insert((map.to_string(), d), t * scale);
        }
    }
    let (raw, exact) = (raw_map().name.to_string(), exact_map().name.to_string());
    if let Some(&t) = measured.get(&(raw.clone(), 0)) {
        seconds.insert((raw, 0), t * scale);
    }
    if let Some(&t) = measured.get(&(exact.clone(), 0)) {
        seconds.insert((exact, 0), t * scale * scale);
    }
    Estimates { seconds }
}

/// The cells that fit `budget` seconds: the baseline, the exact machine (on all training rows
/// if that takes at most a quarter of the budget, else on the subsample that does), then the
/// rungs of the ladder in increasing D, every map's rung before the next one, while the total
/// fits. Nystroem stops at the training rows.
pub fn fit(setup: &Setup, estimates: &Estimates, budget: f64) -> Sweep {
    let reps = setup.repetitions as f64;
    let mut spent = estimates.get(raw_map().name, 0).unwrap_or(0.0) * reps;
    let mut sweep = Sweep::default();
    match estimates.get(exact_map().name, 0) {
        Some(t) if t * reps <= budget / 4.0 => {
            spent += t * reps;
            sweep.exact_train_size = Some(0);
        }
        Some(t) => {
            // Quadratic in the rows: m = n sqrt(share / t).
            let share = budget / 4.0 / reps;
            let m = (setup.n_train as f64 * (share / t).sqrt()) as usize;
            if m >= 200 {
                spent += budget / 4.0;
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
    sweep.per_map = setup.maps.iter().map(|m| (m.name, Vec::new())).collect();
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

/// The total estimate of a sweep, in seconds.
pub fn total(setup: &Setup, estimates: &Estimates, sweep: &Sweep) -> f64 {
    let reps = setup.repetitions as f64;
    let mut t = estimates.get(raw_map().name, 0).unwrap_or(0.0) * reps;
    let exact = estimates.get(exact_map().name, 0);
    if let (Some(size), Some(exact)) = (sweep.exact_train_size, exact) {
        let share = if size == 0 {
            1.0
        } else {
            (size as f64 / setup.n_train as f64).powi(2)
        };
        t += exact * share * reps;
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
