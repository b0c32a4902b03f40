//! Linear SVM classifier trained by dual coordinate descent ([`crate::dual_cd`], LIBLINEAR's
//! `-s 1` / `-s 3`) or, for the squared hinge loss, by the primal trust-region Newton method
//! ([`crate::primal`], LIBLINEAR's `-s 2`), with LIBLINEAR's conventions so that results can be
//! compared with it:
//!
//! - primal problem `min_w 1/2 |w|^2 + sum_i C_i loss(y_i w'x_i)` with the hinge (L1) or squared
//!   hinge (L2) loss; defaults `C = 1`, L2 loss, `max_iter = 1000`, and LIBLINEAR's tolerance of
//!   the solver (`eps = 0.1` dual, `0.01` primal);
//! - the solver: dual, primal, or [`Solver::Auto`]: the primal method when there are at least as
//!   many rows as columns (scikit-learn's `LinearSVC(dual="auto")` rule); with fewer rows, dual
//!   coordinate descent for at most [`AUTO_DUAL_PASSES`] passes, then, if it has not converged,
//!   the primal method from the start (the dual method's passes to convergence depend on the
//!   data's conditioning, not only its shape: measured in docs/performance.md);
//! - bias as an appended constant feature of value `bias` (default 1, LIBLINEAR's `-B 1`): the bias
//!   weight is regularised like every other weight;
//! - class weights multiply `C` (LIBLINEAR's `-wi`): in the binary case rows of class `c` get
//!   `C * weight(c)`; in one-vs-rest the positive rows of the sub-problem for class `c` get
//!   `C * weight(c)` and the negative rows get `C`;
//! - two classes: one model, whose positive side is the larger label; more classes: one-vs-rest,
//!   prediction by the largest decision value.
//!
//! Each sub-problem's seed is derived from the master seed and the class's position, and the
//! sub-problems are solved in parallel: the result does not depend on the thread count.

use ndarray::{Array1, Array2, ArrayView2};
use rayon::prelude::*;
use rfbench_maps::Rows;

use crate::dual_cd::{
    solve_dual, ConvergenceReport, DenseRows, DualRows, DualSettings, SparseRows, SvmLoss,
};
use crate::error::{check_svm_params, LearnerError, Result};
use crate::params::param_guard;
use crate::prediction::{check_finite, check_input, one_vs_rest_labels};
use crate::primal::{liblinear_tolerance, solve_primal, PrimalLoss, PrimalProblem, PrimalRows};
use rfbench_maps::seeds::sub_seed;

/// LIBLINEAR's default tolerance of the dual solvers (`-s 1`, `-s 3`).
pub const DUAL_EPS: f64 = 0.1;
/// LIBLINEAR's default tolerance of the primal solvers (`-s 0`, `-s 2`).
pub const PRIMAL_EPS: f64 = 0.01;
/// [`Solver::Auto`] takes the primal method when `n >= AUTO_PRIMAL_RATIO * d`: on every shape of
/// the catalogue with more rows than columns it was the faster one, 2.6x to 89x
/// (docs/performance.md).
pub const AUTO_PRIMAL_RATIO: usize = 1;
/// With fewer rows than that, [`Solver::Auto`] gives dual coordinate descent this many passes
/// before it falls back to the primal method.
pub const AUTO_DUAL_PASSES: usize = 50;

/// Which method trains a [`LinearSvm`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// Dual coordinate descent (LIBLINEAR `-s 1`, `-s 3`).
    #[default]
    Dual,
    /// Primal trust-region Newton (LIBLINEAR `-s 2`); squared hinge loss only.
    Primal,
    /// By shape and convergence: [`LinearSvmValidParams::solver_for`].
    Auto,
}

impl Solver {
    /// The name specs and result files give it.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Dual => "dual",
            Solver::Primal => "primal",
            Solver::Auto => "auto",
        }
    }

    /// The solver of that [`name`](Self::name), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        [Solver::Dual, Solver::Primal, Solver::Auto]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// Unchecked hyper-parameters of [`LinearSvm`] (builder setters), checked by
/// [`check`](Self::check) into [`LinearSvmValidParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSvmParams(LinearSvmValidParams);

/// Hyper-parameters that passed [`LinearSvmParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSvmValidParams {
    pub(crate) c: f64,
    pub(crate) loss: SvmLoss,
    /// `None`: the solver's LIBLINEAR default ([`DUAL_EPS`], [`PRIMAL_EPS`]).
    pub(crate) eps: Option<f64>,
    pub(crate) max_iter: usize,
    pub(crate) solver: Solver,
    pub(crate) bias: Option<f64>,
    shrinking: bool,
    pub(crate) seed: u64,
    pub(crate) class_weights: Vec<(i64, f64)>,
}

