//! The exact kernel SVM at LIBSVM's scale: [`CachedKernelSvm`] solves LIBSVM's C-SVC problem
//! (`svm-train -s 0`) — hinge loss, free intercept, `min 1/2 a'Q a - e'a` subject to
//! `0 <= a <= C`, `y'a = 0` — by LIBSVM's SMO with a bounded kernel-row cache and shrinking
//! (see [`crate::smo_cached`]), so that memory is the cache size plus `O(n)` instead of the
//! `8 n^2` bytes of the full-matrix kernel SVM (`KernelSvm`, feature `full-matrix-svm`, the
//! reference it is tested against), and the dual objective, `rho` and support vectors can be
//! compared with `svm-train`'s.
//!
//! - Cache: `cache_bytes` (default [`DEFAULT_CACHE_BYTES`], 200 MiB: LIBSVM's default 100 MB
//!   `-m` holds single-precision values, this cache double-precision ones, so 200 MiB holds the
//!   same number of rows). It must hold two kernel rows of the largest two-class problem.
//!   Results do not depend on the cache size, only the time does.
//! - Multi-class: one-vs-one, as LIBSVM: one problem per pair of classes on the rows of the two
//!   classes, then a vote; ties go to the smaller label (LIBSVM: the class seen first). Of each
//!   pair the larger label is the positive class (decision value `> 0`), the convention of the
//!   two-class models of [`crate::LinearSvm`]. Pairs are trained in parallel; the cache budget is
//!   shared evenly among the pairs that can run at once (`min(pairs, rayon threads)`), each
//!   getting at least two of its rows.
//! - Prediction goes through the support vectors only (the union over pairs, whose kernel values
//!   with a test row are computed once), in parallel over test rows.
//! - Every step's result is independent of the thread count: kernel rows are filled entry by
//!   entry, pairs are independent problems, test rows are independent.
//!
//! Cost: per SMO step `O(active)` plus `O(active d)` for each kernel row missing from the cache;
//! prediction `O(n_SV d)` per test row.

use ndarray::{Array2, ArrayView1, Axis};
use rayon::prelude::*;
use rfbench_maps::{CsrMatrix, Row, Rows};

use crate::error::{check_svm_params, LearnerError, Result};
use crate::kernel_baselines::KernelFunction as Kernel;
use crate::kernel_cache::ENTRY_BYTES;
use crate::params::param_guard;
use crate::prediction::{check_finite, check_input};
use crate::smo_cached::{solve_cached, SmoReport, SmoSettings};

/// 200 MiB: as many double-precision rows as LIBSVM's default 100 MB cache of single-precision
/// ones.
pub const DEFAULT_CACHE_BYTES: u64 = 200 << 20;

/// Unchecked hyper-parameters of [`CachedKernelSvm`] (builder setters), checked by
/// [`check`](Self::check) into [`CachedKernelSvmValidParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct CachedKernelSvmParams(CachedKernelSvmValidParams);

/// Hyper-parameters that passed [`CachedKernelSvmParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct CachedKernelSvmValidParams {
    c: f64,
    eps: f64,
    cache_bytes: u64,
    shrinking: bool,
    max_steps: Option<usize>,
}

impl Default for CachedKernelSvmParams {
    fn default() -> Self {
        Self(CachedKernelSvmValidParams {
            c: 1.0,
            eps: 1e-3,
            cache_bytes: DEFAULT_CACHE_BYTES,
            shrinking: true,
            max_steps: None,
        })
    }
}

param_guard!(CachedKernelSvmParams => CachedKernelSvmValidParams);

