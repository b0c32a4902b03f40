//! Which cell to use at each tolerance, decided with the noise in view.
//!
//! "Within t points of the reference" is a one-sided (non-inferiority) test on the paired
//! differences cell - reference over the repetitions, which share their split: the cell is
//! within when the lower [`ALPHA`] confidence bound of the mean difference is above -t, and
//! outside when the upper bound is below -t; otherwise the repetitions cannot tell, and the
//! cell is undecided (more repetitions, [`super::confirm`], may decide it). A mean alone is not
//! enough: splits move a score by more than the tolerances (on one regression set a 7-point
//! spread, where 3 repetitions put a map 0.45 below the exact machine and 30 put it 1.5 below).
//!
//! At each tolerance the pick is the cheapest cell (by mean time) shown within it, the
//! reference itself included, so that every tolerance has an answer: where no map is both
//! within and cheaper, the answer is the exact kernel machine.

use super::lines::Line;
use crate::stats::{self, Bounds};

/// Tolerances of the recommendation, in points.
pub const TOLERANCES: [f64; 3] = [0.5, 1.0, 2.0];

/// Each one-sided bound is at level 1 - ALPHA (a 90 % two-sided interval).
pub const ALPHA: f64 = 0.05;

/// A cell against the reference at one tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Within,
    Undecided,
    Outside,
}

/// The verdict, and the bounds of the mean difference cell - reference it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub verdict: Verdict,
    /// `None` for the reference itself and for fewer than two paired repetitions.
    pub bounds: Option<Bounds>,
    /// Repetitions paired.
    pub runs: usize,
}

/// The differences `line - reference` per repetition both ran; a reference that ran once (the
/// exact machine on a fixed test file, which draws nothing at random) is the same in every one.
fn differences(line: &Line, reference: &Line) -> Vec<f64> {
    if let (1, Some(&fixed)) = (reference.scores.len(), reference.scores.values().next()) {
        return line.scores.values().map(|x| x - fixed).collect();
    }
    line.scores
        .iter()
        .filter_map(|(r, x)| reference.scores.get(r).map(|y| x - y))
        .collect()
}

/// `lines[k]` against `lines[reference]` at `tolerance` points.
pub fn decide(lines: &[Line], k: usize, reference: usize, tolerance: f64) -> Decision {
    if k == reference {
        let runs = lines[k].scores.len();
        return Decision {
            verdict: Verdict::Within,
            bounds: None,
            runs,
        };
    }
    let diffs = differences(&lines[k], &lines[reference]);
    let bounds = match (
        lines[k].scores.len(),
        lines[reference].scores.len(),
        &diffs[..],
    ) {
        // Both ran once (the baseline and the exact machine on a fixed test file: neither
        // draws anything at random): their difference is exact.
        (1, 1, &[d]) => Some(stats::Bounds {
            mean: d,
            lower: d,
            upper: d,
        }),
        _ => stats::bounds(&diffs, ALPHA),
    };
    let verdict = match bounds {
        Some(b) if b.lower > -tolerance => Verdict::Within,
        Some(b) if b.upper < -tolerance => Verdict::Outside,
        _ => Verdict::Undecided,
    };
    Decision {
        verdict,
        bounds,
        runs: diffs.len(),
    }
}

/// The reference line: the exact machine's on all training rows, else the best line's (by mean).
pub fn reference(lines: &[Line]) -> Option<usize> {
    let ran = |k: &usize| !lines[*k].scores.is_empty();
    if let Some(k) = (0..lines.len())
        .filter(ran)
        .find(|&k| lines[k].is_exact_reference())
    {
        return Some(k);
    }
    (0..lines.len())
        .filter(ran)
        .max_by(|&a, &b| lines[a].mean().total_cmp(&lines[b].mean()))
}

/// What the reference is, in words.
pub fn reference_name(lines: &[Line], reference: usize) -> String {
    match lines[reference].is_exact_reference() {
        true => "the exact kernel machine".into(),
        false => format!("the best cell ({})", lines[reference].name()),
    }
}