impl Default for LinearSvmParams {
    fn default() -> Self {
        Self(LinearSvmValidParams {
            c: 1.0,
            loss: SvmLoss::L2,
            eps: None,
            max_iter: 1000,
            solver: Solver::Dual,
            bias: Some(1.0),
            shrinking: true,
            seed: 0,
            class_weights: Vec::new(),
        })
    }
}

param_guard!(LinearSvmParams => LinearSvmValidParams);

impl LinearSvmParams {
    /// Cost `C > 0` (default 1).
    pub fn c(mut self, c: f64) -> Self {
        self.0.c = c;
        self
    }
    /// Hinge (L1) or squared hinge (L2, default) loss.
    pub fn loss(mut self, loss: SvmLoss) -> Self {
        self.0.loss = loss;
        self
    }
    /// Stopping tolerance, `> 0`: on the projected-gradient gap for the dual solver (default
    /// 0.1), on `|g| / |g0|` scaled as LIBLINEAR does for the primal one (default 0.01).
    pub fn eps(mut self, eps: f64) -> Self {
        self.0.eps = Some(eps);
        self
    }
    /// Dual coordinate descent (default), primal Newton, or by shape.
    pub fn solver(mut self, solver: Solver) -> Self {
        self.0.solver = solver;
        self
    }
    /// Maximum number of outer iterations, `>= 1` (default 1000, LIBLINEAR's).
    pub fn max_iter(mut self, max_iter: usize) -> Self {
        self.0.max_iter = max_iter;
        self
    }
    /// Value of the appended constant feature (`> 0`), or `None` for no bias (default `Some(1)`).
    pub fn bias(mut self, bias: Option<f64>) -> Self {
        self.0.bias = bias;
        self
    }
    /// Whether to shrink the active set (default true). Does not change the optimum.
    pub fn shrinking(mut self, shrinking: bool) -> Self {
        self.0.shrinking = shrinking;
        self
    }
    /// Seed of the random visiting order (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
    /// Multiplies `C` for the rows of class `label` by `weight > 0` (replaces an earlier weight
    /// for the same label).
    pub fn class_weight(mut self, label: i64, weight: f64) -> Self {
        self.0.class_weights.retain(|&(l, _)| l != label);
        self.0.class_weights.push((label, weight));
        self
    }

    /// `check()` then [`LinearSvmValidParams::fit`].
    pub fn fit<'a>(self, x: impl Into<Rows<'a>>, labels: &[i64]) -> Result<LinearSvm> {
        self.check()?.fit(x, labels)
    }
}

impl LinearSvmValidParams {
    fn validate(&self) -> Result<()> {
        let eps = self.eps.unwrap_or(DUAL_EPS);
        check_svm_params(self.c, eps, Some(self.max_iter), self.bias)?;
        if self.solver == Solver::Primal && self.loss == SvmLoss::L1 {
            return Err(LearnerError::PrimalNeedsSquaredHinge);
        }
        check_class_weights(&self.class_weights)
    }

    /// Trains on rows `x` (dense or sparse) with integer class labels.
    pub fn fit<'a>(&self, x: impl Into<Rows<'a>>, labels: &[i64]) -> Result<LinearSvm> {
        let x = x.into();
        let solver = self.solver_for(x.n_rows(), x.n_cols());
        let common = CommonSettings {
            c: self.c,
            class_weights: &self.class_weights,
            bias: self.bias,
            seed: self.seed,
        };
        fit_one_vs_rest(
            x,
            labels,
            &common,
            &SvmSolve {
                params: self,
                solver,
            },
        )
    }

    /// The solver `fit` starts with on `n` rows of `d` columns: the one asked for; for
    /// [`Solver::Auto`], the primal method when `n >= AUTO_PRIMAL_RATIO * d`, dual coordinate
    /// descent for the hinge loss (the primal method needs the squared hinge), else `Auto`
    /// itself: dual for [`AUTO_DUAL_PASSES`] passes, then primal if it has not converged.
    pub fn solver_for(&self, n: usize, d: usize) -> Solver {
        match self.solver {
            Solver::Auto if self.loss == SvmLoss::L1 => Solver::Dual,
            Solver::Auto if n >= AUTO_PRIMAL_RATIO * d.max(1) => Solver::Primal,
            chosen => chosen,
        }
    }
}