impl CachedKernelSvmParams {
    /// Cost `C > 0` (default 1; `svm-train -c`).
    pub fn c(mut self, c: f64) -> Self {
        self.0.c = c;
        self
    }
    /// Stop when the maximal violating pair's gap is below `eps > 0` (default 1e-3;
    /// `svm-train -e`).
    pub fn eps(mut self, eps: f64) -> Self {
        self.0.eps = eps;
        self
    }
    /// Kernel cache size in bytes (default [`DEFAULT_CACHE_BYTES`]).
    pub fn cache_bytes(mut self, bytes: u64) -> Self {
        self.0.cache_bytes = bytes;
        self
    }
    /// Kernel cache size in LIBSVM's megabytes (2^20 bytes; `svm-train -m`).
    pub fn cache_megabytes(self, mb: u64) -> Self {
        self.cache_bytes(mb.saturating_mul(1 << 20))
    }
    /// LIBSVM's shrinking heuristic (default on; `svm-train -h`).
    pub fn shrinking(mut self, shrinking: bool) -> Self {
        self.0.shrinking = shrinking;
        self
    }
    /// Most SMO steps per two-class problem (default LIBSVM's `max(10^7, 100 l)` for `l` rows).
    /// A run stopped by it reports `converged = false`.
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.0.max_steps = Some(steps);
        self
    }
    /// `check()` then [`CachedKernelSvmValidParams::fit`].
    pub fn fit<'a, K: Kernel>(
        self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
    ) -> Result<CachedKernelSvm<K>> {
        self.check()?.fit(kernel, x, labels)
    }
}

/// The rows of one two-class problem: data rows of classes `negative < positive`.
struct PairProblem {
    negative: usize,
    positive: usize,
    rows: Vec<usize>,
    y: Vec<f64>,
}

impl CachedKernelSvmValidParams {
    fn validate(&self) -> Result<()> {
        check_svm_params(self.c, self.eps, self.max_steps, None)?;
        if self.cache_bytes == 0 {
            return Err(LearnerError::InvalidCacheSize(0));
        }
        Ok(())
    }

    /// Fits on rows `x` (dense or CSR) with integer class labels.
    pub fn fit<'a, K: Kernel>(
        &self,
        kernel: K,
        x: impl Into<Rows<'a>>,
        labels: &[i64],
    ) -> Result<CachedKernelSvm<K>> {
        let x = x.into();
        let n = x.n_rows();
        if n == 0 {
            return Err(LearnerError::EmptyData);
        }
        if x.n_cols() == 0 {
            return Err(LearnerError::NoFeatures);
        }
        if labels.len() != n {
            return Err(LearnerError::LengthMismatch {
                rows: n,
                labels: labels.len(),
            });
        }
        check_finite(&x)?;
        let mut classes = labels.to_vec();
        classes.sort_unstable();
        classes.dedup();
        if classes.len() < 2 {
            return Err(LearnerError::SingleClass { label: classes[0] });
        }
        let class_of: Vec<usize> = labels
            .iter()
            .map(|l| classes.binary_search(l).expect("label among classes"))
            .collect();
        let mut problems = Vec::new();
        for a in 0..classes.len() {
            for b in a + 1..classes.len() {
                let rows: Vec<usize> = (0..n)
                    .filter(|&t| class_of[t] == a || class_of[t] == b)
                    .collect();
                let y = rows
                    .iter()
                    .map(|&t| if class_of[t] == b { 1.0 } else { -1.0 })
                    .collect();
                problems.push(PairProblem {
                    negative: a,
                    positive: b,
                    rows,
                    y,
                });
            }
        }
        let largest = problems.iter().map(|q| q.rows.len()).max().expect("a pair");
        let needed = 2 * largest as u64 * ENTRY_BYTES;
        if self.cache_bytes < needed {
            return Err(LearnerError::CacheTooSmall {
                bytes: self.cache_bytes,
                rows: largest,
                needed,
            });
        }
        let concurrent = problems.len().min(rayon::current_num_threads()).max(1) as u64;
        let solved: Vec<_> = problems
            .par_iter()
            .map(|q| {
                let l = q.rows.len();
                let settings = SmoSettings {
                    c: self.c,
                    eps: self.eps,
                    shrinking: self.shrinking,
                    max_steps: self
                        .max_steps
                        .unwrap_or(l.saturating_mul(100).max(10_000_000)),
                    cache_bytes: (self.cache_bytes / concurrent).max(2 * l as u64 * ENTRY_BYTES),
                };
                solve_cached(&kernel, x, &q.rows, &q.y, &settings)
            })
            .collect();
        // Support vectors: the union over pairs, in training order.
        let mut is_support = vec![false; n];
        for (q, s) in problems.iter().zip(&solved) {
            for (&t, &a) in q.rows.iter().zip(&s.alpha) {
                is_support[t] |= a > 0.0;
            }
        }
        let support_indices: Vec<usize> = (0..n).filter(|&t| is_support[t]).collect();
        let mut position = vec![usize::MAX; n];
        for (k, &t) in support_indices.iter().enumerate() {
            position[t] = k;
        }
        let mut models = Vec::with_capacity(problems.len());
        let mut reports = Vec::with_capacity(problems.len());
        for (q, s) in problems.into_iter().zip(solved) {
            let (mut sv, mut coef) = (Vec::new(), Vec::new());
            for ((&t, &a), &y) in q.rows.iter().zip(&s.alpha).zip(&q.y) {
                if a > 0.0 {
                    sv.push(position[t]);
                    coef.push(y * a);
                }
            }
            models.push(PairModel {
                negative: q.negative,
                positive: q.positive,
                support: sv,
                coef,
                rho: s.report.rho,
            });
            reports.push(s.report);
        }
        let support = match x {
            Rows::Dense(v) => SupportRows::Dense(v.select(Axis(0), &support_indices)),
            Rows::Sparse(m) => SupportRows::Sparse(m.select_rows(&support_indices)),
        };
        Ok(CachedKernelSvm {
            kernel,
            classes,
            support,
            support_indices,
            models,
            reports,
        })
    }
}

