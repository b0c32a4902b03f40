//! The sweep's lines: one per (map, D, train_size), its score per repetition (accuracy in %, or
//! for regression minus the normalised RMSE in % of the targets' standard deviation, so that
//! "within 1 point" reads the same way), its time, memory and Gram error; and the Pareto front
//! of score against time.

use std::collections::BTreeMap;

use super::budget::Estimates;
use super::setup::Setup;
use crate::outputs::{Results, Stats};
use crate::results::{CellValue, ResultRow};
use crate::spec::Plan;
use rfbench_registry::kinds::{column, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{Features, Series};

/// One (series, D, train_size) of the sweep, over its repetitions.
#[derive(Debug, Clone)]
pub struct Line {
    /// The series: a map's name, or its variant's (`rff:phase`, [`super::series::series_name`]).
    pub map: String,
    /// 0 for the exact machine and the baseline.
    pub d: usize,
    /// 0: all training rows.
    pub train_size: usize,
    /// Score per repetition that ran.
    pub scores: BTreeMap<usize, f64>,
    /// Regression: the RMSE per repetition, in the targets' units.
    pub rmse: BTreeMap<usize, f64>,
    pub seconds: f64,
    pub estimate: Option<f64>,
    pub skipped: Option<String>,
    /// The Gram matrix's relative Frobenius error, mean over repetitions (maps only).
    pub gram: Option<f64>,
    /// The runner's memory estimate of the cell ([`crate::memory`]), in bytes.
    pub memory: Option<u128>,
    /// Repetitions whose learner stopped at its iteration cap (`converged` = 0).
    pub unconverged: usize,
}

impl Line {
    fn stats(&self) -> Option<Stats> {
        Stats::of(&self.scores.values().copied().collect::<Vec<_>>())
    }

    /// Mean score over the repetitions that ran (NaN when none did).
    pub fn mean(&self) -> f64 {
        self.stats().map_or(f64::NAN, |s| s.mean)
    }

    /// Sample standard deviation (NaN for fewer than two runs).
    pub fn sd(&self) -> f64 {
        self.stats().map_or(f64::NAN, |s| s.sd)
    }

    /// Its series in the registry (`None`: a name the registry does not know).
    pub fn registry_series(&self) -> Option<Series> {
        rfbench_registry::series::named(&self.map)
    }

    /// What its map entry makes of the inputs (a name the registry does not know is taken for
    /// a feature map).
    pub fn features(&self) -> Option<Features> {
        self.registry_series().map(|s| s.map.features)
    }

    pub fn is_map(&self) -> bool {
        !matches!(self.features(), Some(Features::Exact | Features::Raw))
    }

    /// The linear model on the raw inputs.
    pub fn is_baseline(&self) -> bool {
        matches!(self.features(), Some(Features::Raw))
    }

    /// The exact kernel machine on every training row.
    pub fn is_exact_reference(&self) -> bool {
        matches!(self.features(), Some(Features::Exact)) && self.train_size == 0
    }

    /// Its series in the legend: the map, or what the baseline and the exact machine are.
    pub fn series(&self) -> String {
        match self.features() {
            Some(Features::Raw) => "linear (raw inputs)".into(),
            Some(Features::Exact) => "exact kernel".into(),
            _ => self.map.clone(),
        }
    }

    /// Its mean score as a reader takes it: accuracy in %, or the RMSE in the targets' units
    /// beside its share of their standard deviation.
    pub fn shown(&self) -> String {
        if self.rmse.is_empty() {
            return format!("{:.2} %", self.mean());
        }
        format!(
            "RMSE {:.4} ({:.2} % of the targets' sd)",
            self.plotted(),
            -self.mean()
        )
    }

    /// What the Pareto figure plots: the mean accuracy, or the mean RMSE in the targets' units.
    pub fn plotted(&self) -> f64 {
        match self.rmse.is_empty() {
            true => self.mean(),
            false => self.rmse.values().sum::<f64>() / self.rmse.len() as f64,
        }
    }

    pub fn name(&self) -> String {
        match (self.features(), self.train_size) {
            (Some(Features::Exact), m) if m > 0 => format!("exact kernel ({m} training rows)"),
            _ if !self.is_map() => self.series(),
            (_, m) if m > 0 => format!("{}, D = {} ({m} training rows)", self.map, self.d),
            _ => format!("{}, D = {}", self.map, self.d),
        }
    }
}

fn int(row: &ResultRow, name: &str) -> usize {
    match row.coordinates.get(name) {
        Some(CellValue::Int(v)) => *v as usize,
        _ => 0,
    }
}

/// The learners' diagnostic: 0 when the solver stopped at its iteration cap.
const CONVERGED: &str = "converged";

/// `seconds` as a reader takes it: milliseconds below a tenth of a second, where two decimals of
/// a second would read 0.00.
pub fn time(seconds: f64) -> String {
    match seconds {
        s if s < 0.1 => format!("{:.1} ms", 1000.0 * s),
        s if s < 10.0 => format!("{s:.2} s"),
        s => format!("{s:.0} s"),
    }
}

/// The plan's estimate of one repetition of a cell: the estimates are of cells on all training
/// rows, so a cell on fewer (the exact machine's learning curve, a map on its rows) has none.
fn estimate(estimates: &Estimates, map: &str, d: usize, train_size: usize) -> Option<f64> {
    estimates.get(map, d).filter(|_| train_size == 0)
}

/// The sweep's lines, in the order of the results file.
pub fn lines(setup: &Setup, results: &Results, estimates: &Estimates) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for row in &results.rows {
        let Some(map) = super::series::series_name(row) else {
            continue;
        };
        let (d, train_size) = (int(row, N_COMPONENTS.name), int(row, TRAIN_SIZE.name));
        let k = match out
            .iter()
            .position(|l| l.map == map && l.d == d && l.train_size == train_size)
        {
            Some(k) => k,
            None => {
                out.push(Line {
                    estimate: estimate(estimates, &map, d, train_size),
                    map,
                    d,
                    train_size,
                    scores: BTreeMap::new(),
                    rmse: BTreeMap::new(),
                    seconds: 0.0,
                    skipped: None,
                    gram: None,
                    memory: None,
                    unconverged: 0,
                });
                out.len() - 1
            }
        };
        let line = &mut out[k];
        if let Some(reason) = row.not_run() {
            line.skipped = Some(reason);
            continue;
        }
        let score = if setup.classification() {
            row.metric(column::ACCURACY)
        } else {
            row.metric("normalized_rmse").map(|v| -100.0 * v)
        };
        let total = row.metric(super::specs::TOTAL_SECONDS);
        if let (Some(score), Some(total)) = (score, total) {
            let runs = line.scores.len() as f64;
            line.seconds = (line.seconds * runs + total) / (runs + 1.0);
            line.scores.insert(row.repetition, score);
            if let Some(rmse) = row.metric(column::RMSE) {
                line.rmse.insert(row.repetition, rmse);
            }
            if row.metric(CONVERGED) == Some(0.0) {
                line.unconverged += 1;
            }
        }
    }
    out
}