/// `+1` for the rows of class `positive`, `-1` for the others.
pub(crate) fn one_vs_rest_targets(labels: &[i64], positive: i64) -> Vec<f64> {
    labels
        .iter()
        .map(|&l| if l == positive { 1.0 } else { -1.0 })
        .collect()
}

/// Every class weight finite and `> 0`.
pub(crate) fn check_class_weights(weights: &[(i64, f64)]) -> Result<()> {
    match weights.iter().find(|(_, w)| !(w.is_finite() && *w > 0.0)) {
        Some(&(label, weight)) => Err(LearnerError::InvalidClassWeight { label, weight }),
        None => Ok(()),
    }
}

/// What every linear model's fit shares: cost, class weights, bias, master seed.
pub(crate) struct CommonSettings<'a> {
    pub c: f64,
    pub class_weights: &'a [(i64, f64)],
    pub bias: Option<f64>,
    pub seed: u64,
}

/// One binary sub-problem's solver: weights over the columns then the bias weight, and how it
/// ended.
pub(crate) trait BinarySolve: Sync {
    fn solve<R: DualRows>(
        &self,
        rows: &R,
        d: usize,
        y: &[f64],
        costs: (f64, f64),
        seed: u64,
    ) -> Result<Solved>;
}

/// A sub-problem's weights (columns, then the bias weight), how its solver ended, and which
/// solver it was.
pub(crate) type Solved = (Vec<f64>, ConvergenceReport, Solver);

struct SvmSolve<'a> {
    params: &'a LinearSvmValidParams,
    solver: Solver,
}

impl BinarySolve for SvmSolve<'_> {
    fn solve<R: DualRows>(
        &self,
        rows: &R,
        d: usize,
        y: &[f64],
        (c_positive, c_negative): (f64, f64),
        seed: u64,
    ) -> Result<Solved> {
        let p = self.params;
        let primal = || {
            let problem = PrimalProblem {
                rows,
                n_cols: d,
                y,
                c_positive,
                c_negative,
                bias: p.bias,
                loss: PrimalLoss::SquaredHinge,
            };
            let (w, report) = primal_report(&problem, p.eps.unwrap_or(PRIMAL_EPS), p.max_iter)?;
            Ok((w, report, Solver::Primal))
        };
        let dual = |max_iter| {
            let settings = DualSettings {
                loss: p.loss,
                c_positive,
                c_negative,
                eps: p.eps.unwrap_or(DUAL_EPS),
                max_iter,
                bias: p.bias,
                shrinking: p.shrinking,
                seed,
            };
            let solution = solve_dual(rows, d, y, &settings);
            (solution.w, solution.report, Solver::Dual)
        };
        match self.solver {
            Solver::Primal => primal(),
            Solver::Dual => Ok(dual(p.max_iter)),
            Solver::Auto => {
                let first = dual(p.max_iter.min(AUTO_DUAL_PASSES));
                if first.1.converged {
                    Ok(first)
                } else {
                    primal()
                }
            }
        }
    }
}

/// Solves a primal problem to LIBLINEAR's tolerance for `eps`, reported like the dual solver:
/// `iterations` are Newton steps, `gap` is `|g| / |g0|`, `objective` the primal `f(w)`,
/// `support_vectors` the rows with a non-zero Hessian weight.
pub(crate) fn primal_report<R: PrimalRows>(
    problem: &PrimalProblem<'_, R>,
    eps: f64,
    max_iter: usize,
) -> Result<(Vec<f64>, ConvergenceReport)> {
    let tolerance = liblinear_tolerance(eps, problem.y);
    let solution = solve_primal(problem, tolerance, max_iter)?;
    let report = ConvergenceReport {
        iterations: solution.report.iterations,
        gap: solution.report.relative_gradient,
        objective: solution.report.objective,
        support_vectors: solution.active_rows,
        converged: solution.report.converged,
    };
    Ok((solution.w, report))
}

