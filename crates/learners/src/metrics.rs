//! Test-set metrics.
//!
//! - [`accuracy`]: fraction of predicted labels equal to the true ones, in `[0, 1]`.
//! - [`misclassification_percent`]: `100 (1 - accuracy)`, the "test error %" of the random
//!   features paper's tables.
//! - [`rmse`]: `sqrt(1/n sum_i (yhat_i - y_i)^2)`.
//! - [`normalized_rmse`]: `rmse / sd(y)` with `sd(y) = sqrt(1/n sum_i (y_i - mean(y))^2)` the
//!   population standard deviation of the true targets: scale-free, 0 for a perfect fit and 1 for
//!   predicting the targets' own mean, so values from datasets with different units compare.
//!
//! Every function rejects empty input, unequal lengths and non-finite values with a typed error.

use crate::error::{LearnerError, Result};

fn check_lengths(truth: usize, predicted: usize) -> Result<()> {
    if truth == 0 {
        return Err(LearnerError::EmptyData);
    }
    if truth != predicted {
        return Err(LearnerError::LengthMismatch {
            rows: predicted,
            labels: truth,
        });
    }
    Ok(())
}

fn check_finite(values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(LearnerError::NonFiniteTarget {
            row,
            output: 0,
            value: values[row],
        }),
        None => Ok(()),
    }
}

/// Fraction of `predicted[i] == truth[i]`.
pub fn accuracy(truth: &[i64], predicted: &[i64]) -> Result<f64> {
    check_lengths(truth.len(), predicted.len())?;
    let hits = truth.iter().zip(predicted).filter(|(a, b)| a == b).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// Percentage of wrong predictions, `100 (1 - accuracy)`.
pub fn misclassification_percent(truth: &[i64], predicted: &[i64]) -> Result<f64> {
    check_lengths(truth.len(), predicted.len())?;
    let misses = truth.iter().zip(predicted).filter(|(a, b)| a != b).count();
    Ok(100.0 * misses as f64 / truth.len() as f64)
}

/// Root mean squared error.
pub fn rmse(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check_lengths(truth.len(), predicted.len())?;
    check_finite(truth)?;
    check_finite(predicted)?;
    let sse: f64 = truth
        .iter()
        .zip(predicted)
        .map(|(a, b)| (a - b) * (a - b))
        .sum();
    Ok((sse / truth.len() as f64).sqrt())
}

/// RMSE divided by the population standard deviation of `truth`; an error (not infinity) when the
/// true targets are all equal.
pub fn normalized_rmse(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    let e = rmse(truth, predicted)?;
    let n = truth.len() as f64;
    let mean = truth.iter().sum::<f64>() / n;
    let sd = (truth.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
    if sd == 0.0 {
        return Err(LearnerError::ConstantTargets(mean));
    }
    Ok(e / sd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_values() {
        assert_eq!(accuracy(&[1, 2, 3, 4], &[1, 2, 0, 4]), Ok(0.75));
        assert_eq!(
            misclassification_percent(&[1, 2, 3, 4], &[1, 2, 0, 4]),
            Ok(25.0)
        );
        // Errors 1, -1, 3: mean square 11/3.
        let r = rmse(&[1.0, 2.0, 3.0], &[2.0, 1.0, 6.0]).unwrap();
        assert!((r - (11.0f64 / 3.0).sqrt()).abs() < 1e-15);
        // Population sd of [1, 2, 3] is sqrt(2/3).
        let nr = normalized_rmse(&[1.0, 2.0, 3.0], &[2.0, 1.0, 6.0]).unwrap();
        assert!((nr - (11.0f64 / 2.0).sqrt()).abs() < 1e-15);
        // Predicting the mean gives exactly 1.
        let nm = normalized_rmse(&[1.0, 2.0, 3.0], &[2.0, 2.0, 2.0]).unwrap();
        assert!((nm - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert_eq!(accuracy(&[], &[]), Err(LearnerError::EmptyData));
        assert_eq!(
            misclassification_percent(&[1, 2], &[1]),
            Err(LearnerError::LengthMismatch { rows: 1, labels: 2 })
        );
        assert!(matches!(
            rmse(&[1.0, f64::NAN], &[1.0, 2.0]),
            Err(LearnerError::NonFiniteTarget { row: 1, .. })
        ));
        assert_eq!(
            normalized_rmse(&[2.0, 2.0], &[1.0, 2.0]),
            Err(LearnerError::ConstantTargets(2.0))
        );
    }
}