/// Fills each map line's Gram error from the `gram` run's results.
pub fn add_gram_errors(lines: &mut [Line], gram: &Results) {
    for line in lines.iter_mut().filter(|l| l.is_map()) {
        let values: Vec<f64> = gram
            .rows
            .iter()
            .filter(|r| super::series::series_name(r).as_deref() == Some(line.map.as_str()))
            .filter(|r| int(r, N_COMPONENTS.name) == line.d)
            .filter_map(|r| r.metric(column::RELATIVE_FROBENIUS))
            .collect();
        if !values.is_empty() {
            line.gram = Some(values.iter().sum::<f64>() / values.len() as f64);
        }
    }
}

/// Fills each line's memory from the runner's estimate of its cell on `rows` x `d` data.
pub fn add_memory(lines: &mut [Line], plan: &Plan, rows: usize, d: usize) {
    for cell in &plan.cells {
        let count = |name: &str| cell.get(name).and_then(|v| v.as_usize()).unwrap_or(0);
        let terms = crate::memory::estimate(cell, rows as u128, d as u128, "dataset");
        let bytes: u128 = terms.iter().map(|t| t.bytes).sum();
        let text = |param: &str| cell.map_params.get(param).and_then(|v| v.as_str());
        let series = Series::of(cell.map.name, text);
        let (map, n_components, train_size) = (
            series.map_or(cell.map.name, |s| s.name()),
            count(N_COMPONENTS.name),
            count(TRAIN_SIZE.name),
        );
        for line in lines.iter_mut() {
            if line.map == map && line.d == n_components && line.train_size == train_size {
                line.memory = Some(bytes);
            }
        }
    }
}

/// The lines no other line beats on both score and time.
pub fn pareto(lines: &[Line]) -> Vec<bool> {
    lines
        .iter()
        .map(|a| {
            !a.scores.is_empty()
                && !lines.iter().any(|b| {
                    !b.scores.is_empty()
                        && b.mean() >= a.mean()
                        && b.seconds <= a.seconds
                        && (b.mean() > a.mean() || b.seconds < a.seconds)
                })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A line of `map` at `d` with `scores` per repetition and `seconds` a run.
    pub(crate) fn line(map: &str, d: usize, scores: &[f64], seconds: f64) -> Line {
        Line {
            map: map.into(),
            d,
            train_size: 0,
            scores: scores.iter().copied().enumerate().collect(),
            rmse: BTreeMap::new(),
            seconds,
            estimate: None,
            skipped: None,
            gram: None,
            memory: None,
            unconverged: 0,
        }
    }

    /// The exact machine (90, 91, 89, 90 %; 50 s) and map-a at D = 64, 0.2 points below it in
    /// every repetition (1 s): the start of the decision tests' lines.
    pub(crate) fn exact_and_a_map() -> Vec<Line> {
        let exact = rfbench_registry::exact_map().name;
        vec![
            line(exact, 0, &[90.0, 91.0, 89.0, 90.0], 50.0),
            line("map-a", 64, &[89.8, 90.8, 88.8, 89.8], 1.0),
        ]
    }

    #[test]
    fn only_a_cell_on_all_training_rows_has_the_plans_estimate() {
        let exact = rfbench_registry::exact_map().name;
        let mut estimates = Estimates::default();
        estimates.seconds.insert((exact.to_string(), 0), 17_594.0);
        assert_eq!(estimate(&estimates, exact, 0, 0), Some(17_594.0));
        assert_eq!(estimate(&estimates, exact, 0, 24_000), None);
    }

    #[test]
    fn the_pareto_front_keeps_what_nothing_beats_on_score_and_time() {
        let raw = rfbench_registry::raw_map().name;
        let exact = rfbench_registry::exact_map().name;
        let lines = vec![
            line(raw, 0, &[80.0, 81.0, 79.0], 0.1),
            line(exact, 0, &[90.0, 90.5, 89.5], 50.0),
            line("map-a", 64, &[88.1, 88.5, 87.7], 1.0),
            line("map-a", 256, &[89.2, 89.7, 88.8], 3.0),
            line("map-b", 64, &[89.4, 89.5, 89.3], 2.0),
        ];
        assert_eq!(pareto(&lines), [true, true, true, false, true]);
    }
}