/// Fits one model for two classes (positive side: the larger label), one per class otherwise
/// (one-vs-rest), each sub-problem by `solver`, in parallel; each sub-problem's seed comes from
/// the master seed and its position, so the result does not depend on the thread count.
pub(crate) fn fit_one_vs_rest(
    x: Rows<'_>,
    labels: &[i64],
    common: &CommonSettings<'_>,
    solver: &impl BinarySolve,
) -> Result<LinearModel> {
    let (n, d) = (x.n_rows(), x.n_cols());
    let classes = checked_classes(n, d, labels)?;
    check_finite(&x)?;
    let problems = sub_problems(&classes, common)?;
    let solutions: Vec<Solved> = match x {
        Rows::Sparse(m) => solve_all(&SparseRows(m), d, labels, &problems, common.seed, solver),
        Rows::Dense(v) => {
            let dense = v.as_standard_layout();
            let data = dense
                .as_slice()
                .expect("a standard-layout array is contiguous");
            solve_all(
                &DenseRows { data, n_cols: d },
                d,
                labels,
                &problems,
                common.seed,
                solver,
            )
        }
    }?;
    Ok(linear_model(classes, d, common.bias, solutions))
}

/// The model of the sub-problems' solutions (one row of weights and an intercept each).
pub(crate) fn linear_model(
    classes: Vec<i64>,
    d: usize,
    bias: Option<f64>,
    solutions: Vec<Solved>,
) -> LinearModel {
    let m = solutions.len();
    let mut weights = Array2::zeros((m, d));
    let mut intercepts = Array1::zeros(m);
    let mut reports = Vec::with_capacity(m);
    let mut solver = Solver::Dual;
    for (k, (w, report, used)) in solutions.into_iter().enumerate() {
        if used == Solver::Primal {
            solver = Solver::Primal;
        }
        weights
            .row_mut(k)
            .assign(&ndarray::ArrayView1::from(&w[..d]));
        if let Some(b) = bias {
            intercepts[k] = b * w[d];
        }
        reports.push(report);
    }
    LinearModel {
        classes,
        weights,
        intercepts,
        reports,
        solver,
    }
}

/// The sorted classes of `labels` for `n` rows of `d` columns: rows, columns, one label a row
/// and two classes at least, else the error.
pub(crate) fn checked_classes(n: usize, d: usize, labels: &[i64]) -> Result<Vec<i64>> {
    if n == 0 {
        return Err(LearnerError::EmptyData);
    }
    if d == 0 {
        return Err(LearnerError::NoFeatures);
    }
    if labels.len() != n {
        return Err(LearnerError::LengthMismatch {
            rows: n,
            labels: labels.len(),
        });
    }
    let classes = sorted_classes(labels);
    if classes.len() < 2 {
        return Err(LearnerError::SingleClass { label: classes[0] });
    }
    Ok(classes)
}

/// The sub-problems `(positive class, C of positives, C of negatives)`: class weights multiply C.
pub(crate) fn sub_problems(
    classes: &[i64],
    common: &CommonSettings<'_>,
) -> Result<Vec<(i64, f64, f64)>> {
    let weight_of = |label: i64| {
        common
            .class_weights
            .iter()
            .find(|&&(l, _)| l == label)
            .map_or(1.0, |&(_, w)| w)
    };
    if let Some(&(label, _)) = common
        .class_weights
        .iter()
        .find(|(l, _)| classes.binary_search(l).is_err())
    {
        return Err(LearnerError::UnknownClassWeight { label });
    }
    let c = common.c;
    Ok(if classes.len() == 2 {
        vec![(
            classes[1],
            c * weight_of(classes[1]),
            c * weight_of(classes[0]),
        )]
    } else {
        classes.iter().map(|&k| (k, c * weight_of(k), c)).collect()
    })
}

fn solve_all<R: DualRows>(
    rows: &R,
    d: usize,
    labels: &[i64],
    problems: &[(i64, f64, f64)],
    seed: u64,
    solver: &impl BinarySolve,
) -> Result<Vec<Solved>> {
    problems
        .par_iter()
        .enumerate()
        .map(|(k, &(positive, c_positive, c_negative))| {
            let y = one_vs_rest_targets(labels, positive);
            solver.solve(
                rows,
                d,
                &y,
                (c_positive, c_negative),
                sub_seed(seed, k as u64),
            )
        })
        .collect()
}

/// A trained linear model (a [`LinearSvm`] or a [`LogisticRegression`]): one weight vector and
/// intercept per model (one model for two classes, one per class otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct LinearModel {
    classes: Vec<i64>,
    weights: Array2<f64>,
    intercepts: Array1<f64>,
    reports: Vec<ConvergenceReport>,
    solver: Solver,
}

/// A linear SVM trained by [`LinearSvmParams`].
pub type LinearSvm = LinearModel;

/// L2-regularised logistic regression trained by [`crate::LogisticRegressionParams`].
pub type LogisticRegression = LinearModel;

