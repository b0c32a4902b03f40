//! The primal problems of LIBLINEAR's `-s 2` (L2-regularised squared hinge loss) and `-s 0`
//! (L2-regularised logistic regression), minimised by the trust-region Newton method
//! ([`crate::tron`]):
//!
//! ```text
//! f(w) = 1/2 |w|^2 + sum_i C_i loss(y_i w'x_i)
//! squared hinge: loss(m) = max(0, 1 - m)^2    logistic: loss(m) = log(1 + exp(-m))
//! ```
//!
//! with the bias as LIBLINEAR's `-B`: a constant feature appended to every row, its weight
//! regularised like the others. Every pass over the rows (values, gradients, Hessian-vector
//! products `v + sum_i D_i x_i x_i'v`) runs over fixed blocks of rows in parallel, and the blocks'
//! partial sums are added in block order, so the result does not depend on the thread count.
//!
//! Cost: O(nnz) per function value, gradient and Hessian-vector product.

use rayon::prelude::*;

use crate::dual_cd::DualRows;
use crate::tron::{tron, Objective, TronReport};

/// Rows per block of a parallel pass (fixed: the sums' order must not depend on the threads).
const BLOCK: usize = 2048;

/// The loss of a primal problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrimalLoss {
    /// `max(0, 1 - m)^2` (LIBLINEAR `-s 2`).
    SquaredHinge,
    /// `log(1 + exp(-m))` (LIBLINEAR `-s 0`).
    Logistic,
}

/// One binary problem: rows, labels `y_i = +-1`, costs by class, bias.
pub(crate) struct PrimalProblem<'a, R: DualRows> {
    pub rows: &'a R,
    pub n_cols: usize,
    pub y: &'a [f64],
    pub c_positive: f64,
    pub c_negative: f64,
    pub bias: Option<f64>,
    pub loss: PrimalLoss,
}

/// What a solve gives: weights over the columns then the bias weight (if any), and the report.
pub(crate) struct PrimalSolution {
    pub w: Vec<f64>,
    pub report: TronReport,
    /// Rows with a non-zero Hessian weight at the end (margin below 1 for the squared hinge).
    pub active_rows: usize,
}

/// Minimises the problem's `f(w)` from `w = 0` until `|g| <= eps |g0|` or `max_iter` Newton steps.
pub(crate) fn solve_primal<R: DualRows>(
    p: &PrimalProblem<'_, R>,
    eps: f64,
    max_iter: usize,
) -> PrimalSolution {
    let dim = p.n_cols + usize::from(p.bias.is_some());
    let n = p.rows.n_rows();
    let mut objective = State {
        p,
        margins: vec![0.0; n],
        weights: vec![0.0; n],
    };
    let mut w = vec![0.0; dim];
    let report = tron(&mut objective, &mut w, eps, max_iter);
    let active_rows = objective.weights.iter().filter(|&&d| d > 0.0).count();
    PrimalSolution {
        w,
        report,
        active_rows,
    }
}

/// LIBLINEAR's primal tolerance: `eps * max(min(#positive, #negative), 1) / n`.
pub(crate) fn liblinear_tolerance(eps: f64, y: &[f64]) -> f64 {
    let positive = y.iter().filter(|&&v| v > 0.0).count();
    let smaller = positive.min(y.len() - positive).max(1);
    eps * smaller as f64 / y.len() as f64
}

struct State<'p, 'a, R: DualRows> {
    p: &'p PrimalProblem<'a, R>,
    /// `y_i w'x_i` at the last `value` call.
    margins: Vec<f64>,
    /// `D_i`, the Hessian's weight of row `i`, at the last `gradient` call.
    weights: Vec<f64>,
}