/// One tolerance's answer.
#[derive(Debug, Clone)]
pub struct Recommendation {
    pub tolerance: f64,
    /// The cheapest line shown within the tolerance (the reference when nothing cheaper is).
    pub pick: usize,
    /// Each other map's cheapest line shown within it.
    pub alike: Vec<usize>,
    /// Lines cheaper than the pick whose mean is within the tolerance but whose repetitions
    /// cannot decide it (each map's cheapest): what more repetitions could change.
    pub undecided: Vec<usize>,
}

/// The cheapest line per map among `ks` (in `ks`' order of first appearance).
fn cheapest_per_map(lines: &[Line], ks: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for k in ks {
        match out.iter().position(|&j| lines[j].map == lines[k].map) {
            Some(j) if lines[k].seconds < lines[out[j]].seconds => out[j] = k,
            Some(_) => {}
            None => out.push(k),
        }
    }
    out
}

pub fn recommend(lines: &[Line], reference: usize) -> Vec<Recommendation> {
    let ran: Vec<usize> = (0..lines.len())
        .filter(|&k| !lines[k].scores.is_empty())
        .collect();
    let target = lines[reference].mean();
    TOLERANCES
        .iter()
        .map(|&tolerance| {
            let verdict = |k: usize| decide(lines, k, reference, tolerance).verdict;
            let within: Vec<usize> = ran
                .iter()
                .copied()
                .filter(|&k| verdict(k) == Verdict::Within)
                .collect();
            let pick = within
                .iter()
                .copied()
                .min_by(|&a, &b| lines[a].seconds.total_cmp(&lines[b].seconds))
                .unwrap_or(reference);
            let others = within
                .iter()
                .copied()
                .filter(|&k| lines[k].is_map() && lines[k].map != lines[pick].map);
            let cheaper = ran.iter().copied().filter(|&k| {
                lines[k].seconds < lines[pick].seconds
                    && verdict(k) == Verdict::Undecided
                    && lines[k].mean() >= target - tolerance
            });
            Recommendation {
                tolerance,
                pick,
                alike: cheapest_per_map(lines, others),
                undecided: cheapest_per_map(lines, cheaper),
            }
        })
        .collect()
}

