//! The exact kernel SVM on the full `n x n` kernel matrix, [`KernelSvm`]: the obviously-correct
//! reference [`crate::CachedKernelSvm`] is tested against, and the small-`n` baseline of Tensor
//! Sketch's Fig. 3. No product code uses it (the benchmark runs the cached SVM, whose memory is
//! its cache, not `8 n^2` bytes), so it is built only with the crate's `full-matrix-svm` feature,
//! which the crate's own tests, examples and benches turn on.
//!
//! Hinge-loss SVM `min 1/2 |f|_H^2 + C sum_i max(0, 1 - y_i f(x_i))` solved in the dual by
//! coordinate descent on the precomputed matrix `Q_ij = y_i y_j (k(x_i, x_j) + b^2)`: the same
//! algorithm and stopping rule as [`crate::LinearSvm`], with the gradient kept up to date in O(n)
//! per step instead of through `w`. The bias is the constant feature `b` (default 1) folded into
//! the kernel, as LIBLINEAR does for linear models; LIBSVM instead imposes `sum_i y_i alpha_i = 0`
//! and solves by SMO, so the two optima differ slightly (by how much the penalty on the bias
//! matters). Default `eps = 1e-3` (LIBSVM's). One-vs-rest for more than two classes. Time
//! O(n^2 d) for the matrix plus O(n^2) per pass; memory `8 n^2` bytes, refused above
//! [`crate::DEFAULT_MAX_KERNEL_BYTES`] (or the limit set on the params) with
//! [`LearnerError::KernelTooLarge`] before anything is allocated.
//!
//! With [`KernelIntercept::Free`] it solves LIBSVM's problem instead — free intercept,
//! `sum_i y_i alpha_i = 0` — by LIBSVM's SMO algorithm (see [`crate::smo`]), so that dual
//! objectives and predictions can be compared with `svm-train`'s. O(n) per SMO step.

use ndarray::{Array1, Array2, Axis};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rfbench_maps::Rows;

use crate::dual_cd::ConvergenceReport;
use crate::error::{check_svm_params, LearnerError, Result};
use crate::kernel_baselines::{
    check_training, gram, kernel_matrix, KernelFunction, OwnedRows, DEFAULT_MAX_KERNEL_BYTES,
};
use crate::params::param_guard;
use crate::prediction::{check_input, one_vs_rest_labels};
use crate::smo::solve_smo;
use crate::svm_dual::dual_objective;
use rfbench_maps::seeds::sub_seed;

/// How [`KernelSvm`] fits the intercept, which also picks the solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KernelIntercept {
    /// No intercept: dual coordinate descent without the equality constraint.
    None,
    /// LIBLINEAR's way: a constant feature `b > 0`, i.e. the kernel `k + b^2`, whose weight is
    /// penalised like the others; dual coordinate descent. The default, with `b = 1`.
    Penalised(f64),
    /// LIBSVM's way: an unpenalised intercept, hence the constraint `sum_i y_i alpha_i = 0`;
    /// LIBSVM's SMO solver.
    Free,
}

/// Unchecked hyper-parameters of [`KernelSvm`] (builder setters), checked by
/// [`check`](Self::check) into [`KernelSvmValidParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSvmParams(KernelSvmValidParams);

/// Hyper-parameters that passed [`KernelSvmParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSvmValidParams {
    c: f64,
    eps: f64,
    max_iter: usize,
    intercept: KernelIntercept,
    seed: u64,
    max_kernel_bytes: u128,
}

impl Default for KernelSvmParams {
    fn default() -> Self {
        Self(KernelSvmValidParams {
            c: 1.0,
            eps: 1e-3,
            max_iter: 1000,
            intercept: KernelIntercept::Penalised(1.0),
            seed: 0,
            max_kernel_bytes: DEFAULT_MAX_KERNEL_BYTES,
        })
    }
}

param_guard!(KernelSvmParams => KernelSvmValidParams);

