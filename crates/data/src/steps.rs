//! Preprocessing steps applied to a loaded dataset, in the order listed. The steps themselves
//! (their names, parameters and TOML form, which specs, dataset entries and the kernels' entries
//! write) are the registry's vocabulary, [`Step`] in `rfbench-registry-data`, re-exported as
//! `rfbench_data::Step`; what each does to the rows is here.
//!
//! Why these rules:
//! - Column statistics (standardize, min-max) come from the training rows only and are applied
//!   unchanged to the test rows, so nothing about the test set leaks into training.
//! - `split` draws with the cell's `data_seed` so that a spec can give every repetition its own
//!   split (`[seeds] data_seed = ["dataset", "repetition"]`): one train/test split moves a verdict
//!   by points on small data.

use rfbench_maps::CsrMatrix;
use rfbench_registry_data::steps::Step;

use super::error::{DataError, Result};
use super::preprocess::{max_row_norm, split_rows, subsample_indices, unit_norm, ColumnScaler};
use super::Dataset;

/// Applies `step` to `data` in place; `data_seed` draws a `split`.
fn apply(step: &Step, data: &mut Prepared, data_seed: u64) -> Result<()> {
    match *step {
        Step::UnitNorm => unit_norm(&mut data.x),
        Step::Standardize => {
            let scaler = ColumnScaler::standardize(&data.x, 0..data.n_train)?;
            data.x = dense_to_csr(scaler.transform(&data.x)?, "standardize")?;
        }
        Step::MinMax { lower, upper } => {
            let scaler = ColumnScaler::min_max(&data.x, 0..data.n_train, lower..=upper)?;
            data.x = dense_to_csr(scaler.transform(&data.x)?, "min-max")?;
        }
        Step::MaxRowNorm => max_row_norm(&mut data.x, data.n_train)?,
        Step::Subsample { n, seed } => {
            let keep = subsample_indices(data.x.n_rows(), n, seed)?;
            data.x = data.x.select_rows(&keep);
            data.y = keep.iter().map(|&i| data.y[i]).collect();
            data.n_train = keep.iter().filter(|&&i| i < data.n_train).count();
        }
        Step::Split {
            test_fraction,
            stratify,
        } => {
            let (train, test) = split_rows(&data.y, test_fraction, stratify, data_seed)?;
            let order: Vec<usize> = train.iter().chain(&test).copied().collect();
            data.x = data.x.select_rows(&order);
            data.y = order.iter().map(|&i| data.y[i]).collect();
            data.n_train = train.len();
        }
        Step::TrainRows => {
            let keep: Vec<usize> = (0..data.n_train).collect();
            data.x = data.x.select_rows(&keep);
            data.y.truncate(data.n_train);
        }
    }
    Ok(())
}

/// The dense result of a column scaling, back in the sparse form the maps take (centring makes
/// most entries non-zero, so this is about as large as the dense matrix).
fn dense_to_csr(dense: ndarray::Array2<f64>, step: &'static str) -> Result<CsrMatrix> {
    CsrMatrix::from_dense(dense.view()).map_err(|e| DataError::Preprocess {
        step,
        problem: e.to_string(),
    })
}

/// A dataset after preprocessing: rows (train first) and labels.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
    /// The first `n_train` rows are the training set.
    pub n_train: usize,
}

impl From<Dataset> for Prepared {
    fn from(d: Dataset) -> Prepared {
        Prepared {
            x: d.x,
            y: d.y,
            n_train: d.n_train,
        }
    }
}

impl Prepared {
    /// Applies `step` to the rows in place; `data_seed` draws a `split`.
    pub fn apply(&mut self, step: &Step, data_seed: u64) -> Result<()> {
        apply(step, self, data_seed)
    }
}