/// The lines more repetitions could decide: for each tolerance, the cheapest undecided line
/// cheaper than its pick that can run beside the reference; each once. A spec holds the exact
/// machine at one size, so where the reference is the exact machine, its other sizes (its
/// learning curve's) cannot be confirmed with it and are left undecided.
pub fn to_confirm(lines: &[Line]) -> Vec<usize> {
    let Some(reference) = reference(lines) else {
        return Vec::new();
    };
    let exact = |l: &Line| !l.is_map() && !l.is_baseline();
    let beside = |k: usize| {
        !(exact(&lines[k])
            && exact(&lines[reference])
            && lines[k].train_size != lines[reference].train_size)
    };
    let mut out: Vec<usize> = Vec::new();
    for r in recommend(lines, reference) {
        let cheapest = r
            .undecided
            .iter()
            .copied()
            .filter(|&k| beside(k))
            .min_by(|&a, &b| lines[a].seconds.total_cmp(&lines[b].seconds));
        if let Some(k) = cheapest.filter(|k| !out.contains(k)) {
            out.push(k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::line;

    fn exact(scores: &[f64], seconds: f64) -> Line {
        line(rfbench_registry::exact_map().name, 0, scores, seconds)
    }

    /// The exact machine on a subsample, undecided and cheapest, cannot share the reference's
    /// spec: the next cheapest undecided cell is confirmed instead.
    #[test]
    fn another_size_of_the_exact_machine_gives_way_to_the_next_cheapest() {
        let mut smaller = exact(&[89.0, 91.5, 88.0, 90.5], 0.5);
        smaller.train_size = 1000;
        let lines = vec![
            exact(&[90.0, 91.0, 89.0, 90.0], 50.0),
            smaller,
            line("map-b", 64, &[88.7, 91.7, 88.5, 90.7], 2.0),
        ];
        let undecided = |k| decide(&lines, k, 0, 0.5).verdict == Verdict::Undecided;
        assert!(undecided(1) && undecided(2));
        assert_eq!(to_confirm(&lines), [2]);
    }

    #[test]
    fn within_needs_the_lower_bound_above_minus_the_tolerance() {
        let lines = vec![
            exact(&[90.0, 91.0, 89.0, 90.0], 50.0),
            // 0.2 below in every split: within 0.5.
            line("map-a", 64, &[89.8, 90.8, 88.8, 89.8], 1.0),
            // 0.1 below on average, but the differences spread from -1.3 to +0.7: undecided.
            line("map-b", 64, &[88.7, 91.7, 88.5, 90.7], 2.0),
            // 3 below in every split: outside 2 points.
            line("map-c", 64, &[87.0, 88.0, 86.0, 87.0], 0.5),
        ];
        let at = |k, t| decide(&lines, k, 0, t).verdict;
        assert_eq!(at(1, 0.5), Verdict::Within);
        assert_eq!(at(2, 0.5), Verdict::Undecided);
        assert_eq!(at(3, 2.0), Verdict::Outside);
        assert_eq!(
            at(0, 0.5),
            Verdict::Within,
            "the reference is within itself"
        );
        let r = recommend(&lines, 0);
        // 0.5: map-a is the cheapest within; map-b is undecided but dearer: not listed.
        assert_eq!((r[0].pick, r[0].undecided.clone()), (1, vec![]));
        // By its mean alone map-b (-0.1) would be within 0.5 points too.
        assert!(lines[2].mean() >= lines[0].mean() - 0.5);
    }

    #[test]
    fn the_exact_machine_answers_when_no_cheaper_map_is_within() {
        let lines = vec![
            exact(&[96.9, 97.0, 96.8], 3.7),
            line("map-a", 1024, &[95.0, 95.2, 94.9], 9.0),
            line("map-b", 64, &[95.0, 98.5, 95.9], 1.0),
        ];
        let r = recommend(&lines, 0);
        assert!(r.iter().all(|r| r.pick == 0), "{r:?}");
        // map-b is cheaper, its mean within 0.5, its repetitions undecided: confirm it.
        assert_eq!(r[0].undecided, [2]);
        assert_eq!(to_confirm(&lines), [2]);
    }

    #[test]
    fn a_reference_that_ran_once_is_the_same_in_every_repetition() {
        // With a fixed test file the exact machine runs once; the map's seeds still vary.
        let lines = vec![
            exact(&[90.0], 10.0),
            line("map-a", 64, &[89.9, 89.8, 89.9, 89.8], 1.0),
        ];
        let d = decide(&lines, 1, 0, 0.5);
        assert_eq!((d.verdict, d.runs), (Verdict::Within, 4));
    }

    /// The baseline and the exact machine both ran once (a fixed test file): their difference
    /// is exact, and decides at every tolerance.
    #[test]
    fn two_cells_that_ran_once_differ_exactly() {
        let lines = vec![exact(&[90.0], 10.0), line("none", 0, &[89.2], 1.0)];
        let d = decide(&lines, 1, 0, 1.0);
        assert_eq!((d.verdict, d.runs), (Verdict::Within, 1));
        assert_eq!(
            d.bounds.map(|b| (b.lower, b.upper)),
            Some((-0.7999999999999972, -0.7999999999999972))
        );
        assert_eq!(decide(&lines, 1, 0, 0.5).verdict, Verdict::Outside);
        // One run against several: no bound.
        let lines = vec![exact(&[90.0, 90.1], 10.0), line("none", 0, &[89.2], 1.0)];
        assert_eq!(decide(&lines, 1, 0, 1.0).verdict, Verdict::Undecided);
    }

    #[test]
    fn without_the_exact_machine_the_best_cell_is_the_reference() {
        let lines = vec![
            line("map-a", 64, &[80.0, 81.0], 1.0),
            line("map-a", 128, &[85.0, 86.0], 2.0),
        ];
        assert_eq!(reference(&lines), Some(1));
        assert_eq!(reference_name(&lines, 1), "the best cell (map-a, D = 128)");
    }
}
