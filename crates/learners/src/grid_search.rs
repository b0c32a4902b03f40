//! Choosing one regularisation value (ridge's lambda, the SVM's C) by cross-validation over a
//! geometric grid that extends itself while the best value sits at an edge.
//!
//! Why: a fixed grid silently returns its edge when the optimum lies beyond it, and an experiment
//! whose optimum lies outside the grid reports a worse method than it is (issue 16: ridge on a
//! standardised regression set with random features chose the top of 2^-15..2^1 in most fits).
//! So the search evaluates the grid, and while the best value is the largest (smallest) value
//! evaluated it evaluates one more value, the largest (smallest) times (divided by) the grid's
//! step at that edge, until the best value moves inside or the next value would pass the stated
//! limit. The result says which value was chosen and whether it is still at an edge of the range
//! searched; `at_edge == true` means the optimum may lie beyond the limit and the number reported
//! may understate the method.
//!
//! The step at an edge is the ratio of the two outermost positive grid values at that edge (2 for
//! the papers' `2^k` grids), or 2 when the grid has fewer than two distinct positive values. A
//! value of 0 (ridge without regularisation) has nothing below it, so choosing it is not "at an
//! edge" and the grid never extends below it.
//!
//! Ties in the score go to the more regularised value (larger lambda, smaller C): the simpler
//! model, as the papers' code does.

use crate::error::{LearnerError, Result};

/// The factor by which a grid extends itself when its step cannot be read from it.
const FALLBACK_STEP: f64 = 2.0;

/// The outcome of a search over a (possibly self-extended) grid.
#[derive(Debug, Clone, PartialEq)]
pub struct GridSearch {
    /// The value of best score (ties: the more regularised one).
    pub chosen: f64,
    /// Whether `chosen` is the smallest (positive) or largest value evaluated: the optimum may lie
    /// beyond the range searched, because extending further would pass the limit (or extension
    /// was off, or a value beyond could not be fitted).
    pub at_edge: bool,
    /// `(value, score)` for the grid in its given order, then the values the grid extended
    /// itself by, in the order evaluated. Scores are minimised (a mean squared error or an error
    /// rate).
    pub scores: Vec<(f64, f64)>,
}

/// Which direction is more regularised (the simpler model), for breaking ties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Simpler {
    /// Larger values regularise more (ridge's lambda, a Gaussian kernel's bandwidth).
    Larger,
    /// Smaller values regularise more (the SVM's C).
    Smaller,
}

/// Checks extension limits: `0 < lower <= upper < inf`.
pub(crate) fn check_limits(limits: Option<(f64, f64)>) -> Result<()> {
    if let Some((lower, upper)) = limits {
        if !(lower > 0.0 && lower <= upper && upper.is_finite()) {
            return Err(LearnerError::InvalidGridLimits { lower, upper });
        }
    }
    Ok(())
}

/// Evaluates `score` on `grid`, then extends the grid while the best value is at an edge and the
/// next value stays within `limits` (`None`: no extension). An error scoring a grid value is
/// returned; an error scoring an extension value ends the extension in that direction (e.g. a
/// system that is not positive definite at a tiny lambda) and leaves `at_edge` true.
pub(crate) fn search<F>(
    grid: &[f64],
    limits: Option<(f64, f64)>,
    simpler: Simpler,
    mut score: F,
) -> Result<GridSearch>
where
    F: FnMut(f64) -> Result<f64>,
{
    let mut scores = Vec::with_capacity(grid.len());
    for &value in grid {
        scores.push((value, score(value)?));
    }
    let (step_down, step_up) = edge_steps(grid);
    let (mut can_go_up, mut can_go_down) = (limits.is_some(), limits.is_some());
    let (lower, upper) = limits.unwrap_or((0.0, f64::INFINITY));
    loop {
        let chosen = best(&scores, simpler);
        let (smallest, largest) = range(&scores);
        let up = chosen == largest && can_go_up;
        let down = !up && chosen == smallest && smallest > 0.0 && can_go_down;
        if !(up || down) {
            return Ok(GridSearch {
                chosen,
                at_edge: chosen == largest || (chosen == smallest && smallest > 0.0),
                scores,
            });
        }
        let next = if up {
            largest * step_up
        } else {
            smallest / step_down
        };
        let within = if up { next <= upper } else { next >= lower };
        match within.then(|| score(next)) {
            Some(Ok(s)) => scores.push((next, s)),
            // Beyond the limit, or not fittable: this direction is done.
            _ if up => can_go_up = false,
            _ => can_go_down = false,
        }
    }
}

/// The value of smallest score; ties go to the more regularised value.
pub(crate) fn best(scores: &[(f64, f64)], simpler: Simpler) -> f64 {
    let mut best = scores[0];
    for &(value, score) in &scores[1..] {
        let simpler_tie = score == best.1
            && match simpler {
                Simpler::Larger => value > best.0,
                Simpler::Smaller => value < best.0,
            };
        if score < best.1 || simpler_tie {
            best = (value, score);
        }
    }
    best.0
}

fn range(scores: &[(f64, f64)]) -> (f64, f64) {
    scores
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(v, _)| {
            (lo.min(v), hi.max(v))
        })
}