/// Applies `steps` in order.
pub fn apply_steps(dataset: Dataset, steps: &[Step], data_seed: u64) -> Result<Prepared> {
    let mut data = Prepared::from(dataset);
    for step in steps {
        apply(step, &mut data, data_seed)?;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn dataset() -> Dataset {
        let x = CsrMatrix::from_dense(
            array![
                [1.0, 0.0, 5.0],
                [3.0, 0.0, 5.0],
                [0.0, 4.0, 5.0],
                [10.0, -8.0, 0.0],
                [2.0, 2.0, 2.0]
            ]
            .view(),
        )
        .unwrap();
        Dataset {
            name: "t".into(),
            x,
            y: vec![1.0, 2.0, 3.0, 4.0, 5.0],
            n_train: 3,
        }
    }

    #[test]
    fn subsample_keeps_train_rows_first_and_labels_aligned() {
        let steps = [Step::Subsample { n: 3, seed: 4 }];
        let out = apply_steps(dataset(), &steps, 0).unwrap();
        let keep = subsample_indices(5, 3, 4).unwrap();
        assert_eq!(
            out.y,
            keep.iter().map(|&i| (i + 1) as f64).collect::<Vec<_>>()
        );
        assert_eq!(out.n_train, keep.iter().filter(|&&i| i < 3).count());
        let full = dataset().x.to_dense();
        for (row, &i) in keep.iter().enumerate() {
            assert_eq!(out.x.to_dense().row(row), full.row(i));
        }
        let too_many = apply_steps(dataset(), &[Step::Subsample { n: 6, seed: 4 }], 0);
        assert!(too_many
            .unwrap_err()
            .to_string()
            .contains("cannot draw 6 rows out of 5"));
        assert_eq!(steps[0].rows_after(3), Ok(3));
        assert!(steps[0]
            .rows_after(2)
            .unwrap_err()
            .contains("n = 3 is more than the 2"));
    }

    #[test]
    fn standardize_and_min_max_use_train_rows() {
        let z = apply_steps(dataset(), &[Step::Standardize], 0)
            .unwrap()
            .x
            .to_dense();
        // Train column 0 is 1, 3, 0: mean 4/3, population sd sqrt(14/9); test rows use them.
        let (m, s) = (4.0 / 3.0, (14.0f64 / 9.0).sqrt());
        for (i, v) in [1.0, 3.0, 0.0, 10.0, 2.0].into_iter().enumerate() {
            assert!((z[[i, 0]] - (v - m) / s).abs() < 1e-12, "row {i}");
        }
        let z = apply_steps(dataset(), &[Step::MIN_MAX], 0)
            .unwrap()
            .x
            .to_dense();
        assert_eq!(
            z.column(0).to_vec(),
            [1.0 / 3.0, 1.0, 0.0, 10.0 / 3.0, 2.0 / 3.0]
        );
        let no_train = Dataset {
            n_train: 0,
            ..dataset()
        };
        assert!(apply_steps(no_train, &[Step::Standardize], 0).is_err());
    }

    /// svm-scale's default: each column's training range to [-1, 1] (a naive formula for the
    /// reference), a constant column to 0; test rows beyond the range go beyond [-1, 1].
    #[test]
    fn min_max_to_minus_one_one_is_svm_scale() {
        let step = Step::MinMax {
            lower: -1.0,
            upper: 1.0,
        };
        let z = apply_steps(dataset(), &[step], 0).unwrap().x.to_dense();
        let x = dataset().x.to_dense();
        for j in [0, 1] {
            let train = x.column(j).slice(ndarray::s![..3]).to_vec();
            let lo = train.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = train.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for i in 0..5 {
                let want = -1.0 + 2.0 * (x[[i, j]] - lo) / (hi - lo);
                assert!(
                    (z[[i, j]] - want).abs() < 1e-12,
                    "({i}, {j}): {}",
                    z[[i, j]]
                );
            }
        }
        assert_eq!(z[[1, 0]], 1.0);
        assert_eq!(z[[3, 0]], -1.0 + 20.0 / 3.0);
        // Column 2 is 5 on every training row: 0 there, as svm-scale omits it.
        assert_eq!(z.column(2).slice(ndarray::s![..3]).to_vec(), [0.0; 3]);
    }

    /// One factor for every row: the largest training row's norm (row 2's, sqrt(41)), so that row
    /// becomes unit-norm, the others keep their lengths relative to it, and test rows may exceed 1.
    #[test]
    fn max_row_norm_divides_every_row_by_the_largest_training_norm() {
        let z = apply_steps(dataset(), &[Step::MaxRowNorm], 0)
            .unwrap()
            .x
            .to_dense();
        let x = dataset().x.to_dense();
        let norm = |r: ndarray::ArrayView1<f64>| r.dot(&r).sqrt();
        assert!((norm(z.row(2)) - 1.0).abs() < 1e-15);
        for i in 0..5 {
            let want = norm(x.row(i)) / 41f64.sqrt();
            assert!((norm(z.row(i)) - want).abs() < 1e-12, "row {i}");
        }
        assert!(
            norm(z.row(3)) > 2.0 - 1e-12,
            "a test row longer than any training row"
        );
        let zeros = Dataset {
            x: CsrMatrix::from_dense(ndarray::Array2::<f64>::zeros((3, 2)).view()).unwrap(),
            y: vec![0.0; 3],
            n_train: 2,
            name: "zeros".into(),
        };
        let error = apply_steps(zeros, &[Step::MaxRowNorm], 0).unwrap_err();
        assert!(
            error.to_string().contains("largest training row norm is 0"),
            "{error}"
        );
    }

    #[test]
    fn split_pools_the_rows_and_redraws_them_per_class_with_the_data_seed() {
        // 12 rows: labels 0 (8 rows) and 1 (4 rows); feature 0 is the row's index.
        let dense = ndarray::Array2::from_shape_fn((12, 2), |(i, j)| (i * (1 - j)) as f64 + 1.0);
        let data = || Dataset {
            name: "twelve".into(),
            x: CsrMatrix::from_dense(dense.view()).unwrap(),
            y: (0..12).map(|i| f64::from(u8::from(i % 3 == 0))).collect(),
            n_train: 9,
        };
        let step = [Step::Split {
            test_fraction: 0.25,
            stratify: true,
        }];
        let a = apply_steps(data(), &step, 7).unwrap();
        // A quarter of each class: 2 of the 8 zeros, 1 of the 4 ones.
        assert_eq!(a.n_train, 9);
        let test = &a.y[a.n_train..];
        assert_eq!(test.iter().filter(|&&v| v == 1.0).count(), 1, "{test:?}");
        assert_eq!(test.iter().filter(|&&v| v == 0.0).count(), 2, "{test:?}");
        // Labels stay with their rows: row i's label is 1 exactly when i % 3 == 0.
        let x = a.x.to_dense();
        for r in 0..12 {
            let i = x[[r, 0]] as usize - 1;
            assert_eq!(a.y[r], f64::from(u8::from(i % 3 == 0)), "row {r} (was {i})");
        }
        let rows = |p: &Prepared| (0..12).map(|r| p.x.to_dense()[[r, 0]]).collect::<Vec<_>>();
        let again = apply_steps(data(), &step, 7).unwrap();
        assert_eq!(rows(&a), rows(&again), "same seed, same split");
        let other = (8..40)
            .map(|seed| apply_steps(data(), &step, seed).unwrap())
            .filter(|o| rows(o) != rows(&a))
            .count();
        assert!(
            other > 20,
            "another seed draws another split: {other} of 32"
        );
        let plain = [Step::Split {
            test_fraction: 0.5,
            stratify: false,
        }];
        assert_eq!(apply_steps(data(), &plain, 3).unwrap().n_train, 6);
    }

    /// `train-rows` drops the test rows; a `split` after it draws from the training rows only,
    /// so no test row reaches either side of the new split.
    #[test]
    fn train_rows_then_split_never_sees_the_test_rows() {
        let steps = [
            Step::TrainRows,
            Step::Split {
                test_fraction: 0.34,
                stratify: false,
            },
        ];
        for seed in 0..20 {
            let data = apply_steps(dataset(), &steps, seed).unwrap();
            assert_eq!(data.y.len(), 3);
            assert_eq!(data.n_train, 2);
            let mut y = data.y.clone();
            y.sort_by(f64::total_cmp);
            assert_eq!(y, [1.0, 2.0, 3.0], "seed {seed}: the three training rows");
        }
    }
}
