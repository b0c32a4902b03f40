//! The answer: per (map, D) the score's mean and spread over repetitions and the total time
//! (map + train + predict) beside its estimate, the Pareto front of score against time, and for
//! each tolerance the cheapest (map, D) within it of the exact kernel machine (or of the best
//! cell, when the exact one did not run on all training rows), with the cells a paired t test
//! cannot tell apart from it.
//!
//! Scores are "higher is better" points: accuracy in %, or for regression minus the normalised
//! RMSE in % of the targets' standard deviation, so that "within 1 point" reads the same way.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::budget::Estimates;
use super::setup::Setup;
use crate::outputs::{Results, Stats};
use crate::results::{CellValue, ResultRow};
use crate::spec::Plan;
use rfbench_registry::kinds::{column, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::Features;

/// Tolerances of the recommendation, in points.
pub const TOLERANCES: [f64; 3] = [0.5, 1.0, 2.0];

/// Two cells differ when a paired two-sided t test over repetitions rejects at this level.
pub const ALPHA: f64 = 0.05;

/// The name of the Pareto figure among the sweep's figures (drawn by [`super::pareto`]).
pub const PARETO: &str = "pareto";

/// One (map, D, train_size) of the sweep, over its repetitions.
#[derive(Debug, Clone)]
pub struct Line {
    pub map: String,
    /// 0 for the exact machine and the baseline.
    pub d: usize,
    /// 0: all training rows.
    pub train_size: usize,
    /// Score per repetition that ran.
    pub scores: BTreeMap<usize, f64>,
    pub seconds: f64,
    pub estimate: Option<f64>,
    pub skipped: Option<String>,
    /// The Gram matrix's relative Frobenius error, mean over repetitions (maps only).
    pub gram: Option<f64>,
    /// The runner's memory estimate of the cell ([`crate::memory`]), in bytes.
    pub memory: Option<u128>,
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

    /// What its map entry makes of the inputs (a name the registry does not know is taken for
    /// a feature map).
    fn features(&self) -> Option<Features> {
        rfbench_registry::map(&self.map).map(|m| m.features)
    }

    fn is_map(&self) -> bool {
        !matches!(self.features(), Some(Features::Exact | Features::Raw))
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

    pub fn name(&self) -> String {
        match (self.features(), self.train_size) {
            (Some(Features::Exact), m) if m > 0 => format!("exact kernel ({m} training rows)"),
            _ if !self.is_map() => self.series(),
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

/// The sweep's lines, in the order of the results file.
pub fn lines(setup: &Setup, results: &Results, estimates: &Estimates) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for row in &results.rows {
        let map = match row.coordinates.get("map") {
            Some(CellValue::Text(m)) => m.clone(),
            _ => continue,
        };
        let (d, train_size) = (int(row, N_COMPONENTS.name), int(row, TRAIN_SIZE.name));
        let k = match out
            .iter()
            .position(|l| l.map == map && l.d == d && l.train_size == train_size)
        {
            Some(k) => k,
            None => {
                out.push(Line {
                    estimate: estimates.get(&map, d),
                    map,
                    d,
                    train_size,
                    scores: BTreeMap::new(),
                    seconds: 0.0,
                    skipped: None,
                    gram: None,
                    memory: None,
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
            .filter(|r| r.coordinates.get("map") == Some(&CellValue::Text(line.map.clone())))
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
        let (map, n_components, train_size) = (
            cell.map.name,
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

/// The two-sided p value of a paired t test between two lines over their common repetitions
/// (1 when they share fewer than two, or every difference is equal).
pub fn paired_p(a: &Line, b: &Line) -> f64 {
    let diffs: Vec<f64> = a
        .scores
        .iter()
        .filter_map(|(r, x)| b.scores.get(r).map(|y| x - y))
        .collect();
    crate::stats::paired(&diffs).map_or(1.0, |t| t.p)
}

/// One tolerance's answer.
#[derive(Debug, Clone)]
pub struct Recommendation {
    pub tolerance: f64,
    /// Index into the lines.
    pub pick: Option<usize>,
    /// For each other map, its cheapest line within the tolerance that the t test cannot tell
    /// from the pick.
    pub alike: Vec<usize>,
}

/// The reference score: the exact machine's on all training rows, else the best line's.
pub fn reference(lines: &[Line]) -> Option<(f64, String)> {
    let ran = |l: &&Line| !l.scores.is_empty();
    if let Some(exact) = lines.iter().filter(ran).find(|l| l.is_exact_reference()) {
        return Some((exact.mean(), "the exact kernel machine".into()));
    }
    lines
        .iter()
        .filter(ran)
        .map(|l| (l.mean(), format!("the best cell ({})", l.name())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

pub fn recommend(lines: &[Line], reference: f64) -> Vec<Recommendation> {
    TOLERANCES
        .iter()
        .map(|&tolerance| {
            let within: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].is_map() && !lines[k].scores.is_empty())
                .filter(|&k| lines[k].mean() >= reference - tolerance)
                .collect();
            let pick = within
                .iter()
                .copied()
                .min_by(|&a, &b| lines[a].seconds.total_cmp(&lines[b].seconds));
            let alike = pick.map_or_else(Vec::new, |p| {
                let mut alike: Vec<usize> = Vec::new();
                for k in within.iter().copied() {
                    let same_map = |a: &usize| lines[*a].map == lines[k].map;
                    if lines[k].map == lines[p].map || paired_p(&lines[k], &lines[p]) < ALPHA {
                        continue;
                    }
                    match alike.iter().position(same_map) {
                        Some(j) if lines[k].seconds < lines[alike[j]].seconds => alike[j] = k,
                        Some(_) => {}
                        None => alike.push(k),
                    }
                }
                alike
            });
            Recommendation {
                tolerance,
                pick,
                alike,
            }
        })
        .collect()
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

/// The report, in Markdown.
pub fn markdown(setup: &Setup, lines: &[Line], plan_note: &str, skipped: &[String]) -> String {
    let mut out = String::from("# Which map, at what D: rfbench compare\n\n");
    let score = if setup.classification() {
        "accuracy (%)"
    } else {
        "-normalised RMSE (% of the targets' sd)"
    };
    let _ = writeln!(out, "## Recommendation\n");
    match reference(lines) {
        None => out.push_str("No cell ran: nothing to recommend.\n"),
        Some((reference, what)) => {
            recommendation(&mut out, lines, reference, &what);
            per_map(&mut out, lines, reference);
            at_equal_d(&mut out, lines);
        }
    }
    let sweep = super::specs::files(Path::new(""), "compare");
    let _ = writeln!(
        out,
        "\n![score against time, the Pareto front]({})\n\n![score against D]({})\n\n\
         ![time against D]({})",
        sweep.figure(Some(PARETO)).display(),
        sweep.figure(Some(super::specs::SCORE_FIGURE)).display(),
        sweep.figure(Some(super::specs::TIME_FIGURE)).display()
    );
    let _ = writeln!(out, "\n## Every cell\n");
    let _ = writeln!(
        out,
        "Score: {score}, mean ± sd over repetitions; time: map + train + predict, mean \
         seconds; memory: the runner's estimate of the cell's peak (measured within 2x of the peak \
         resident set on Adult); Gram error: |K - Z Z'|_F / |K|_F on (at most) {} training \
         rows (- : not measured: Nystroem with more landmarks than those rows is left out of \
         gram.toml, a failed cell is in {} with its error); * on the Pareto front of score against time.\n",
        super::specs::GRAM_ROWS,
        super::specs::files(Path::new(""), "gram").csv().display()
    );
    out.push_str(
        "| cell | score | runs | time (s) | estimate (s) | memory (MB) | Gram error | front |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    let front = pareto(lines);
    for (line, front) in lines.iter().zip(front) {
        let (score, runs) = if line.scores.is_empty() {
            (
                format!("not run: {}", line.skipped.as_deref().unwrap_or("-")),
                0,
            )
        } else {
            let score = match line.scores.len() {
                1 => format!("{:.2}", line.mean()),
                _ => format!("{:.2} ± {:.2}", line.mean(), line.sd()),
            };
            (score, line.scores.len())
        };
        let estimate = line.estimate.map_or("-".into(), |e| format!("{e:.2}"));
        let gram = line.gram.map_or("-".into(), |g| format!("{g:.4}"));
        let memory = line
            .memory
            .map_or("-".into(), |b| format!("{:.0}", b as f64 / 1e6));
        let _ = writeln!(
            out,
            "| {} | {score} | {runs} | {:.2} | {estimate} | {memory} | {gram} | {} |",
            line.name(),
            line.seconds,
            if front { "*" } else { "" }
        );
    }
    let _ = writeln!(out, "\n## How it was run\n\n{plan_note}\n");
    for line in setup.decisions() {
        let _ = writeln!(out, "- {line}");
    }
    if !skipped.is_empty() {
        let _ = writeln!(
            out,
            "\nLeft out by the budget, by the data or as plateaued:\n"
        );
        for s in skipped {
            let _ = writeln!(out, "- {s}");
        }
    }
    out
}

/// Each map's cheapest D within each tolerance: how the maps rank at equal accuracy.
fn per_map(out: &mut String, lines: &[Line], reference: f64) {
    let mut maps: Vec<&str> = Vec::new();
    for l in lines.iter().filter(|l| l.is_map()) {
        if !maps.contains(&l.map.as_str()) {
            maps.push(&l.map);
        }
    }
    let _ = writeln!(
        out,
        "\nEach map's smallest D within the tolerance (its mean score; - : none of its D):\n"
    );
    let header: Vec<String> = TOLERANCES.iter().map(|t| format!("within {t}")).collect();
    let _ = writeln!(out, "| map | {} |\n|---|---|---|---|", header.join(" | "));
    for map in maps {
        let cells: Vec<String> = TOLERANCES
            .iter()
            .map(|&t| {
                lines
                    .iter()
                    .filter(|l| l.map == map && !l.scores.is_empty())
                    .filter(|l| l.mean() >= reference - t)
                    .min_by_key(|l| l.d)
                    .map_or("-".to_string(), |l| format!("{} ({:.2})", l.d, l.mean()))
            })
            .collect();
        let _ = writeln!(out, "| {map} | {} |", cells.join(" | "));
    }
}

/// At each D, the maps from the highest mean score down (`>` where a paired t test separates a
/// map from the next one, `~` where it does not).
fn at_equal_d(out: &mut String, lines: &[Line]) {
    let mut ds: Vec<usize> = lines.iter().filter(|l| l.is_map()).map(|l| l.d).collect();
    ds.sort_unstable();
    ds.dedup();
    let _ = writeln!(
        out,
        "\nAt equal D, the maps by mean score (`>`: a paired t test at level {ALPHA} separates \
         the two, `~`: it does not):\n"
    );
    for d in ds {
        let mut ranked: Vec<&Line> = lines
            .iter()
            .filter(|l| l.is_map() && l.d == d && !l.scores.is_empty())
            .collect();
        ranked.sort_by(|a, b| b.mean().total_cmp(&a.mean()));
        let mut text = String::new();
        for (k, line) in ranked.iter().enumerate() {
            if k > 0 {
                let separated = paired_p(ranked[k - 1], line) < ALPHA;
                text.push_str(if separated { " > " } else { " ~ " });
            }
            let _ = write!(text, "{} {:.2}", line.map, line.mean());
        }
        let _ = writeln!(out, "- D = {d}: {text}");
    }
}

fn recommendation(out: &mut String, lines: &[Line], reference: f64, what: &str) {
    let _ = writeln!(
        out,
        "Reference: {what}, {reference:.2}. The cheapest (map, D) whose mean score is within \
         the tolerance of it, and the cells within it that a paired t test over the \
         repetitions (level {ALPHA}) cannot tell apart from it:\n"
    );
    let exact = lines
        .iter()
        .find(|l| l.is_exact_reference() && !l.scores.is_empty());
    let linear = lines
        .iter()
        .find(|l| matches!(l.features(), Some(Features::Raw)) && !l.scores.is_empty());
    for r in recommend(lines, reference) {
        // The linear model answers when it is within the tolerance and no map is cheaper.
        let linear = linear.filter(|l| {
            l.mean() >= reference - r.tolerance
                && r.pick.is_none_or(|p| l.seconds <= lines[p].seconds)
        });
        if let Some(linear) = linear {
            let _ = writeln!(
                out,
                "- within {} points: the linear model on the raw inputs ({:.2}, {:.2} s): on \
                 this data no kernel is needed",
                r.tolerance,
                linear.mean(),
                linear.seconds
            );
            continue;
        }
        let Some(p) = r.pick else {
            let _ = writeln!(
                out,
                "- within {} points: no map reached it at the D the budget allowed",
                r.tolerance
            );
            continue;
        };
        if let Some(exact) = exact.filter(|e| e.seconds <= lines[p].seconds) {
            let _ = writeln!(
                out,
                "- within {} points: the exact kernel machine itself ({:.2} s) is as cheap as \
                 any map here; the cheapest map is {}",
                r.tolerance,
                exact.seconds,
                lines[p].name()
            );
            continue;
        }
        let pick = &lines[p];
        let alike: Vec<String> = r.alike.iter().map(|&k| lines[k].name()).collect();
        let _ = writeln!(
            out,
            "- within {} points: **{}**, {:.2} ± {:.2}, {:.2} s{}",
            r.tolerance,
            pick.name(),
            pick.mean(),
            pick.sd(),
            pick.seconds,
            if alike.is_empty() {
                String::new()
            } else {
                format!(
                    "; as good by the t test (each map's cheapest): {}",
                    alike.join("; ")
                )
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(map: &str, d: usize, scores: &[f64], seconds: f64) -> Line {
        Line {
            map: map.into(),
            d,
            train_size: 0,
            scores: scores.iter().copied().enumerate().collect(),
            seconds,
            estimate: None,
            skipped: None,
            gram: None,
            memory: None,
        }
    }

    #[test]
    fn the_cheapest_cell_within_each_tolerance_of_the_exact_machine() {
        let lines = vec![
            line(
                rfbench_registry::raw_map().name,
                0,
                &[80.0, 81.0, 79.0],
                0.1,
            ),
            line(
                rfbench_registry::exact_map().name,
                0,
                &[90.0, 90.5, 89.5],
                50.0,
            ),
            line("map-a", 64, &[88.1, 88.5, 87.7], 1.0),
            line("map-a", 256, &[89.2, 89.7, 88.8], 3.0),
            line("map-b", 64, &[89.4, 89.5, 89.3], 2.0),
        ];
        let (reference, what) = reference(&lines).unwrap();
        assert_eq!(
            (reference, what.as_str()),
            (90.0, "the exact kernel machine")
        );
        let r = recommend(&lines, reference);
        // 0.5 points: neither map-a 256 (89.23) nor map-b 64 (89.4) reaches 89.5.
        assert_eq!(r[0].pick, None);
        // 1 point: map-a 256 (3 s) and map-b 64 (2 s): map-b is cheaper.
        assert_eq!(r[1].pick, Some(4));
        assert_eq!(
            r[1].alike,
            [3],
            "map-a 256 cannot be told apart in 3 repetitions"
        );
        // 2 points: the pick is map-a 64; the other lines of its own map are not listed.
        assert!(
            r[2].alike.iter().all(|&k| lines[k].map != "map-a"),
            "{:?}",
            r[2].alike
        );
        // 2 points: map-a 64 (88.1) is the cheapest.
        assert_eq!(r[2].pick, Some(2));
        assert_eq!(pareto(&lines), [true, true, true, false, true]);
    }

    #[test]
    fn a_paired_test_sees_a_consistent_difference_that_an_unpaired_one_would_not() {
        let a = line("map-a", 64, &[80.0, 85.0, 90.0, 95.0], 1.0);
        let b = line("map-a", 128, &[80.5, 85.6, 90.4, 95.5], 1.0);
        assert!(paired_p(&a, &b) < 0.01, "{}", paired_p(&a, &b));
        let c = line("map-a", 256, &[81.0, 84.0, 91.0, 94.0], 1.0);
        assert!(paired_p(&a, &c) > 0.5, "{}", paired_p(&a, &c));
        assert_eq!(paired_p(&a, &a), 1.0);
    }
}
