//! Exact-kernel baselines on the full `n x n` kernel matrix, for the sizes where that is feasible
//! (the "Exact RBF" column of Fastfood's Table 2): kernel ridge regression, the kernel functions
//! and matrices every kernel learner uses. (The exact kernel SVM of the benchmark is
//! [`crate::CachedKernelSvm`]; its full-matrix reference is the `kernel_svm` module, behind the
//! `full-matrix-svm` feature.)
//!
//! Memory is `8 n^2` bytes for the kernel matrix; above [`DEFAULT_MAX_KERNEL_BYTES`] (or the limit
//! set on the params) `fit` returns [`LearnerError::KernelTooLarge`] before allocating anything.
//!
//! - [`KernelRidge`]: `(K + lambda I) A = Y - 1 my'` by Cholesky (one factorisation for every
//!   output), prediction `f(x) = sum_i A_i k(x_i, x) + my`, with `my` the target means when
//!   `center_targets` is on (the default; the constant is then not penalised, which for a kernel
//!   ridge without a constant feature is the usual way to fit an offset), `my = 0` otherwise.
//!   Time O(n^2 d + n^3).
//! - Kernels: any [`KernelFunction`], in particular `rfbench-maps`'s one vocabulary [`Kernel`]
//!   (re-exported here); LIBSVM's `-t 1` kernel `(gamma <x, y> + coef0)^degree` is
//!   [`Kernel::libsvm_polynomial`], in LIBSVM's own parameterisation so that the same three
//!   numbers go to both programs.
//!
//! The kernel matrix is filled in parallel, each entry computed independently: results do not
//! depend on the thread count.

use ndarray::{Array1, Array2, ArrayView2, Axis};
use ndarray_linalg::{FactorizeC, SolveC, UPLO};
use rayon::prelude::*;
use rfbench_maps::{CsrMatrix, Kernel, PolynomialKernel, Row, Rows};

use crate::error::{LearnerError, Result};
use crate::params::param_guard;
use crate::prediction::{check_finite, check_input};

/// 2 GiB: a kernel matrix of 16,384 rows.
pub const DEFAULT_MAX_KERNEL_BYTES: u128 = 1 << 31;

/// A positive-definite kernel on input rows, as the baselines evaluate it: entry by entry.
/// Implemented for the exact kernels of `rfbench-maps` ([`Kernel`], [`PolynomialKernel`]) and for
/// any `Fn(&Row, &Row) -> f64`.
pub trait KernelFunction: Sync {
    fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64;

    /// The kernel as a function of dot products, when it is one (see [`Kernel::from_dots`]);
    /// `None`, the default, makes solvers call [`KernelFunction::eval`].
    fn dot_form(&self) -> Option<Kernel> {
        None
    }
}

impl KernelFunction for Kernel {
    fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        Kernel::eval(self, x, y)
    }

    fn dot_form(&self) -> Option<Kernel> {
        self.dot_form().0.then_some(*self)
    }
}

impl KernelFunction for PolynomialKernel {
    fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        PolynomialKernel::eval(self, x, y)
    }

    /// `(1 * t + c)^p`: `1 * t` is `t` exactly, so the same values as `from_dot`.
    fn dot_form(&self) -> Option<Kernel> {
        Some(Kernel::Polynomial {
            degree: self.degree(),
            gamma: 1.0,
            offset: self.offset(),
        })
    }
}

impl<F: Fn(&Row<'_>, &Row<'_>) -> f64 + Sync> KernelFunction for F {
    fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        self(x, y)
    }
}

/// Training rows kept by a fitted kernel model (prediction needs them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OwnedRows {
    Dense(Array2<f64>),
    Sparse(CsrMatrix),
}

impl OwnedRows {
    pub(crate) fn from_rows(x: &Rows<'_>) -> Self {
        match x {
            Rows::Dense(v) => OwnedRows::Dense(v.to_owned()),
            Rows::Sparse(m) => OwnedRows::Sparse((*m).clone()),
        }
    }
    pub(crate) fn rows(&self) -> Rows<'_> {
        match self {
            OwnedRows::Dense(a) => Rows::Dense(a.view()),
            OwnedRows::Sparse(m) => Rows::Sparse(m),
        }
    }
}

fn check_size(rows: usize, limit: u128) -> Result<()> {
    let bytes = (rows as u128) * (rows as u128) * 8;
    if bytes > limit {
        return Err(LearnerError::KernelTooLarge { rows, bytes, limit });
    }
    Ok(())
}