impl KernelSvmParams {
    /// Cost `C > 0` (default 1).
    pub fn c(mut self, c: f64) -> Self {
        self.0.c = c;
        self
    }
    /// Tolerance on the projected-gradient gap (default 1e-3).
    pub fn eps(mut self, eps: f64) -> Self {
        self.0.eps = eps;
        self
    }
    /// Maximum number of passes (default 1000); for SMO, `max_iter * n` two-coordinate steps.
    pub fn max_iter(mut self, max_iter: usize) -> Self {
        self.0.max_iter = max_iter;
        self
    }
    /// Constant feature `b > 0` folded into the kernel as `k + b^2`, or `None` (default `Some(1)`):
    /// shorthand for [`KernelIntercept::Penalised`] / [`KernelIntercept::None`].
    pub fn bias(mut self, bias: Option<f64>) -> Self {
        self.0.intercept = bias.map_or(KernelIntercept::None, KernelIntercept::Penalised);
        self
    }
    /// How the intercept is fitted (default `Penalised(1)`).
    pub fn intercept(mut self, intercept: KernelIntercept) -> Self {
        self.0.intercept = intercept;
        self
    }
    /// Seed of the random visiting order (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
    /// Largest kernel matrix, in bytes, `fit` may allocate (default 2 GiB).
    pub fn max_kernel_bytes(mut self, bytes: u128) -> Self {
        self.0.max_kernel_bytes = bytes;
        self
    }
    /// `check()` then [`KernelSvmValidParams::fit`].
    pub fn fit<'a, K: KernelFunction>(
        self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
    ) -> Result<KernelSvm<K>> {
        self.check()?.fit(kernel, x, labels)
    }
}

impl KernelSvmValidParams {
    fn validate(&self) -> Result<()> {
        let bias = match self.intercept {
            KernelIntercept::Penalised(b) => Some(b),
            _ => None,
        };
        check_svm_params(self.c, self.eps, Some(self.max_iter), bias)
    }

    /// Fits on rows `x` (dense or CSR) with integer class labels.
    pub fn fit<'a, K: KernelFunction>(
        &self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
    ) -> Result<KernelSvm<K>> {
        let x = x.into();
        check_training(&x, labels.len(), self.max_kernel_bytes)?;
        let mut classes = labels.to_vec();
        classes.sort_unstable();
        classes.dedup();
        if classes.len() < 2 {
            return Err(LearnerError::SingleClass { label: classes[0] });
        }
        let mut k = gram(&kernel, x);
        let b2 = match self.intercept {
            KernelIntercept::Penalised(b) => b * b,
            KernelIntercept::None | KernelIntercept::Free => 0.0,
        };
        if b2 > 0.0 {
            k.mapv_inplace(|v| v + b2);
        }
        let positives: Vec<i64> = if classes.len() == 2 {
            vec![classes[1]]
        } else {
            classes.clone()
        };
        let solved: Vec<(Vec<f64>, f64, ConvergenceReport)> = positives
            .par_iter()
            .enumerate()
            .map(|(m, &positive)| {
                let y: Vec<f64> = labels
                    .iter()
                    .map(|&l| if l == positive { 1.0 } else { -1.0 })
                    .collect();
                let (alpha, intercept, report) = if self.intercept == KernelIntercept::Free {
                    let steps = self.max_iter.saturating_mul(y.len());
                    let sol = solve_smo(&k, &y, self.c, self.eps, steps);
                    (sol.alpha, -sol.rho, sol.report)
                } else {
                    let (alpha, report) =
                        solve_kernel_dual(&k, &y, self, sub_seed(self.seed, m as u64));
                    (alpha, 0.0, report)
                };
                // Signed coefficients y_i alpha_i.
                let coef = alpha.iter().zip(&y).map(|(a, y)| a * y).collect();
                (coef, intercept, report)
            })
            .collect();
        let mut coef = Array2::zeros((x.n_rows(), solved.len()));
        let mut intercepts = Array1::zeros(solved.len());
        let mut reports = Vec::new();
        for (m, (c, b, r)) in solved.into_iter().enumerate() {
            coef.column_mut(m).assign(&Array1::from(c));
            intercepts[m] = b;
            reports.push(r);
        }
        Ok(KernelSvm {
            kernel,
            train: OwnedRows::from_rows(&x),
            classes,
            coef,
            bias_squared: b2,
            intercepts,
            reports,
        })
    }
}