impl LinearModel {
    /// The solver that trained it: [`Solver::Primal`] if any sub-problem was solved in the
    /// primal, else [`Solver::Dual`] (never `Auto`).
    pub fn solver(&self) -> Solver {
        self.solver
    }
    /// The class labels, sorted.
    pub fn classes(&self) -> &[i64] {
        &self.classes
    }
    /// `n_models x d` weights (without the bias weight).
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.weights.view()
    }
    /// `bias * w_bias` for every model (0 without a bias feature).
    pub fn intercepts(&self) -> &Array1<f64> {
        &self.intercepts
    }
    /// How each model's solver ended, in model order.
    pub fn reports(&self) -> &[ConvergenceReport] {
        &self.reports
    }
    /// Whether every model's solver met its tolerance.
    pub fn converged(&self) -> bool {
        self.reports.iter().all(|r| r.converged)
    }

    /// `n x n_models` decision values `w'x + b`.
    pub fn decision_function<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Array2<f64>> {
        let x = x.into();
        check_input(&x, self.weights.ncols())?;
        let m = self.weights.nrows();
        let mut out = Array2::zeros((x.n_rows(), m));
        for (i, mut o) in out.rows_mut().into_iter().enumerate() {
            let row = x.row(i);
            for k in 0..m {
                let w = self.weights.row(k);
                let mut s = self.intercepts[k];
                row.for_each_nonzero(|j, v| s += v * w[j]);
                o[k] = s;
            }
        }
        Ok(out)
    }

    /// Predicted class labels.
    pub fn predict<'a>(&self, x: impl Into<Rows<'a>>) -> Result<Vec<i64>> {
        let decisions = self.decision_function(x)?;
        Ok(one_vs_rest_labels(&self.classes, &decisions))
    }
}

/// Integer class labels from floating-point ones (as LIBSVM files store them).
pub fn class_labels_from_f64(values: &[f64]) -> Result<Vec<i64>> {
    values
        .iter()
        .enumerate()
        .map(|(row, &value)| {
            if value.is_finite() && value.fract() == 0.0 && value.abs() < 2f64.powi(53) {
                Ok(value as i64)
            } else {
                Err(LearnerError::NonIntegerLabel { row, value })
            }
        })
        .collect()
}