/// The support vectors a fitted model keeps.
#[derive(Debug, Clone, PartialEq)]
enum SupportRows {
    Dense(Array2<f64>),
    Sparse(CsrMatrix),
}

impl SupportRows {
    fn rows(&self) -> Rows<'_> {
        match self {
            SupportRows::Dense(a) => Rows::Dense(a.view()),
            SupportRows::Sparse(m) => Rows::Sparse(m),
        }
    }
}

/// One two-class decision function `sum_s coef_s k(sv_s, x) - rho`.
#[derive(Debug, Clone, PartialEq)]
struct PairModel {
    negative: usize,
    positive: usize,
    /// Positions in the model's support-vector union.
    support: Vec<usize>,
    /// `y_s a_s`.
    coef: Vec<f64>,
    rho: f64,
}

/// A kernel SVM fitted by [`CachedKernelSvmParams`]: one-vs-one two-class models over a shared
/// set of support vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedKernelSvm<K> {
    kernel: K,
    classes: Vec<i64>,
    support: SupportRows,
    support_indices: Vec<usize>,
    models: Vec<PairModel>,
    reports: Vec<SmoReport>,
}

impl<K: Kernel> CachedKernelSvm<K> {
    /// The class labels, ascending.
    pub fn classes(&self) -> &[i64] {
        &self.classes
    }
    /// `(negative, positive)` labels of each two-class model, in the order of
    /// [`Self::reports`] and of the columns of [`Self::decision_function`].
    pub fn class_pairs(&self) -> Vec<(i64, i64)> {
        self.models
            .iter()
            .map(|m| (self.classes[m.negative], self.classes[m.positive]))
            .collect()
    }
    /// How each two-class problem's solver ended.
    pub fn reports(&self) -> &[SmoReport] {
        &self.reports
    }
    /// Whether every two-class problem met `eps` before its step cap.
    pub fn converged(&self) -> bool {
        self.reports.iter().all(|r| r.converged)
    }
    /// Training rows that are support vectors of at least one model, ascending.
    pub fn support_vector_indices(&self) -> &[usize] {
        &self.support_indices
    }
    /// `n x n_pairs` decision values `sum_s y_s a_s k(x_s, x) - rho`; positive favours the pair's
    /// larger label.
    pub fn decision_function<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Array2<f64>> {
        let x = x.into();
        let support = self.support.rows();
        check_input(&x, support.n_cols())?;
        let mut out = Array2::zeros((x.n_rows(), self.models.len()));
        let n_sv = support.n_rows();
        // As in training: a kernel that is a function of dot products gets one dot product per
        // value, the test row in dense form when it is sparse (a gather over the support row).
        let form = self.kernel.dot_form();
        let sv_norms: Vec<f64> = match form {
            Some(f) if f.dot_form().1 => (0..n_sv)
                .map(|s| support.row(s).dot(&support.row(s)))
                .collect(),
            _ => vec![0.0; n_sv],
        };
        let scatter = matches!(x, Rows::Sparse(_)) && form.is_some();
        let width = if scatter { x.n_cols() } else { 0 };
        out.axis_iter_mut(Axis(0))
            .into_par_iter()
            .enumerate()
            .for_each_init(
                || (vec![0.0; n_sv], vec![0.0; width]),
                |(k, dense), (t, mut o)| {
                    let xt = x.row(t);
                    match form {
                        Some(f) => {
                            let values = |row: &Row<'_>, k: &mut [f64]| {
                                let tt = if f.dot_form().1 { row.dot(row) } else { 0.0 };
                                for (s, v) in k.iter_mut().enumerate() {
                                    let sv = support.row(s);
                                    *v = f
                                        .from_dots(sv.dot(row), sv_norms[s], tt)
                                        .unwrap_or_else(|| self.kernel.eval(&sv, row));
                                }
                            };
                            if scatter {
                                xt.for_each_nonzero(|j, v| dense[j] = v);
                                values(&Row::Dense(ArrayView1::from(&dense[..])), k);
                                xt.for_each_nonzero(|j, _| dense[j] = 0.0);
                            } else {
                                values(&xt, k);
                            }
                        }
                        None => {
                            for (s, v) in k.iter_mut().enumerate() {
                                *v = self.kernel.eval(&support.row(s), &xt);
                            }
                        }
                    }
                    for (m, model) in self.models.iter().enumerate() {
                        o[m] = pair_decision(&model.support, &model.coef, k) - model.rho;
                    }
                },
            );
        Ok(out)
    }
    /// Predicted labels: the pair's winner for two classes, else the one-vs-one vote.
    pub fn predict<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Vec<i64>> {
        let dec = self.decision_function(x)?;
        let mut votes = vec![0usize; self.classes.len()];
        Ok(dec
            .rows()
            .into_iter()
            .map(|r| {
                votes.iter_mut().for_each(|v| *v = 0);
                for (m, &d) in self.models.iter().zip(r) {
                    votes[if d > 0.0 { m.positive } else { m.negative }] += 1;
                }
                // First maximum: ties go to the smaller label.
                let mut best = 0;
                for c in 1..votes.len() {
                    if votes[c] > votes[best] {
                        best = c;
                    }
                }
                self.classes[best]
            })
            .collect())
    }
}

