//! L2-regularised logistic regression, LIBLINEAR's `-s 0`: `min_w 1/2 |w|^2 + sum_i C_i
//! log(1 + exp(-y_i w'x_i))` by the trust-region Newton method ([`crate::primal`]), with
//! LIBLINEAR's conventions (bias as an appended regularised feature, default `-B 1`; class weights
//! multiply C; one-vs-rest for more than two classes; `eps = 0.01` scaled by the smaller class's
//! share).

use rfbench_maps::Rows;

use crate::dual_cd::DualRows;
use crate::error::{check_svm_params, Result};
use crate::linear_svm::{
    check_class_weights, fit_one_vs_rest, primal_report, BinarySolve, CommonSettings,
    LogisticRegression, Solved, Solver, PRIMAL_EPS,
};
use crate::params::param_guard;
use crate::primal::{PrimalLoss, PrimalProblem};

/// Unchecked hyper-parameters of [`LogisticRegression`] (builder setters), checked by
/// [`check`](Self::check) into [`LogisticRegressionValidParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticRegressionParams(LogisticRegressionValidParams);

/// Hyper-parameters that passed [`LogisticRegressionParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticRegressionValidParams {
    c: f64,
    eps: f64,
    max_iter: usize,
    bias: Option<f64>,
    class_weights: Vec<(i64, f64)>,
}

impl Default for LogisticRegressionParams {
    fn default() -> Self {
        Self(LogisticRegressionValidParams {
            c: 1.0,
            eps: PRIMAL_EPS,
            max_iter: 1000,
            bias: Some(1.0),
            class_weights: Vec::new(),
        })
    }
}

param_guard!(LogisticRegressionParams => LogisticRegressionValidParams);

impl LogisticRegressionParams {
    /// Cost `C > 0` (default 1).
    pub fn c(mut self, c: f64) -> Self {
        self.0.c = c;
        self
    }
    /// Tolerance on `|g| / |g0|` before LIBLINEAR's class-share scaling, `> 0` (default 0.01).
    pub fn eps(mut self, eps: f64) -> Self {
        self.0.eps = eps;
        self
    }
    /// Maximum Newton steps, `>= 1` (default 1000).
    pub fn max_iter(mut self, max_iter: usize) -> Self {
        self.0.max_iter = max_iter;
        self
    }
    /// Value of the appended constant feature (`> 0`), or `None` (default `Some(1)`).
    pub fn bias(mut self, bias: Option<f64>) -> Self {
        self.0.bias = bias;
        self
    }
    /// Multiplies `C` for the rows of class `label` by `weight > 0`.
    pub fn class_weight(mut self, label: i64, weight: f64) -> Self {
        self.0.class_weights.retain(|&(l, _)| l != label);
        self.0.class_weights.push((label, weight));
        self
    }

    /// `check()` then [`LogisticRegressionValidParams::fit`].
    pub fn fit<'a>(self, x: impl Into<Rows<'a>>, labels: &[i64]) -> Result<LogisticRegression> {
        self.check()?.fit(x, labels)
    }
}

impl LogisticRegressionValidParams {
    fn validate(&self) -> Result<()> {
        check_svm_params(self.c, self.eps, Some(self.max_iter), self.bias)?;
        check_class_weights(&self.class_weights)
    }

    /// Trains on rows `x` (dense or sparse) with integer class labels.
    pub fn fit<'a>(&self, x: impl Into<Rows<'a>>, labels: &[i64]) -> Result<LogisticRegression> {
        let common = CommonSettings {
            c: self.c,
            class_weights: &self.class_weights,
            bias: self.bias,
            seed: 0,
        };
        let model = fit_one_vs_rest(x.into(), labels, &common, self)?;
        debug_assert_eq!(model.solver(), Solver::Primal);
        Ok(model)
    }
}

impl BinarySolve for LogisticRegressionValidParams {
    fn solve<R: DualRows>(
        &self,
        rows: &R,
        d: usize,
        y: &[f64],
        (c_positive, c_negative): (f64, f64),
        _seed: u64,
    ) -> Result<Solved> {
        let problem = PrimalProblem {
            rows,
            n_cols: d,
            y,
            c_positive,
            c_negative,
            bias: self.bias,
            loss: PrimalLoss::Logistic,
        };
        let (w, report) = primal_report(&problem, self.eps, self.max_iter)?;
        Ok((w, report, Solver::Primal))
    }
}