/// (step below the grid, step above it): ratios of the two outermost distinct positive values.
fn edge_steps(grid: &[f64]) -> (f64, f64) {
    let mut positive: Vec<f64> = grid.iter().copied().filter(|&v| v > 0.0).collect();
    positive.sort_by(f64::total_cmp);
    positive.dedup();
    match positive.len() {
        0 | 1 => (FALLBACK_STEP, FALLBACK_STEP),
        n => (positive[1] / positive[0], positive[n - 1] / positive[n - 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A convex score in log2(value) with its minimum at `2^optimum`.
    fn bowl(optimum: f64) -> impl FnMut(f64) -> Result<f64> {
        move |v: f64| Ok((v.log2() - optimum).powi(2))
    }

    fn powers(range: std::ops::RangeInclusive<i32>) -> Vec<f64> {
        range.map(|k| 2f64.powi(k)).collect()
    }

    #[test]
    fn extends_upward_to_an_optimum_beyond_the_grid() {
        let found = search(
            &powers(-3..=3),
            Some((2f64.powi(-30), 2f64.powi(30))),
            Simpler::Larger,
            bowl(9.0),
        )
        .unwrap();
        assert_eq!(found.chosen, 2f64.powi(9));
        assert!(!found.at_edge);
        // The grid in its order, then 2^4..=2^10 (2^10 shows that 2^9 is the minimum).
        assert_eq!(found.scores.len(), 7 + 7);
        assert_eq!(found.scores[7].0, 16.0);
    }

    #[test]
    fn extends_downward_with_the_grids_own_step() {
        // Step 4 at the bottom edge (1/16 -> 1/4), so the grid goes 1/64, 1/256, ...
        let grid = [1.0 / 16.0, 0.25, 1.0, 2.0];
        let found = search(&grid, Some((1e-9, 1e9)), Simpler::Larger, bowl(-10.0)).unwrap();
        assert_eq!(found.chosen, 2f64.powi(-10));
        assert!(!found.at_edge);
        assert!(found.scores.iter().any(|&(v, _)| v == 2f64.powi(-12)));
    }

    #[test]
    fn reports_an_optimum_beyond_the_limit() {
        let found = search(
            &powers(-3..=3),
            Some((2f64.powi(-8), 2f64.powi(8))),
            Simpler::Larger,
            bowl(20.0),
        )
        .unwrap();
        assert_eq!(found.chosen, 2f64.powi(8));
        assert!(found.at_edge);
        let below = search(
            &powers(-3..=3),
            Some((2f64.powi(-8), 2f64.powi(8))),
            Simpler::Larger,
            bowl(-20.0),
        )
        .unwrap();
        assert_eq!(below.chosen, 2f64.powi(-8));
        assert!(below.at_edge);
        // Without extension the edge is reported as well.
        let fixed = search(&powers(-3..=3), None, Simpler::Larger, bowl(20.0)).unwrap();
        assert_eq!(
            (fixed.chosen, fixed.at_edge, fixed.scores.len()),
            (8.0, true, 7)
        );
    }

    #[test]
    fn interior_optimum_needs_no_extension_and_zero_is_no_edge() {
        let found = search(
            &powers(-3..=3),
            Some((1e-9, 1e9)),
            Simpler::Larger,
            bowl(1.0),
        )
        .unwrap();
        assert_eq!(
            (found.chosen, found.at_edge, found.scores.len()),
            (2.0, false, 7)
        );
        let with_zero = search(&[0.0, 1.0, 2.0], Some((1e-9, 1e9)), Simpler::Larger, |v| {
            Ok(v)
        })
        .unwrap();
        assert_eq!(
            (with_zero.chosen, with_zero.at_edge, with_zero.scores.len()),
            (0.0, false, 3)
        );
    }

    #[test]
    fn ties_go_to_the_more_regularised_value() {
        let flat = [(1.0, 0.5), (4.0, 0.5), (2.0, 0.5)];
        assert_eq!(best(&flat, Simpler::Larger), 4.0);
        assert_eq!(best(&flat, Simpler::Smaller), 1.0);
    }

    #[test]
    fn a_failing_extension_stops_that_direction() {
        let found = search(&[1.0, 2.0], Some((1e-9, 1e9)), Simpler::Larger, |v| {
            if v < 0.3 {
                Err(LearnerError::NotPositiveDefinite { lambda: v })
            } else {
                Ok(v)
            }
        })
        .unwrap();
        assert_eq!((found.chosen, found.at_edge), (0.5, true));
        assert_eq!(
            check_limits(Some((0.0, 1.0))),
            Err(LearnerError::InvalidGridLimits {
                lower: 0.0,
                upper: 1.0
            })
        );
        assert_eq!(
            check_limits(Some((2.0, 1.0))),
            Err(LearnerError::InvalidGridLimits {
                lower: 2.0,
                upper: 1.0
            })
        );
        assert_eq!(
            check_limits(Some((1.0, f64::INFINITY))),
            Err(LearnerError::InvalidGridLimits {
                lower: 1.0,
                upper: f64::INFINITY
            })
        );
        assert_eq!(check_limits(None), Ok(()));
    }
}