pub(crate) fn sorted_classes(labels: &[i64]) -> Vec<i64> {
    let mut c = labels.to_vec();
    c.sort_unstable();
    c.dedup();
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array2};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rfbench_maps::CsrMatrix;

    /// Two overlapping Gaussian clouds (so that some rows sit at the upper bound), with some exact
    /// zeros so the sparse form differs from the dense one.
    fn blobs(n: usize, d: usize, classes: i64, seed: u64) -> (Array2<f64>, Vec<i64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut x = Array2::zeros((n, d));
        let mut labels = Vec::with_capacity(n);
        for i in 0..n {
            let c = (i as i64) % classes;
            labels.push(c);
            for j in 0..d {
                if rng.random::<f64>() < 0.2 {
                    continue;
                }
                let centre = if j as i64 % classes == c { 1.0 } else { 0.0 };
                x[[i, j]] = centre + rng.random_range(-1.0..1.0);
            }
        }
        (x, labels)
    }

    /// Dual CD on the explicit matrix `Qbar`, cyclic order, no shrinking, run until alpha stops
    /// moving: the obviously-correct reference for the optimised solver.
    fn naive_dual(x: &Array2<f64>, y: &[f64], c: f64, loss: SvmLoss, bias: f64) -> Vec<f64> {
        let n = x.nrows();
        let mut xb = Array2::from_elem((n, x.ncols() + 1), bias);
        xb.slice_mut(s![.., ..x.ncols()]).assign(x);
        let (upper, diag) = match loss {
            SvmLoss::L1 => (c, 0.0),
            SvmLoss::L2 => (f64::INFINITY, 0.5 / c),
        };
        let mut q = xb.dot(&xb.t());
        for i in 0..n {
            for j in 0..n {
                q[[i, j]] *= y[i] * y[j];
            }
            q[[i, i]] += diag;
        }
        let mut alpha = vec![0.0; n];
        for _ in 0..50_000 {
            let mut change: f64 = 0.0;
            for i in 0..n {
                let g: f64 = (0..n).map(|j| q[[i, j]] * alpha[j]).sum::<f64>() - 1.0;
                let new = (alpha[i] - g / q[[i, i]]).clamp(0.0, upper);
                change = change.max((new - alpha[i]).abs());
                alpha[i] = new;
            }
            if change < 1e-13 {
                break;
            }
        }
        let mut w = vec![0.0; xb.ncols()];
        for i in 0..n {
            for j in 0..xb.ncols() {
                w[j] += y[i] * alpha[i] * xb[[i, j]];
            }
        }
        w
    }

    fn primal_objective(svm: &LinearSvm, x: &Array2<f64>, y: &[f64], c: f64, loss: SvmLoss) -> f64 {
        let w = svm.weights().row(0).to_owned();
        let b = svm.intercepts()[0];
        // With bias feature value 1 the bias weight equals the intercept.
        let mut p = 0.5 * (w.dot(&w) + b * b);
        for (row, &yi) in x.rows().into_iter().zip(y) {
            let margin = (1.0 - yi * (row.dot(&w) + b)).max(0.0);
            p += c * match loss {
                SvmLoss::L1 => margin,
                SvmLoss::L2 => margin * margin,
            };
        }
        p
    }

    #[test]
    fn matches_naive_dual_solver_and_closes_the_duality_gap() {
        let (x, labels) = blobs(60, 4, 2, 7);
        let y: Vec<f64> = labels
            .iter()
            .map(|&l| if l == 1 { 1.0 } else { -1.0 })
            .collect();
        for loss in [SvmLoss::L1, SvmLoss::L2] {
            for c in [0.3, 4.0] {
                let svm = LinearSvmParams::new()
                    .c(c)
                    .loss(loss)
                    .eps(1e-11)
                    .max_iter(100_000)
                    .fit(&x, &labels)
                    .unwrap();
                let r = &svm.reports()[0];
                assert!(r.converged && r.gap <= 1e-11, "{loss:?} {c}: {r:?}");
                let w_ref = naive_dual(&x, &y, c, loss, 1.0);
                let w = svm.weights();
                // w is unique (strictly convex primal); a projected gradient below 1e-11 puts it
                // within ~1e-9 of the optimum on this well-conditioned problem.
                for j in 0..4 {
                    assert!((w[[0, j]] - w_ref[j]).abs() < 1e-8, "{loss:?} {c} w[{j}]");
                }
                assert!((svm.intercepts()[0] - w_ref[4]).abs() < 1e-8);
                // Strong duality: primal = -dual at the optimum.
                let primal = primal_objective(&svm, &x, &y, c, loss);
                let rel = (primal + r.objective).abs() / primal;
                assert!(
                    rel < 1e-9,
                    "{loss:?} {c}: primal {primal} dual {}",
                    r.objective
                );
            }
        }
    }

    #[test]
    fn sparse_dense_and_shrinking_reach_the_same_optimum() {
        let (x, labels) = blobs(80, 6, 3, 11);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for loss in [SvmLoss::L1, SvmLoss::L2] {
            let p = LinearSvmParams::new()
                .loss(loss)
                .eps(1e-10)
                .max_iter(100_000);
            let dense = p.clone().fit(&x, &labels).unwrap();
            let sparse = p.clone().fit(&csr, &labels).unwrap();
            let plain = p.clone().shrinking(false).fit(&csr, &labels).unwrap();
            for other in [&sparse, &plain] {
                // Same optimum reached along different rounding/visiting paths: agreement to the
                // accuracy the tolerance 1e-10 guarantees on this small problem.
                let diff = (&dense.weights() - &other.weights()).mapv(f64::abs);
                assert!(diff.iter().all(|&e| e < 1e-7), "{loss:?}: {diff}");
                let di = (dense.intercepts() - other.intercepts()).mapv(f64::abs);
                assert!(di.iter().all(|&e| e < 1e-7));
            }
            // Sparse and dense rows visit the same non-zeros in the same order with the same
            // seed, so at the default tolerance they take identical steps up to rounding.
            let a = LinearSvmParams::new().loss(loss).fit(&x, &labels).unwrap();
            let b = LinearSvmParams::new()
                .loss(loss)
                .fit(&csr, &labels)
                .unwrap();
            assert_eq!(a.reports()[0].iterations, b.reports()[0].iterations);
        }
    }

    #[test]
    fn same_seed_same_model_whatever_the_thread_count() {
        let (x, labels) = blobs(90, 5, 3, 3);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let fit_with = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| LinearSvmParams::new().seed(42).fit(&csr, &labels).unwrap())
        };
        let one = fit_with(1);
        assert_eq!(one, fit_with(2));
        assert_eq!(one, fit_with(4));
        assert_eq!(one.weights().nrows(), 3);
        // The dense path and the L1 loss with class weights, 7 classes over 3 threads (so some
        // thread solves several sub-problems): bit-identical too.
        let (x, labels) = blobs(140, 4, 7, 9);
        let fit_dense = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    LinearSvmParams::new()
                        .loss(SvmLoss::L1)
                        .class_weight(3, 2.5)
                        .seed(7)
                        .fit(&x, &labels)
                        .unwrap()
                })
        };
        let one = fit_dense(1);
        assert_eq!(one, fit_dense(2));
        assert_eq!(one, fit_dense(3));
        assert_eq!(one.weights().nrows(), 7);
        // The primal Newton solvers on more rows than one block of a parallel pass (2,048), so
        // that the blocks' partial sums are split over the threads.
        let (x, labels) = blobs(5000, 6, 3, 13);
        let fit_primal = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let svm = LinearSvmParams::new()
                    .solver(Solver::Primal)
                    .fit(&x, &labels);
                let logistic = crate::LogisticRegressionParams::new().fit(&x, &labels);
                (svm.unwrap(), logistic.unwrap())
            })
        };
        let one = fit_primal(1);
        assert_eq!(one, fit_primal(2));
        assert_eq!(one, fit_primal(3));
    }

    #[test]
    fn one_vs_rest_separates_three_clusters() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let centres = [[4.0, 0.0], [-4.0, 0.0], [0.0, 4.0]];
        let mut x = Array2::zeros((150, 2));
        let mut labels = vec![];
        for i in 0..150 {
            let c = i % 3;
            for j in 0..2 {
                x[[i, j]] = centres[c][j] + rng.random_range(-1.0..1.0);
            }
            labels.push(10 + c as i64);
        }
        for loss in [SvmLoss::L1, SvmLoss::L2] {
            let svm = LinearSvmParams::new().loss(loss).fit(&x, &labels).unwrap();
            assert_eq!(svm.classes(), &[10, 11, 12]);
            assert!(svm.converged());
            assert_eq!(svm.predict(&x).unwrap(), labels);
        }
    }

    #[test]
    fn class_weights_scale_c() {
        let (x, labels) = blobs(50, 3, 2, 9);
        let weighted = LinearSvmParams::new()
            .class_weight(0, 2.5)
            .class_weight(1, 2.5)
            .fit(&x, &labels)
            .unwrap();
        let scaled = LinearSvmParams::new().c(2.5).fit(&x, &labels).unwrap();
        assert_eq!(weighted, scaled);
        // A heavy weight on class 1 moves predictions towards it.
        let plain = LinearSvmParams::new().fit(&x, &labels).unwrap();
        let heavy = LinearSvmParams::new()
            .class_weight(1, 50.0)
            .fit(&x, &labels)
            .unwrap();
        let ones = |m: &LinearSvm| m.predict(&x).unwrap().iter().filter(|&&l| l == 1).count();
        assert!(
            ones(&heavy) > ones(&plain),
            "{} vs {}",
            ones(&heavy),
            ones(&plain)
        );
    }

    #[test]
    fn max_iter_is_reported_not_silent() {
        let (x, labels) = blobs(60, 4, 2, 7);
        let svm = LinearSvmParams::new()
            .loss(SvmLoss::L1)
            .c(100.0)
            .eps(1e-12)
            .max_iter(3)
            .fit(&x, &labels)
            .unwrap();
        let r = &svm.reports()[0];
        assert!(!r.converged);
        assert_eq!(r.iterations, 3);
        assert!(r.gap > 1e-12);
    }

    /// The primal and dual solvers reach the same optimum of the squared hinge problem: the
    /// primal objective of the dual's weights equals the primal solver's to 1e-6 relative, and the
    /// primal one's is never larger (both run to tight tolerances).
    #[test]
    fn primal_and_dual_solvers_reach_the_same_optimum() {
        let (x, labels) = blobs(300, 6, 3, 11);
        let fit = |solver| {
            LinearSvmParams::new()
                .solver(solver)
                .eps(1e-8)
                .max_iter(100_000)
                .fit(&x, &labels)
                .unwrap()
        };
        let (dual, primal) = (fit(Solver::Dual), fit(Solver::Primal));
        assert_eq!(
            (dual.solver(), primal.solver()),
            (Solver::Dual, Solver::Primal)
        );
        for k in 0..3 {
            let y: Vec<f64> = labels
                .iter()
                .map(|&l| if l == k as i64 { 1.0 } else { -1.0 })
                .collect();
            let f = |m: &LinearSvm| {
                let w = m.weights().row(k).to_owned();
                let b = m.intercepts()[k];
                let margins = (0..x.nrows()).map(|i| y[i] * (x.row(i).dot(&w) + b));
                0.5 * (w.dot(&w) + b * b) + margins.map(|m| (1.0 - m).max(0.0).powi(2)).sum::<f64>()
            };
            let (fd, fp) = (f(&dual), f(&primal));
            assert!(
                (fd - fp).abs() <= 1e-6 * fp,
                "class {k}: dual {fd} primal {fp}"
            );
            assert!(fp <= fd * (1.0 + 1e-9), "class {k}: dual {fd} primal {fp}");
            // The primal report's objective is that value.
            assert!((primal.reports()[k].objective - fp).abs() <= 1e-9 * fp);
        }
    }

    /// `auto`: the primal method with at least as many rows as columns, the dual one for the
    /// hinge loss, and with fewer rows the dual method for a few passes, then the primal one if
    /// it has not converged (forced here by `max_iter = 1`).
    #[test]
    fn auto_picks_by_shape_and_falls_back_on_convergence() {
        let auto = LinearSvmParams::new().solver(Solver::Auto);
        let (tall, labels) = blobs(200, 5, 2, 3);
        assert_eq!(
            auto.clone().fit(&tall, &labels).unwrap().solver(),
            Solver::Primal
        );
        let hinge = auto.clone().loss(SvmLoss::L1);
        assert_eq!(hinge.fit(&tall, &labels).unwrap().solver(), Solver::Dual);
        let (wide, labels) = blobs(40, 200, 2, 4);
        assert_eq!(
            auto.clone().fit(&wide, &labels).unwrap().solver(),
            Solver::Dual
        );
        let short = auto
            .clone()
            .eps(1e-12)
            .max_iter(1)
            .fit(&wide, &labels)
            .unwrap();
        assert_eq!(short.solver(), Solver::Primal);
        assert!(matches!(
            LinearSvmParams::new()
                .solver(Solver::Primal)
                .loss(SvmLoss::L1)
                .check(),
            Err(LearnerError::PrimalNeedsSquaredHinge)
        ));
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let (x, labels) = blobs(10, 3, 2, 1);
        let empty = Array2::<f64>::zeros((0, 3));
        assert_eq!(
            LinearSvmParams::new().fit(&empty, &[]),
            Err(LearnerError::EmptyData)
        );
        assert_eq!(
            LinearSvmParams::new().fit(&x, &labels[..9]),
            Err(LearnerError::LengthMismatch {
                rows: 10,
                labels: 9
            })
        );
        assert_eq!(
            LinearSvmParams::new().fit(&x, &[3; 10]),
            Err(LearnerError::SingleClass { label: 3 })
        );
        let mut nan = x.clone();
        nan[[4, 2]] = f64::NAN;
        assert!(matches!(
            LinearSvmParams::new().fit(&nan, &labels),
            Err(LearnerError::NonFinite { row: 4, col: 2, .. })
        ));
        for c in [0.0, -1.0, f64::NAN] {
            assert!(matches!(
                LinearSvmParams::new().c(c).check(),
                Err(LearnerError::InvalidC(_))
            ));
        }
        assert_eq!(
            LinearSvmParams::new().eps(0.0).check(),
            Err(LearnerError::InvalidTolerance(0.0))
        );
        assert_eq!(
            LinearSvmParams::new().bias(Some(-1.0)).check(),
            Err(LearnerError::InvalidBias(-1.0))
        );
        assert_eq!(
            LinearSvmParams::new().class_weight(1, 0.0).check(),
            Err(LearnerError::InvalidClassWeight {
                label: 1,
                weight: 0.0
            })
        );
        assert_eq!(
            LinearSvmParams::new().class_weight(7, 1.0).fit(&x, &labels),
            Err(LearnerError::UnknownClassWeight { label: 7 })
        );
        let svm = LinearSvmParams::new().fit(&x, &labels).unwrap();
        assert_eq!(
            svm.predict(&Array2::zeros((2, 4))),
            Err(LearnerError::DimensionMismatch {
                expected: 3,
                got: 4
            })
        );
        assert_eq!(
            class_labels_from_f64(&[1.0, 0.5]),
            Err(LearnerError::NonIntegerLabel { row: 1, value: 0.5 })
        );
        assert_eq!(class_labels_from_f64(&[-1.0, 1.0]), Ok(vec![-1, 1]));
    }
}