impl<R: DualRows> PrimalProblem<'_, R> {
    fn cost(&self, i: usize) -> f64 {
        if self.y[i] > 0.0 {
            self.c_positive
        } else {
            self.c_negative
        }
    }

    /// `<x_i, w>` with the bias feature.
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        let d = self.n_cols;
        self.rows.dot(i, &w[..d]) + self.bias.map_or(0.0, |b| b * w[d])
    }
}

impl<R: DualRows> State<'_, '_, R> {
    /// `sum_i a_i x_i` (bias feature included), blocks in parallel, partial sums in block order.
    fn combination(&self, coefficient: impl Fn(usize) -> f64 + Sync, dim: usize) -> Vec<f64> {
        let n = self.p.rows.n_rows();
        let d = self.p.n_cols;
        let partials: Vec<Vec<f64>> = (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let mut acc = vec![0.0; dim];
                for i in b * BLOCK..((b + 1) * BLOCK).min(n) {
                    let a = coefficient(i);
                    if a != 0.0 {
                        self.p.rows.axpy(i, a, &mut acc[..d]);
                        if let Some(bias) = self.p.bias {
                            acc[d] += a * bias;
                        }
                    }
                }
                acc
            })
            .collect();
        let mut total = vec![0.0; dim];
        for part in &partials {
            for (t, v) in total.iter_mut().zip(part) {
                *t += v;
            }
        }
        total
    }
}

/// The loss of margin `m` and its first and second derivatives.
fn loss(kind: PrimalLoss, m: f64) -> (f64, f64, f64) {
    match kind {
        PrimalLoss::SquaredHinge if m < 1.0 => ((1.0 - m) * (1.0 - m), -2.0 * (1.0 - m), 2.0),
        PrimalLoss::SquaredHinge => (0.0, 0.0, 0.0),
        PrimalLoss::Logistic => {
            // log(1 + exp(-m)) without overflow; sigma = 1 / (1 + exp(-m)).
            let value = if m >= 0.0 {
                (-m).exp().ln_1p()
            } else {
                -m + m.exp().ln_1p()
            };
            let sigma = 1.0 / (1.0 + (-m).exp());
            (value, sigma - 1.0, sigma * (1.0 - sigma))
        }
    }
}

impl<R: DualRows> Objective for State<'_, '_, R> {
    fn dim(&self) -> usize {
        self.p.n_cols + usize::from(self.p.bias.is_some())
    }

    fn value(&mut self, w: &[f64]) -> f64 {
        let p = self.p;
        let sums: Vec<f64> = self
            .margins
            .par_chunks_mut(BLOCK)
            .enumerate()
            .map(|(b, block)| {
                let mut sum = 0.0;
                for (k, m) in block.iter_mut().enumerate() {
                    let i = b * BLOCK + k;
                    *m = p.y[i] * p.row_dot(i, w);
                    sum += p.cost(i) * loss(p.loss, *m).0;
                }
                sum
            })
            .collect();
        0.5 * w.iter().map(|v| v * v).sum::<f64>() + sums.iter().sum::<f64>()
    }

    fn gradient(&mut self, w: &[f64], g: &mut [f64]) {
        let kind = self.p.loss;
        let weights: Vec<f64> = (0..self.margins.len())
            .into_par_iter()
            .map(|i| self.p.cost(i) * loss(kind, self.margins[i]).2)
            .collect();
        self.weights = weights;
        let combination = self.combination(
            |i| self.p.cost(i) * loss(kind, self.margins[i]).1 * self.p.y[i],
            w.len(),
        );
        for ((gi, wi), ci) in g.iter_mut().zip(w).zip(combination) {
            *gi = wi + ci;
        }
    }

    fn hessian_times(&self, v: &[f64], out: &mut [f64]) {
        let combination = self.combination(
            |i| match self.weights[i] {
                0.0 => 0.0,
                d => d * self.p.row_dot(i, v),
            },
            v.len(),
        );
        for ((oi, vi), ci) in out.iter_mut().zip(v).zip(combination) {
            *oi = vi + ci;
        }
    }
}