/// `sum_s coef_s k[support_s]`.
fn pair_decision(support: &[usize], coef: &[f64], k: &[f64]) -> f64 {
    support.iter().zip(coef).map(|(&s, &a)| a * k[s]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_svm::{KernelIntercept, KernelSvmParams};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rfbench_maps::Row;

    fn gaussian(a: &Row<'_>, b: &Row<'_>) -> f64 {
        (-(a.dot(a) + b.dot(b) - 2.0 * a.dot(b))).exp()
    }

    /// Three overlapping blobs in the plane, labels 7, -2, 4 in turn.
    fn blobs(n: usize, seed: u64) -> (Array2<f64>, Vec<i64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let centres = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.2]];
        let x = Array2::from_shape_fn((n, 2), |(i, j)| {
            centres[i % 3][j] + rng.random_range(-0.9..0.9)
        });
        (x, (0..n).map(|i| [7, -2, 4][i % 3]).collect())
    }

    /// Two classes: the free-intercept full-matrix `KernelSvm` solves the same problem.
    #[test]
    fn two_classes_match_the_full_matrix_kernel_svm() {
        let (x, labels) = blobs(120, 1);
        let keep: Vec<usize> = (0..120).filter(|i| i % 3 != 2).collect();
        let x = x.select(Axis(0), &keep);
        let labels: Vec<i64> = keep.iter().map(|&i| labels[i]).collect();
        let poly = rfbench_maps::Kernel::libsvm_polynomial(3, 0.7, 1.0).unwrap();
        let ours = CachedKernelSvmParams::new()
            .c(3.0)
            .eps(1e-9)
            .cache_bytes(2 * 80 * 8)
            .fit(poly, &x, &labels)
            .unwrap();
        let full = KernelSvmParams::new()
            .c(3.0)
            .eps(1e-9)
            .intercept(KernelIntercept::Free)
            .fit(poly, &x, &labels)
            .unwrap();
        let (a, b) = (ours.reports()[0].objective, full.reports()[0].objective);
        assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
        assert_eq!(ours.class_pairs(), [(-2, 7)]);
        let (da, db) = (
            ours.decision_function(&x).unwrap(),
            full.decision_function(&x).unwrap(),
        );
        // Decision values of O(1) from optima 1e-9 apart (and a polynomial kernel, whose
        // optimal alpha need not be unique: compare functions, not coefficients).
        assert!((&da - &db).iter().all(|e| e.abs() < 1e-5));
        assert_eq!(ours.predict(&x).unwrap(), full.predict(&x).unwrap());
        assert_eq!(
            ours.support_vector_indices().len(),
            ours.reports()[0].support_vectors
        );
    }

    /// The Gaussian through its dot-product form (squared norms, gathers over sparse rows) solves
    /// the problem the full-matrix solver solves with the kernel evaluated directly, on dense and
    /// on sparse rows, and predicts the same on either.
    #[test]
    fn the_gaussian_dot_form_matches_the_direct_kernel_dense_and_sparse() {
        let (x, labels) = blobs(120, 4);
        let keep: Vec<usize> = (0..120).filter(|i| i % 3 != 1).collect();
        let x = x.select(Axis(0), &keep);
        let labels: Vec<i64> = keep.iter().map(|&i| labels[i]).collect();
        let sparse = CsrMatrix::from_dense(x.view()).unwrap();
        let gaussian = rfbench_maps::Kernel::gaussian(0.7).unwrap();
        let full = KernelSvmParams::new()
            .c(2.0)
            .eps(1e-9)
            .intercept(KernelIntercept::Free)
            .fit(gaussian, &x, &labels)
            .unwrap();
        let reference = full.decision_function(&x).unwrap();
        let b = full.reports()[0].objective;
        for ours in [
            CachedKernelSvmParams::new()
                .c(2.0)
                .eps(1e-9)
                .cache_bytes(3 * 80 * 8)
                .fit(gaussian, &x, &labels)
                .unwrap(),
            CachedKernelSvmParams::new()
                .c(2.0)
                .eps(1e-9)
                .cache_bytes(3 * 80 * 8)
                .fit(gaussian, &sparse, &labels)
                .unwrap(),
        ] {
            let a = ours.reports()[0].objective;
            assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
            for d in [
                ours.decision_function(&x).unwrap(),
                ours.decision_function(&sparse).unwrap(),
            ] {
                assert!((&d - &reference).iter().all(|e| e.abs() < 1e-6));
            }
            assert_eq!(ours.predict(&sparse).unwrap(), full.predict(&x).unwrap());
        }
    }

    /// One-vs-one: each pair's model is the two-class model of that pair's rows, and the vote of
    /// the pairs is the prediction; dense and CSR input agree; thread count changes nothing.
    #[test]
    fn one_vs_one_is_the_pairwise_models_and_their_vote() {
        let (x, labels) = blobs(150, 2);
        let params = CachedKernelSvmParams::new().c(2.0).cache_bytes(2 * 100 * 8);
        let on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| params.clone().fit(gaussian, &x, &labels).unwrap())
        };
        let (model, three) = (on(1), on(3));
        assert_eq!(model.models, three.models);
        assert_eq!(model.reports(), three.reports());
        assert!(model.converged());
        assert_eq!(model.classes(), [-2, 4, 7]);
        assert_eq!(model.class_pairs(), [(-2, 4), (-2, 7), (4, 7)]);
        let dec = model.decision_function(&x).unwrap();
        for (m, (neg, pos)) in model.class_pairs().into_iter().enumerate() {
            let keep: Vec<usize> = (0..150)
                .filter(|&i| labels[i] == neg || labels[i] == pos)
                .collect();
            let sub_labels: Vec<i64> = keep.iter().map(|&i| labels[i]).collect();
            let pair = params
                .clone()
                .fit(gaussian, &x.select(Axis(0), &keep), &sub_labels)
                .unwrap();
            assert_eq!(pair.reports()[0], model.reports()[m]);
            let expect = pair.decision_function(&x).unwrap();
            // Same alphas; the sums over support vectors run in a different order.
            assert!(dec
                .column(m)
                .iter()
                .zip(expect.column(0))
                .all(|(a, b)| (a - b).abs() < 1e-12));
        }
        let predicted = model.predict(&x).unwrap();
        for (t, &p) in predicted.iter().enumerate() {
            let mut votes = [(0, -2), (0, 4), (0, 7)];
            for (m, (neg, pos)) in model.class_pairs().into_iter().enumerate() {
                let winner = if dec[[t, m]] > 0.0 { pos } else { neg };
                votes.iter_mut().find(|v| v.1 == winner).unwrap().0 += 1;
            }
            let top = votes.iter().map(|v| v.0).max().unwrap();
            assert_eq!(p, votes.iter().find(|v| v.0 == top).unwrap().1);
        }
        let accuracy = predicted
            .iter()
            .zip(&labels)
            .filter(|(a, b)| a == b)
            .count();
        assert!(accuracy > 120, "{accuracy} of 150");
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let sparse = params.clone().fit(gaussian, &csr, &labels).unwrap();
        assert_eq!(
            sparse.support_vector_indices(),
            model.support_vector_indices()
        );
        assert_eq!(sparse.predict(&csr).unwrap(), predicted);
    }

    #[test]
    fn bad_parameters_and_input_are_typed_errors() {
        let (x, labels) = blobs(30, 3);
        let p = CachedKernelSvmParams::new;
        assert_eq!(p().c(0.0).check(), Err(LearnerError::InvalidC(0.0)));
        assert_eq!(p().c(-1.0).check(), Err(LearnerError::InvalidC(-1.0)));
        assert!(matches!(
            p().eps(f64::NAN).check(),
            Err(LearnerError::InvalidTolerance(_))
        ));
        assert_eq!(
            p().cache_bytes(0).check(),
            Err(LearnerError::InvalidCacheSize(0))
        );
        assert_eq!(p().max_steps(0).check(), Err(LearnerError::ZeroMaxIter(0)));
        // The largest pair has 20 rows: two rows are 320 bytes.
        assert_eq!(
            p().cache_bytes(319).fit(gaussian, &x, &labels).map(|_| ()),
            Err(LearnerError::CacheTooSmall {
                bytes: 319,
                rows: 20,
                needed: 320
            })
        );
        assert!(p().cache_bytes(320).fit(gaussian, &x, &labels).is_ok());
        assert_eq!(
            p().fit(gaussian, &Array2::zeros((0, 2)), &[]).map(|_| ()),
            Err(LearnerError::EmptyData)
        );
        assert_eq!(
            p().fit(gaussian, &x, &[4; 30]).map(|_| ()),
            Err(LearnerError::SingleClass { label: 4 })
        );
        assert_eq!(
            p().fit(gaussian, &x, &labels[..5]).map(|_| ()),
            Err(LearnerError::LengthMismatch {
                rows: 30,
                labels: 5
            })
        );
        let mut nan = x.clone();
        nan[[3, 1]] = f64::NAN;
        assert!(matches!(
            p().fit(gaussian, &nan, &labels),
            Err(LearnerError::NonFinite { row: 3, col: 1, .. })
        ));
        let model = p().fit(gaussian, &x, &labels).unwrap();
        assert!(matches!(
            model.predict(&nan),
            Err(LearnerError::NonFinite { row: 3, col: 1, .. })
        ));
        assert_eq!(
            model.predict(&Array2::zeros((1, 3))),
            Err(LearnerError::DimensionMismatch {
                expected: 2,
                got: 3
            })
        );
    }

    #[test]
    fn a_step_cap_shows_in_the_model() {
        let (x, labels) = blobs(60, 4);
        let model = CachedKernelSvmParams::new()
            .max_steps(3)
            .fit(gaussian, &x, &labels)
            .unwrap();
        assert!(!model.converged());
        assert!(model
            .reports()
            .iter()
            .all(|r| !r.converged && r.iterations == 3));
    }
}
