//! k-fold cross-validation of the linear SVM's C and of kernel ridge's lambda, with the same
//! self-extending grid and edge report as ridge's lambda ([`crate::GridSearch`]).
//!
//! Folds are those of [`crate::Ridge`]: row `i` goes to fold `h(seed, i) mod folds`, so the same
//! [`CrossValidation`] splits the rows the same way for every learner.
//!
//! - Linear SVM: the score of a C is the misclassification rate over all validation rows (the
//!   papers report accuracy); ties go to the smaller C. Cost: `folds x values searched` SVM fits.
//!   A large C makes dual coordinate descent slow, so the upper limit of the extension deserves
//!   thought; `CrossValidation::default()`'s `2^30` is reached only when every C up to it is best.
//! - Kernel ridge: the score of a lambda is the validation MSE over all folds and outputs; ties go
//!   to the larger lambda. The kernel matrix is computed once; each fold's training block is
//!   reduced once to tridiagonal form, `K_TT = Q T Q'` ([`crate::tridiagonal`]), after which
//!   every lambda costs only `O(n_V n_T k)`: predictions
//!   `(K_VT Q) (T + lambda I)^{-1} Q' (y_T - m_T) + m_T`, the middle factor a tridiagonal solve.
//!   Cost: `O(n^2 d)` for the kernel matrix plus `folds` reductions of size `n_T` (`dsytrd`,
//!   about 40 % of a divide-and-conquer eigendecomposition's time) and `folds` products
//!   `K_VT Q`, one fold after another (the reduction's BLAS is threaded).

use ndarray::{Array1, Array2, ArrayView2, Axis};
use rfbench_maps::{CsrMatrix, Rows};

use crate::error::{LearnerError, Result};
use crate::grid_search::{self, GridSearch, Simpler};
use crate::kernel_baselines::{
    gram, KernelFunction, KernelRidge, KernelRidgeParams, KernelRidgeValidParams,
};
use crate::linear_svm::{LinearSvm, LinearSvmParams, LinearSvmValidParams};
use crate::ridge::{fold_of, CrossValidation};
use crate::tridiagonal::{SymmetricTridiagonal, Tridiagonal};

/// Training and validation rows of each fold; folds that leave either side empty are dropped.
fn fold_rows(cv: &CrossValidation, n: usize) -> Result<Vec<(Vec<usize>, Vec<usize>)>> {
    if cv.folds > n {
        return Err(LearnerError::InvalidFolds {
            folds: cv.folds,
            rows: n,
        });
    }
    let fold: Vec<usize> = (0..n).map(|i| fold_of(cv.seed, i, cv.folds)).collect();
    let splits: Vec<_> = (0..cv.folds)
        .map(|f| {
            let (validation, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| fold[i] == f);
            (train, validation)
        })
        .filter(|(train, validation)| !train.is_empty() && !validation.is_empty())
        .collect();
    if splits.is_empty() {
        // Every row fell into one fold: nothing to validate on.
        return Err(LearnerError::InvalidFolds {
            folds: cv.folds,
            rows: n,
        });
    }
    Ok(splits)
}

/// k-fold cross-validation of one parameter of a whole pipeline, for what a learner cannot
/// search by itself: a kernel bandwidth, for which the feature map is refitted on each fold's
/// training rows. `loss(value, train, validation)` returns the summed loss over the validation
/// rows (squared errors, misclassifications); a value's score is the total over all folds divided
/// by the rows validated. The learners' folds (row `i` in fold `h(cv.seed, i) mod cv.folds`), the
/// same grid extension within `cv.limits` and the same edge report; ties go to `simpler`.
pub fn cross_validate_parameter<F>(
    cv: &CrossValidation,
    n: usize,
    simpler: Simpler,
    mut loss: F,
) -> Result<GridSearch>
where
    F: FnMut(f64, &[usize], &[usize]) -> Result<f64>,
{
    cv.check("parameter")?;
    let splits = fold_rows(cv, n)?;
    let validated: usize = splits.iter().map(|(_, v)| v.len()).sum();
    grid_search::search(&cv.grid, cv.limits, simpler, |value| {
        let mut total = 0.0;
        for (train, validation) in &splits {
            total += loss(value, train, validation)?;
        }
        Ok(total / validated as f64)
    })
}

