//! What every learner's `predict` shares, written once: the check of the rows it is given, and the
//! one-vs-rest rule that turns decision values into class labels ([`crate::LinearSvm`],
//! [`crate::LogisticRegression`], [`crate::RidgeClassifier`] and the full-matrix kernel SVM).

use ndarray::Array2;
use rfbench_maps::{MapError, Rows};

use crate::error::{LearnerError, Result};

/// Input with `got` columns for a model fitted on `expected`.
pub(crate) fn check_columns(expected: usize, got: usize) -> Result<()> {
    if got != expected {
        return Err(LearnerError::DimensionMismatch { expected, got });
    }
    Ok(())
}

/// Rows to predict: `expected` columns, every value finite.
pub(crate) fn check_input(x: &Rows<'_>, expected: usize) -> Result<()> {
    check_columns(expected, x.n_cols())?;
    check_finite(x)
}

/// Every value finite (training or test rows), as the learners' own error.
pub(crate) fn check_finite(x: &Rows<'_>) -> Result<()> {
    x.check_finite().map_err(|e| match e {
        MapError::NonFinite { row, col, value } => LearnerError::NonFinite { row, col, value },
        other => LearnerError::Input(other),
    })
}

/// One-vs-rest labels from `n x models` decision values over the sorted `classes`: with one
/// model (two classes) the larger class where the value is `> 0`, else the smaller; with one
/// model per class, the class of the largest value (the first on ties).
pub(crate) fn one_vs_rest_labels(classes: &[i64], decisions: &Array2<f64>) -> Vec<i64> {
    decisions
        .rows()
        .into_iter()
        .map(|r| {
            if r.len() == 1 {
                return classes[usize::from(r[0] > 0.0)];
            }
            let mut best = 0;
            for k in 1..r.len() {
                if r[k] > r[best] {
                    best = k;
                }
            }
            classes[best]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn one_vs_rest_takes_the_sign_for_one_model_and_the_first_maximum_otherwise() {
        let binary = array![[0.5], [0.0], [-2.0]];
        assert_eq!(one_vs_rest_labels(&[-1, 1], &binary), vec![1, -1, -1]);
        let three = array![[1.0, 3.0, 2.0], [5.0, 5.0, -1.0], [-3.0, -2.0, -1.0]];
        assert_eq!(one_vs_rest_labels(&[4, 7, 9], &three), vec![7, 4, 9]);
        // Two classes with one output each (the ridge classifier): the larger output.
        let two = array![[0.2, -0.2], [-1.0, 1.0]];
        assert_eq!(one_vs_rest_labels(&[0, 1], &two), vec![0, 1]);
    }
}