/// `K[i][j] = k(a_i, b_j)`, rows filled in parallel.
pub fn kernel_matrix<K: KernelFunction + ?Sized>(
    kernel: &K,
    a: Rows<'_>,
    b: Rows<'_>,
) -> Array2<f64> {
    let mut out = Array2::zeros((a.n_rows(), b.n_rows()));
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut row)| {
            let ai = a.row(i);
            for (j, v) in row.iter_mut().enumerate() {
                *v = kernel.eval(&ai, &b.row(j));
            }
        });
    out
}

/// Symmetric `K[i][j] = k(x_i, x_j)`: the upper triangle computed, the lower one copied.
pub(crate) fn gram<K: KernelFunction + ?Sized>(kernel: &K, x: Rows<'_>) -> Array2<f64> {
    let n = x.n_rows();
    let mut out = Array2::zeros((n, n));
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut row)| {
            let xi = x.row(i);
            for j in i..n {
                row[j] = kernel.eval(&xi, &x.row(j));
            }
        });
    for i in 0..n {
        for j in 0..i {
            out[[i, j]] = out[[j, i]];
        }
    }
    out
}

/// A training set of `n` rows for `targets` labels or target rows: the checks of
/// [`crate::LinearSvm`]'s, and the kernel matrix within `limit` bytes.
pub(crate) fn check_training(x: &Rows<'_>, targets: usize, limit: u128) -> Result<()> {
    let n = x.n_rows();
    if n == 0 {
        return Err(LearnerError::EmptyData);
    }
    if x.n_cols() == 0 {
        return Err(LearnerError::NoFeatures);
    }
    if targets != n {
        return Err(LearnerError::LengthMismatch {
            rows: n,
            labels: targets,
        });
    }
    check_size(n, limit)?;
    check_finite(x)
}

/// Unchecked hyper-parameters of [`KernelRidge`] (builder setters), checked by
/// [`check`](Self::check) into [`KernelRidgeValidParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRidgeParams(KernelRidgeValidParams);

/// Hyper-parameters that passed [`KernelRidgeParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRidgeValidParams {
    lambda: f64,
    center_targets: bool,
    max_kernel_bytes: u128,
}

impl Default for KernelRidgeParams {
    fn default() -> Self {
        Self(KernelRidgeValidParams {
            lambda: 1.0,
            center_targets: true,
            max_kernel_bytes: DEFAULT_MAX_KERNEL_BYTES,
        })
    }
}

param_guard!(KernelRidgeParams => KernelRidgeValidParams);

impl KernelRidgeParams {
    /// Regularisation `lambda >= 0` (default 1).
    pub fn lambda(mut self, lambda: f64) -> Self {
        self.0.lambda = lambda;
        self
    }
    /// Subtract the target means before solving and add them back when predicting (default true).
    pub fn center_targets(mut self, center: bool) -> Self {
        self.0.center_targets = center;
        self
    }
    /// Largest kernel matrix, in bytes, `fit` may allocate (default 2 GiB).
    pub fn max_kernel_bytes(mut self, bytes: u128) -> Self {
        self.0.max_kernel_bytes = bytes;
        self
    }
    /// `check()` then [`KernelRidgeValidParams::fit`].
    pub fn fit<'a, K: KernelFunction>(
        self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        y: ArrayView2<'_, f64>,
    ) -> Result<KernelRidge<K>> {
        self.check()?.fit(kernel, x, y)
    }
}

impl KernelRidgeValidParams {
    fn validate(&self) -> Result<()> {
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            return Err(LearnerError::InvalidLambda(self.lambda));
        }
        Ok(())
    }

    /// Whether target means are subtracted before solving.
    pub(crate) fn centers_targets(&self) -> bool {
        self.center_targets
    }

    /// Rows, columns, finiteness and the kernel-size limit of a training set.
    pub(crate) fn check_training(&self, x: &Rows<'_>, y: ArrayView2<'_, f64>) -> Result<()> {
        check_training(x, y.nrows(), self.max_kernel_bytes)?;
        if let Some(((row, output), &value)) = y.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(LearnerError::NonFiniteTarget { row, output, value });
        }
        Ok(())
    }

    /// Fits on rows `x` and targets `y` (`n x k`).
    pub fn fit<'a, K: KernelFunction>(
        &self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        y: ArrayView2<'_, f64>,
    ) -> Result<KernelRidge<K>> {
        let x = x.into();
        self.check_training(&x, y)?;
        let (n, lambda) = (x.n_rows(), self.lambda);
        let means = if self.center_targets {
            y.mean_axis(Axis(0)).expect("n > 0")
        } else {
            Array1::zeros(y.ncols())
        };
        let centred = &y - &means.view().insert_axis(Axis(0));
        let mut k = gram(&kernel, x);
        for i in 0..n {
            k[[i, i]] += lambda;
        }
        let factor = k
            .factorizec(UPLO::Lower)
            .map_err(|_| LearnerError::NotPositiveDefinite { lambda })?;
        let mut dual = Array2::zeros((n, y.ncols()));
        for o in 0..y.ncols() {
            let col = factor
                .solvec(&centred.column(o))
                .map_err(|e| LearnerError::LinearAlgebra(e.to_string()))?;
            dual.column_mut(o).assign(&col);
        }
        if dual.iter().any(|v| !v.is_finite()) {
            return Err(LearnerError::NotPositiveDefinite { lambda });
        }
        Ok(KernelRidge {
            kernel,
            train: OwnedRows::from_rows(&x),
            dual,
            means,
        })
    }
}