/// The selected rows of `x`, owned.
enum Subset {
    Dense(Array2<f64>),
    Sparse(CsrMatrix),
}

impl Subset {
    fn of(x: &Rows<'_>, rows: &[usize]) -> Self {
        match x {
            Rows::Dense(v) => Subset::Dense(v.select(Axis(0), rows)),
            Rows::Sparse(m) => Subset::Sparse(m.select_rows(rows)),
        }
    }
    fn rows(&self) -> Rows<'_> {
        match self {
            Subset::Dense(a) => Rows::Dense(a.view()),
            Subset::Sparse(m) => Rows::Sparse(m),
        }
    }
}

impl LinearSvmValidParams {
    /// k-fold cross-validation of C over `cv.grid` (every value finite and > 0), extended within
    /// `cv.limits` while the best C is at an edge; all other parameters are this object's. The
    /// score is the validation misclassification rate; see the module doc.
    pub fn cross_validate_c<'a>(
        &self,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
        cv: &CrossValidation,
    ) -> Result<GridSearch> {
        let x = x.into();
        cv.check("C")?;
        if let Some(&bad) = cv.grid.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
            return Err(LearnerError::InvalidC(bad));
        }
        if labels.len() != x.n_rows() {
            return Err(LearnerError::LengthMismatch {
                rows: x.n_rows(),
                labels: labels.len(),
            });
        }
        if x.n_rows() == 0 {
            return Err(LearnerError::EmptyData);
        }
        let folds: Vec<_> = fold_rows(cv, x.n_rows())?
            .into_iter()
            .map(|(train, validation)| {
                let train_labels: Vec<i64> = train.iter().map(|&i| labels[i]).collect();
                let validation_labels: Vec<i64> = validation.iter().map(|&i| labels[i]).collect();
                (
                    Subset::of(&x, &train),
                    train_labels,
                    Subset::of(&x, &validation),
                    validation_labels,
                )
            })
            .collect();
        let error_rate = |c: f64| -> Result<f64> {
            let params = LinearSvmParams::from(self.clone()).c(c).check()?;
            let (mut wrong, mut total) = (0usize, 0usize);
            for (train, train_labels, validation, validation_labels) in &folds {
                let model = params.fit(train.rows(), train_labels)?;
                let predicted = model.predict(validation.rows())?;
                wrong += predicted
                    .iter()
                    .zip(validation_labels)
                    .filter(|(p, l)| p != l)
                    .count();
                total += validation_labels.len();
            }
            Ok(wrong as f64 / total as f64)
        };
        grid_search::search(&cv.grid, cv.limits, Simpler::Smaller, error_rate)
    }

    /// [`cross_validate_c`](Self::cross_validate_c), then a fit on all rows with the chosen C.
    pub fn fit_cross_validated<'a>(
        &self,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
        cv: &CrossValidation,
    ) -> Result<(LinearSvm, GridSearch)> {
        let x = x.into();
        let search = self.cross_validate_c(x, labels, cv)?;
        let model = LinearSvmParams::from(self.clone())
            .c(search.chosen)
            .fit(x, labels)?;
        Ok((model, search))
    }
}

/// One fold of kernel ridge's cross-validation, reduced to what every lambda needs.
struct KernelFold {
    /// `T` of the training block's reduction `K_TT = Q T Q'`.
    tridiagonal: SymmetricTridiagonal,
    /// `K_VT Q`: validation-by-training kernel in the reduction's basis.
    validation_in_basis: Array2<f64>,
    /// `Q' (y_T - m_T)`.
    targets_in_basis: Array2<f64>,
    /// `y_V - m_T`: the validation targets minus the training means added back at prediction.
    validation_residual_targets: Array2<f64>,
}