/// Dual coordinate descent for the hinge loss on the precomputed matrix `k` (bias included):
/// the gradient `G = Q alpha - e` is kept up to date, O(n) per step.
fn solve_kernel_dual(
    k: &Array2<f64>,
    y: &[f64],
    p: &KernelSvmValidParams,
    seed: u64,
) -> (Vec<f64>, ConvergenceReport) {
    let n = y.len();
    let mut alpha = vec![0.0; n];
    let mut grad = vec![-1.0f64; n];
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut iterations, mut gap, mut converged) = (0, f64::INFINITY, false);
    while iterations < p.max_iter {
        order.shuffle(&mut rng);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        for &i in &order {
            let g = grad[i];
            let pg = if alpha[i] == 0.0 {
                g.min(0.0)
            } else if alpha[i] == p.c {
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            let qii = k[[i, i]];
            if pg.abs() > 1e-12 && qii > 0.0 {
                let old = alpha[i];
                alpha[i] = (old - g / qii).clamp(0.0, p.c);
                let step = (alpha[i] - old) * y[i];
                update_gradient(
                    &mut grad,
                    k.row(i).as_slice().expect("standard layout"),
                    y,
                    step,
                );
            }
        }
        iterations += 1;
        gap = pg_max - pg_min;
        if gap <= p.eps {
            converged = true;
            break;
        }
    }
    let objective = dual_objective(&alpha, &grad);
    let support_vectors = alpha.iter().filter(|&&a| a > 0.0).count();
    (
        alpha,
        ConvergenceReport {
            iterations,
            gap,
            objective,
            support_vectors,
            converged,
        },
    )
}

/// `G_j += step * y_j * K_ij` for every j (`Q_ij = y_i y_j K_ij`, `step = y_i delta_i`).
#[inline]
fn update_gradient(grad: &mut [f64], k_row: &[f64], y: &[f64], step: f64) {
    for ((g, &kij), &yj) in grad.iter_mut().zip(k_row).zip(y) {
        *g += step * yj * kij;
    }
}

/// A fitted kernel SVM.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSvm<K> {
    kernel: K,
    train: OwnedRows,
    classes: Vec<i64>,
    /// `n_train x n_models` coefficients `y_i alpha_i`.
    coef: Array2<f64>,
    bias_squared: f64,
    /// Free intercepts (`-rho` of LIBSVM), zero unless [`KernelIntercept::Free`].
    intercepts: Array1<f64>,
    reports: Vec<ConvergenceReport>,
}