/// A fitted kernel ridge regression.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRidge<K> {
    kernel: K,
    train: OwnedRows,
    dual: Array2<f64>,
    means: Array1<f64>,
}

impl<K: KernelFunction> KernelRidge<K> {
    /// `n_train x k` dual coefficients `A`.
    pub fn dual_coefficients(&self) -> ArrayView2<'_, f64> {
        self.dual.view()
    }
    /// `n x k` predictions.
    pub fn predict<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Array2<f64>> {
        let x = x.into();
        let train = self.train.rows();
        check_input(&x, train.n_cols())?;
        let k = kernel_matrix(&self.kernel, x, train);
        Ok(k.dot(&self.dual) + self.means.view().insert_axis(Axis(0)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::RidgeParams;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rfbench_maps::MapError;

    pub(crate) fn linear(x: &Row<'_>, y: &Row<'_>) -> f64 {
        x.dot(y)
    }

    pub(crate) fn data(n: usize, d: usize, seed: u64) -> (Array2<f64>, Vec<i64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let labels: Vec<i64> = (0..n).map(|i| (i % 2) as i64).collect();
        let x = Array2::from_shape_fn((n, d), |(i, j)| {
            let centre = if j == 0 { labels[i] as f64 } else { 0.0 };
            if rng.random::<f64>() < 0.2 {
                0.0
            } else {
                centre + rng.random_range(-1.0..1.0)
            }
        });
        (x, labels)
    }

    /// The dot-product form against the kernel evaluated directly, on dense rows and on sparse
    /// ones: the same bits for the dot-product kernels, within rounding for the Gaussian.
    #[test]
    fn dot_forms_match_the_kernels() {
        let (x, _) = data(12, 5, 3);
        let sparse = CsrMatrix::from_dense(x.view()).unwrap();
        let kernels = [
            Kernel::Linear,
            Kernel::libsvm_polynomial(3, 0.7, 1.0).unwrap(),
            Kernel::gaussian(0.8).unwrap(),
        ];
        for kernel in kernels {
            let form = KernelFunction::dot_form(&kernel).unwrap();
            let (_, norms) = kernel.dot_form();
            for i in 0..x.nrows() {
                for j in 0..x.nrows() {
                    let (a, b) = (Row::Dense(x.row(i)), Row::Dense(x.row(j)));
                    let (sa, sb) = (sparse.row(i), sparse.row(j));
                    let direct = kernel.eval(&a, &b);
                    for (p, q) in [(&a, &b), (&sa, &b), (&a, &sb)] {
                        let value = form.from_dots(p.dot(q), a.dot(&a), b.dot(&b)).unwrap();
                        if norms {
                            assert!((value - direct).abs() <= 1e-14, "{kernel:?} {i} {j}");
                        } else {
                            assert_eq!(value, direct, "{kernel:?} {i} {j}");
                        }
                    }
                }
            }
        }
        let laplacian = Kernel::laplacian(1.0).unwrap();
        assert_eq!(KernelFunction::dot_form(&laplacian), None);
        assert_eq!(laplacian.from_dots(1.0, 1.0, 1.0), None);
        let poly = PolynomialKernel::new(2, 1.0).unwrap();
        let (a, b) = (Row::Dense(x.row(0)), Row::Dense(x.row(1)));
        assert_eq!(
            poly.dot_form().unwrap().from_dots(a.dot(&b), 0.0, 0.0),
            Some(KernelFunction::eval(&poly, &a, &b))
        );
    }

    #[test]
    fn gram_and_kernel_matrix_match_naive_loops() {
        let (x, _) = data(23, 4, 1);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let poly = PolynomialKernel::new(3, 0.5).unwrap();
        let g = gram(&poly, Rows::Sparse(&csr));
        let k = kernel_matrix(&poly, Rows::Dense(x.view()), Rows::Sparse(&csr));
        for i in 0..23 {
            for j in 0..23 {
                let naive = (x.row(i).dot(&x.row(j)) + 0.5).powi(3);
                // Different summation orders of the same products: a few ulps of the value.
                assert!((g[[i, j]] - naive).abs() <= 1e-12 * naive.abs().max(1.0));
                assert!((k[[i, j]] - naive).abs() <= 1e-12 * naive.abs().max(1.0));
            }
        }
    }

    #[test]
    fn kernel_ridge_with_linear_kernel_equals_ridge() {
        // Z (Z'Z + l I)^-1 Z'y = Z Z'(Z Z' + l I)^-1 y: primal and dual ridge agree.
        let (x, _) = data(40, 5, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let y = Array2::from_shape_fn((40, 2), |_| rng.random_range(-1.0..1.0));
        for center in [false, true] {
            let krr = KernelRidgeParams::new()
                .lambda(0.7)
                .center_targets(center)
                .fit(linear, &x, y.view())
                .unwrap();
            let ridge = RidgeParams::new()
                .lambda(0.7)
                .fit_intercept(false)
                .fit(
                    x.view(),
                    (&y - &y.mean_axis(Axis(0)).unwrap() * f64::from(center)).view(),
                )
                .unwrap();
            let expect = ridge.predict(x.view()).unwrap()
                + &y.mean_axis(Axis(0)).unwrap() * f64::from(center);
            let got = krr.predict(&x).unwrap();
            // Two Cholesky solves of well-conditioned systems (lambda = 0.7): rounding only.
            assert!((&got - &expect).iter().all(|e| e.abs() < 1e-10), "{center}");
        }
    }

    #[test]
    fn libsvm_polynomial_kernel_values_and_errors() {
        let (x, _) = data(5, 3, 8);
        let k = Kernel::libsvm_polynomial(2, 0.25, 1.5).unwrap();
        let (a, b) = (Row::Dense(x.row(0)), Row::Dense(x.row(1)));
        let t = x.row(0).dot(&x.row(1));
        assert_eq!(KernelFunction::eval(&k, &a, &b), (0.25 * t + 1.5).powi(2));
        let gamma_error = LearnerError::from(Kernel::libsvm_polynomial(2, 0.0, 1.0).unwrap_err());
        assert!(matches!(
            gamma_error,
            LearnerError::Input(MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "gamma",
                value: 0.0,
                ..
            })
        ));
        assert!(matches!(
            Kernel::libsvm_polynomial(0, 1.0, 1.0),
            Err(MapError::InvalidKernelParameter {
                parameter: "degree",
                ..
            })
        ));
        // LIBSVM's -r may be negative; a non-finite one is refused.
        assert!(Kernel::libsvm_polynomial(2, 1.0, -1.0).is_ok());
        assert!(matches!(
            Kernel::libsvm_polynomial(2, 1.0, f64::NAN),
            Err(MapError::InvalidKernelParameter {
                parameter: "offset",
                ..
            })
        ));
    }

    #[test]
    fn size_limit_and_bad_input_are_typed_errors() {
        let (x, _) = data(10, 3, 6);
        let y = Array2::zeros((10, 1));
        assert!(matches!(
            KernelRidgeParams::new()
                .max_kernel_bytes(799)
                .fit(linear, &x, y.view()),
            Err(LearnerError::KernelTooLarge {
                rows: 10,
                bytes: 800,
                limit: 799
            })
        ));
        assert!(KernelRidgeParams::new()
            .max_kernel_bytes(800)
            .fit(linear, &x, y.view())
            .is_ok());
        assert!(matches!(
            KernelRidgeParams::new().lambda(-0.5).check(),
            Err(LearnerError::InvalidLambda(_))
        ));
        let mut nan = x.clone();
        nan[[0, 0]] = f64::NAN;
        assert!(matches!(
            KernelRidgeParams::new().fit(linear, &nan, y.view()),
            Err(LearnerError::NonFinite { row: 0, col: 0, .. })
        ));
        let model = KernelRidgeParams::new().fit(linear, &x, y.view()).unwrap();
        assert!(matches!(
            model.predict(&Array2::zeros((1, 2))),
            Err(LearnerError::DimensionMismatch {
                expected: 3,
                got: 2
            })
        ));
    }
}