impl KernelRidgeValidParams {
    /// k-fold cross-validation of lambda over `cv.grid` (every value finite and >= 0), extended
    /// within `cv.limits` while the best lambda is at an edge; the kernel matrix is computed
    /// once (see the module doc). The score is the validation MSE.
    pub fn cross_validate_lambda<'a, K: KernelFunction>(
        &self,
        kernel: &K,
        x: impl Into<Rows<'a>>,
        y: ArrayView2<'_, f64>,
        cv: &CrossValidation,
    ) -> Result<GridSearch> {
        let x = x.into();
        cv.check("lambda")?;
        if let Some(&bad) = cv.grid.iter().find(|l| !(l.is_finite() && **l >= 0.0)) {
            return Err(LearnerError::InvalidLambda(bad));
        }
        self.check_training(&x, y)?;
        let full = gram(kernel, x);
        // One tridiagonal reduction per fold, one fold after another: the reduction's threaded
        // BLAS already keeps both cores busy, and two memory-bound reductions at once were
        // slower (45.8 s against 29.8 s for the whole search on 5,822 rows, 2 cores).
        let folds: Vec<KernelFold> = fold_rows(cv, x.n_rows())?
            .into_iter()
            .map(|(train, validation)| {
                let block = full.select(Axis(0), &train).select(Axis(1), &train);
                let reduced = Tridiagonal::reduce(block).map_err(LearnerError::LinearAlgebra)?;
                let y_train = y.select(Axis(0), &train);
                let means = if self.centers_targets() {
                    y_train
                        .mean_axis(Axis(0))
                        .expect("a fold has training rows")
                } else {
                    Array1::zeros(y.ncols())
                };
                let means = means.insert_axis(Axis(0));
                let cross = full.select(Axis(0), &validation).select(Axis(1), &train);
                Ok(KernelFold {
                    validation_in_basis: reduced
                        .times_q(cross.view())
                        .map_err(LearnerError::LinearAlgebra)?,
                    targets_in_basis: reduced
                        .q_transpose_times((&y_train - &means).view())
                        .map_err(LearnerError::LinearAlgebra)?,
                    validation_residual_targets: &y.select(Axis(0), &validation) - &means,
                    tridiagonal: reduced.matrix,
                })
            })
            .collect::<Result<_>>()?;
        let validation_mse = |lambda: f64| -> Result<f64> {
            let (mut error, mut count) = (0.0, 0usize);
            for fold in &folds {
                let coefficients = fold
                    .tridiagonal
                    .solve_shifted(lambda, fold.targets_in_basis.view())
                    .map_err(LearnerError::LinearAlgebra)?
                    .ok_or(LearnerError::NotPositiveDefinite { lambda })?;
                let predicted = fold.validation_in_basis.dot(&coefficients);
                error += (&predicted - &fold.validation_residual_targets)
                    .mapv(|e| e * e)
                    .sum();
                count += predicted.len();
            }
            Ok(error / count as f64)
        };
        grid_search::search(&cv.grid, cv.limits, Simpler::Larger, validation_mse)
    }

    /// [`cross_validate_lambda`](Self::cross_validate_lambda), then a fit on all rows with the
    /// chosen lambda.
    pub fn fit_cross_validated<'a, K: KernelFunction>(
        &self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        y: ArrayView2<'_, f64>,
        cv: &CrossValidation,
    ) -> Result<(KernelRidge<K>, GridSearch)> {
        let x = x.into();
        let search = self.cross_validate_lambda(&kernel, x, y, cv)?;
        let model = KernelRidgeParams::from(self.clone())
            .lambda(search.chosen)
            .fit(kernel, x, y)?;
        Ok((model, search))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipeline_parameter_is_chosen_from_a_list_with_its_edge_reported() {
        let cv = |grid: Vec<f64>| CrossValidation {
            grid,
            folds: 3,
            seed: 5,
            limits: None,
        };
        // Every row is validated exactly once per value, never trained on in its own fold.
        let mut seen = vec![0usize; 50];
        let found = cross_validate_parameter(&cv(vec![1.0]), 50, Simpler::Larger, |_, t, v| {
            assert!(v.iter().all(|i| !t.contains(i)));
            assert_eq!(t.len() + v.len(), 50);
            v.iter().for_each(|&i| seen[i] += 1);
            Ok(0.0)
        })
        .unwrap();
        assert_eq!(seen, vec![1; 50]);
        assert_eq!(found.chosen, 1.0);
        // A loss with its minimum at 4: found inside the list, and at the edge of a list
        // that stops at 2.
        let bowl = |value: f64, _: &[usize], v: &[usize]| {
            Ok(v.len() as f64 * (value.log2() - 2.0).powi(2))
        };
        let inside = cross_validate_parameter(
            &cv(vec![1.0, 2.0, 4.0, 8.0, 16.0]),
            50,
            Simpler::Larger,
            bowl,
        )
        .unwrap();
        assert_eq!((inside.chosen, inside.at_edge), (4.0, false));
        assert!(
            (inside.scores[0].1 - 4.0).abs() < 1e-12,
            "{:?}",
            inside.scores
        );
        let edge =
            cross_validate_parameter(&cv(vec![0.5, 1.0, 2.0]), 50, Simpler::Larger, bowl).unwrap();
        assert_eq!((edge.chosen, edge.at_edge), (2.0, true));
        // Equal scores go to the simpler side.
        let flat = |_: f64, _: &[usize], _: &[usize]| Ok(1.0);
        let tie =
            cross_validate_parameter(&cv(vec![1.0, 2.0, 4.0]), 50, Simpler::Larger, flat).unwrap();
        assert_eq!(tie.chosen, 4.0);
    }
    use crate::{KernelRidgeParams, LinearSvmParams};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rfbench_maps::Row;

    fn gaussian_kernel(a: &Row<'_>, b: &Row<'_>) -> f64 {
        (-0.5 * (a.dot(a) - 2.0 * a.dot(b) + b.dot(b))).exp()
    }

    /// Two overlapping classes: labels from the sign of a noisy linear score.
    fn overlapping(n: usize, d: usize, seed: u64) -> (Array2<f64>, Vec<i64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
        let labels = x
            .rows()
            .into_iter()
            .map(|r| i64::from(r[0] + 0.5 * r[1] + rng.random_range(-0.4..0.4) > 0.0))
            .collect();
        (x, labels)
    }

    /// The folds built by hand from `fold_of`, one explicit fit per fold and C.
    #[test]
    fn svm_scores_match_explicit_refits() {
        let (x, labels) = overlapping(120, 4, 1);
        let cv = CrossValidation {
            grid: vec![0.01, 1.0, 100.0],
            folds: 4,
            seed: 3,
            limits: None,
        };
        let params = LinearSvmParams::new().eps(1e-4).check().unwrap();
        let search = params.cross_validate_c(&x, &labels, &cv).unwrap();
        let fold: Vec<usize> = (0..120).map(|i| fold_of(3, i, 4)).collect();
        for (g, &c) in cv.grid.iter().enumerate() {
            let mut wrong = 0;
            for f in 0..4 {
                let train: Vec<usize> = (0..120).filter(|&i| fold[i] != f).collect();
                let test: Vec<usize> = (0..120).filter(|&i| fold[i] == f).collect();
                let model = LinearSvmParams::new()
                    .eps(1e-4)
                    .c(c)
                    .fit(
                        &x.select(Axis(0), &train),
                        &train.iter().map(|&i| labels[i]).collect::<Vec<_>>(),
                    )
                    .unwrap();
                let predicted = model.predict(&x.select(Axis(0), &test)).unwrap();
                wrong += test
                    .iter()
                    .zip(&predicted)
                    .filter(|(&i, &p)| labels[i] != p)
                    .count();
            }
            assert_eq!(search.scores[g], (c, wrong as f64 / 120.0));
        }
        assert_eq!(search.scores.len(), 3);
        let (model, again) = params.fit_cross_validated(&x, &labels, &cv).unwrap();
        assert_eq!(again, search);
        assert_eq!(
            model,
            LinearSvmParams::new()
                .eps(1e-4)
                .c(search.chosen)
                .fit(&x, &labels)
                .unwrap()
        );
    }

    /// Classes split at `x0 = 5` with `x0` in [4, 6]: the bias feature must learn the offset, which
    /// a small C forbids, so the validation error falls as C grows from 2^-6 (0.375 on this seed)
    /// to 1 (0.05, and 0.05 again at 2). A grid capped at 2^-3 must end at its cap and say so;
    /// with room to grow it must walk up to 1 (ties go to the smaller C) and leave the edge.
    #[test]
    fn svm_reports_a_c_at_the_edge_and_extends_past_it() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let x = Array2::from_shape_fn((200, 2), |(_, j)| {
            if j == 0 {
                rng.random_range(4.0..6.0)
            } else {
                rng.random_range(-1.0..1.0)
            }
        });
        let labels: Vec<i64> = x
            .rows()
            .into_iter()
            .map(|r| i64::from(r[0] + 0.3 * r[1] > 5.0))
            .collect();
        let params = LinearSvmParams::new().check().unwrap();
        let capped = CrossValidation {
            grid: vec![2f64.powi(-6), 2f64.powi(-5), 2f64.powi(-4)],
            folds: 3,
            seed: 0,
            limits: Some((2f64.powi(-6), 2f64.powi(-3))),
        };
        let search = params.cross_validate_c(&x, &labels, &capped).unwrap();
        assert_eq!(
            (search.chosen, search.at_edge),
            (2f64.powi(-3), true),
            "{search:?}"
        );
        let roomy = CrossValidation {
            limits: Some((2f64.powi(-6), 2f64.powi(10))),
            ..capped
        };
        let search = params.cross_validate_c(&x, &labels, &roomy).unwrap();
        assert_eq!((search.chosen, search.at_edge), (1.0, false), "{search:?}");
        // The extension stopped one step past the optimum: 2^-3 .. 2^1 were added.
        assert_eq!(search.scores.len(), 3 + 5);
    }

    #[test]
    fn svm_grid_errors_are_typed() {
        let (x, labels) = overlapping(20, 2, 3);
        let params = LinearSvmParams::new().check().unwrap();
        let cv = |grid: Vec<f64>, folds: usize| CrossValidation {
            grid,
            folds,
            ..Default::default()
        };
        assert_eq!(
            params.cross_validate_c(&x, &labels, &cv(vec![], 5)),
            Err(LearnerError::EmptyGrid { parameter: "C" })
        );
        assert_eq!(
            params.cross_validate_c(&x, &labels, &cv(vec![1.0, 0.0], 5)),
            Err(LearnerError::InvalidC(0.0))
        );
        assert_eq!(
            params.cross_validate_c(&x, &labels, &cv(vec![1.0], 1)),
            Err(LearnerError::TooFewFolds(1))
        );
        assert_eq!(
            params.cross_validate_c(&x, &labels, &cv(vec![1.0], 21)),
            Err(LearnerError::InvalidFolds {
                folds: 21,
                rows: 20
            })
        );
        assert_eq!(
            params.cross_validate_c(&x, &labels[..3], &cv(vec![1.0], 5)),
            Err(LearnerError::LengthMismatch {
                rows: 20,
                labels: 3
            })
        );
        let bad_limits = CrossValidation {
            limits: Some((1.0, 0.5)),
            ..Default::default()
        };
        assert_eq!(
            params.cross_validate_c(&x, &labels, &bad_limits),
            Err(LearnerError::InvalidGridLimits {
                lower: 1.0,
                upper: 0.5
            })
        );
    }

    fn regression(n: usize, seed: u64, signal: f64) -> (Array2<f64>, Array2<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = Array2::<f64>::from_shape_fn((n, 2), |_| rng.random_range(-2.0..2.0));
        let y = Array2::from_shape_fn((n, 2), |(i, o)| {
            signal * (x[[i, o]]).sin() + 3.0 + rng.random_range(-0.5..0.5)
        });
        (x, y)
    }

    /// The tridiagonal shortcut against one Cholesky fit ([`KernelRidgeParams::fit`]) per
    /// fold and lambda, for centred and uncentred targets.
    #[test]
    fn kernel_ridge_scores_match_explicit_refits() {
        let (x, y) = regression(90, 4, 1.0);
        let cv = CrossValidation {
            grid: vec![1e-3, 0.1, 10.0],
            folds: 5,
            seed: 8,
            limits: None,
        };
        let fold: Vec<usize> = (0..90).map(|i| fold_of(8, i, 5)).collect();
        for center in [true, false] {
            let params = KernelRidgeParams::new()
                .center_targets(center)
                .check()
                .unwrap();
            let search = params
                .cross_validate_lambda(&gaussian_kernel, &x, y.view(), &cv)
                .unwrap();
            for (g, &lambda) in cv.grid.iter().enumerate() {
                let mut sse = 0.0;
                for f in 0..5 {
                    let train: Vec<usize> = (0..90).filter(|&i| fold[i] != f).collect();
                    let test: Vec<usize> = (0..90).filter(|&i| fold[i] == f).collect();
                    let y_train = y.select(Axis(0), &train);
                    let model = KernelRidgeParams::new()
                        .center_targets(center)
                        .lambda(lambda)
                        .fit(gaussian_kernel, &x.select(Axis(0), &train), y_train.view())
                        .unwrap();
                    let predicted = model.predict(&x.select(Axis(0), &test)).unwrap();
                    sse += (&predicted - &y.select(Axis(0), &test))
                        .mapv(|e| e * e)
                        .sum();
                }
                let expect = sse / (90.0 * 2.0);
                let (value, got) = search.scores[g];
                assert_eq!(value, lambda);
                // Two factorisations of kernel blocks with condition number up to ~1e5 (at
                // lambda = 1e-3): agreement to 1e-7 relative leaves a wide margin over rounding
                // while a wrong mean or a transposed block is off by O(1).
                assert!(
                    (got - expect).abs() < 1e-7 * expect,
                    "{center} {lambda}: {got} vs {expect}"
                );
            }
        }
    }

    /// Targets with no signal: the best predictor is the mean, lambda -> infinity. With a low
    /// limit the search must end at it and say so; with a fixed grid likewise.
    #[test]
    fn kernel_ridge_reports_an_optimum_beyond_the_limit() {
        let (x, y) = regression(60, 5, 0.0);
        let params = KernelRidgeParams::new().check().unwrap();
        let cv = CrossValidation {
            grid: vec![0.25, 1.0, 4.0],
            folds: 3,
            seed: 1,
            limits: Some((0.25, 64.0)),
        };
        let (model, search) = params
            .fit_cross_validated(gaussian_kernel, &x, y.view(), &cv)
            .unwrap();
        // The grid's step is 4: 16, 64, then 256 would pass the limit.
        assert_eq!((search.chosen, search.at_edge), (64.0, true), "{search:?}");
        let direct = KernelRidgeParams::new()
            .lambda(64.0)
            .fit(gaussian_kernel, &x, y.view())
            .unwrap();
        assert_eq!(model.dual_coefficients(), direct.dual_coefficients());
        assert_eq!(
            params.cross_validate_lambda(
                &gaussian_kernel,
                &x,
                y.view(),
                &CrossValidation {
                    grid: vec![],
                    ..cv.clone()
                }
            ),
            Err(LearnerError::EmptyLambdaGrid)
        );
        assert_eq!(
            params.cross_validate_lambda(
                &gaussian_kernel,
                &x,
                y.view(),
                &CrossValidation {
                    grid: vec![-1.0],
                    ..cv
                }
            ),
            Err(LearnerError::InvalidLambda(-1.0))
        );
    }
}