impl<K: KernelFunction> KernelSvm<K> {
    pub fn classes(&self) -> &[i64] {
        &self.classes
    }
    pub fn reports(&self) -> &[ConvergenceReport] {
        &self.reports
    }
    pub fn converged(&self) -> bool {
        self.reports.iter().all(|r| r.converged)
    }
    /// The free intercept of each model (LIBSVM's `-rho`); zero unless [`KernelIntercept::Free`].
    pub fn intercepts(&self) -> &Array1<f64> {
        &self.intercepts
    }
    /// `n x n_models` decision values `sum_i y_i alpha_i (k(x_i, x) + b^2) + intercept`.
    pub fn decision_function<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Array2<f64>> {
        let x = x.into();
        let train = self.train.rows();
        check_input(&x, train.n_cols())?;
        let mut k = kernel_matrix(&self.kernel, x, train);
        k.mapv_inplace(|v| v + self.bias_squared);
        Ok(k.dot(&self.coef) + self.intercepts.view().insert_axis(Axis(0)))
    }
    pub fn predict<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Vec<i64>> {
        let decisions = self.decision_function(x)?;
        Ok(one_vs_rest_labels(&self.classes, &decisions))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_baselines::tests::{data, linear};
    use crate::{Kernel, LinearSvmParams, SvmLoss};
    use rand::Rng;
    use rfbench_maps::{CsrMatrix, Row};
    #[test]
    fn kernel_svm_with_linear_kernel_equals_linear_svm() {
        let (x, labels) = data(60, 4, 4);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for c in [0.5, 5.0] {
            let ksvm = KernelSvmParams::new()
                .c(c)
                .eps(1e-11)
                .max_iter(100_000)
                .fit(linear, &csr, &labels)
                .unwrap();
            let lsvm = LinearSvmParams::new()
                .c(c)
                .loss(SvmLoss::L1)
                .eps(1e-11)
                .max_iter(100_000)
                .fit(&x, &labels)
                .unwrap();
            assert!(ksvm.converged());
            // Same problem (bias 1 appended vs k + 1), two independent solvers at a tight
            // tolerance: the unique primal optimum, hence decision values, agree.
            let a = ksvm.decision_function(&x).unwrap();
            let b = lsvm.decision_function(&x).unwrap();
            assert!((&a - &b).iter().all(|e| e.abs() < 1e-7), "C = {c}");
            let (ko, lo) = (ksvm.reports()[0].objective, lsvm.reports()[0].objective);
            assert!((ko - lo).abs() < 1e-9 * lo.abs(), "{ko} vs {lo}");
            assert_eq!(ksvm.predict(&x).unwrap(), lsvm.predict(&x).unwrap());
        }
    }

    /// SMO (free intercept) closes the duality gap: with `w = sum y_i a_i phi(x_i)` and the
    /// intercept `-rho`, the primal `1/2 |w|^2 + C sum hinge` equals minus the dual objective, the
    /// equality constraint holds and every free `a_i` sits on the margin.
    #[test]
    fn smo_closes_the_duality_gap_with_a_free_intercept() {
        let (x, labels) = data(80, 3, 7);
        let poly = Kernel::libsvm_polynomial(3, 0.5, 1.0).unwrap();
        for c in [0.3, 4.0] {
            let svm = KernelSvmParams::new()
                .c(c)
                .eps(1e-10)
                .intercept(KernelIntercept::Free)
                .fit(poly, &x, &labels)
                .unwrap();
            let report = &svm.reports()[0];
            assert!(report.converged, "{report:?}");
            let y: Vec<f64> = labels
                .iter()
                .map(|&l| if l == 1 { 1.0 } else { -1.0 })
                .collect();
            let coef = svm.coef.column(0);
            let alpha: Vec<f64> = coef.iter().zip(&y).map(|(a, y)| a * y).collect();
            assert!(alpha.iter().all(|&a| (0.0..=c).contains(&a)));
            assert!(coef.sum().abs() < 1e-12, "y'a = {}", coef.sum());
            let k = gram(&poly, Rows::Dense(x.view()));
            let f = svm.decision_function(&x).unwrap();
            let w2 = coef.dot(&k.dot(&coef));
            let hinge: f64 = (0..80).map(|i| (1.0 - y[i] * f[[i, 0]]).max(0.0)).sum();
            let primal = 0.5 * w2 + c * hinge;
            let dual = -report.objective;
            // At gap 1e-10 both sides agree to rounding of sums of ~80 terms of size ~10.
            assert!(
                (primal - dual).abs() < 1e-7 * dual.abs(),
                "{primal} vs {dual}"
            );
            for i in 0..80 {
                if alpha[i] > 1e-9 && alpha[i] < c - 1e-9 {
                    assert!((y[i] * f[[i, 0]] - 1.0).abs() < 1e-8, "row {i}");
                }
            }
        }
    }

    #[test]
    fn kernel_svm_is_deterministic_across_threads_and_handles_three_classes() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let centres = [[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0]];
        let x = Array2::from_shape_fn((60, 2), |(i, j)| {
            centres[i % 3][j] + rng.random_range(-0.7..0.7)
        });
        let labels: Vec<i64> = (0..60).map(|i| (i % 3) as i64).collect();
        let gaussian = |a: &Row<'_>, b: &Row<'_>| (-(a.dot(a) + b.dot(b) - 2.0 * a.dot(b))).exp();
        let fit = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| KernelSvmParams::new().fit(gaussian, &x, &labels).unwrap())
        };
        let one = fit(1);
        assert_eq!(one.coef, fit(3).coef);
        assert!(one.converged());
        assert_eq!(one.predict(&x).unwrap(), labels);
    }

    #[test]
    fn size_limit_and_bad_input_are_typed_errors() {
        let (x, labels) = data(10, 3, 6);
        assert_eq!(
            KernelSvmParams::new()
                .max_kernel_bytes(799)
                .fit(linear, &x, &labels)
                .map(|_| ()),
            Err(LearnerError::KernelTooLarge {
                rows: 10,
                bytes: 800,
                limit: 799
            })
        );
        assert!(KernelSvmParams::new()
            .max_kernel_bytes(800)
            .fit(linear, &x, &labels)
            .is_ok());
        assert!(matches!(
            KernelSvmParams::new().c(0.0).check(),
            Err(LearnerError::InvalidC(_))
        ));
        assert!(matches!(
            KernelSvmParams::new().fit(linear, &x, &[1; 10]),
            Err(LearnerError::SingleClass { label: 1 })
        ));
        assert!(matches!(
            KernelSvmParams::new().fit(linear, &x, &labels[..3]),
            Err(LearnerError::LengthMismatch {
                rows: 10,
                labels: 3
            })
        ));
    }
}
