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

use std::sync::Mutex;

use rayon::prelude::*;

use crate::dual_cd::DualRows;
use crate::error::{LearnerError, Result};
use crate::tron::{tron, Objective, TronReport};

/// Rows per chunk of a parallel pass (fixed: the sums' order must not depend on the threads).
pub(crate) const BLOCK: usize = 2048;

/// The rows a primal problem reads, a chunk at a time: every pass (value, gradient,
/// Hessian-vector product) visits the chunks in order and adds their partial sums in that order,
/// so the rows can sit in memory ([`DualRows`]) or be produced a block at a time
/// ([`crate::streamed::StreamedRows`]) and give the same model.
pub(crate) trait PrimalRows {
    fn n_rows(&self) -> usize;
    /// `f(first, rows)` on every chunk of rows (`rows` indexed from 0, `first` the index of its
    /// first row), the results in chunk order. A chunk for which `wanted(range)` is false is not
    /// produced and gives `T::default()`.
    fn each_chunk<T: Send + Default>(
        &self,
        wanted: &(dyn Fn(std::ops::Range<usize>) -> bool + Sync),
        f: &(dyn Fn(usize, &dyn DualRows) -> T + Sync),
    ) -> Result<Vec<T>>;
}

/// Rows `start..` of rows in memory, indexed from 0.
struct Offset<'a, R> {
    rows: &'a R,
    start: usize,
    len: usize,
}

impl<R: DualRows> DualRows for Offset<'_, R> {
    fn n_rows(&self) -> usize {
        self.len
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        self.rows.dot(self.start + i, w)
    }
    #[inline]
    fn axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        self.rows.axpy(self.start + i, a, w)
    }
    fn squared_norm(&self, i: usize) -> f64 {
        self.rows.squared_norm(self.start + i)
    }
}

impl<R: DualRows> PrimalRows for R {
    fn n_rows(&self) -> usize {
        DualRows::n_rows(self)
    }

    fn each_chunk<T: Send + Default>(
        &self,
        wanted: &(dyn Fn(std::ops::Range<usize>) -> bool + Sync),
        f: &(dyn Fn(usize, &dyn DualRows) -> T + Sync),
    ) -> Result<Vec<T>> {
        let n = DualRows::n_rows(self);
        Ok((0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let (start, end) = (b * BLOCK, ((b + 1) * BLOCK).min(n));
                if !wanted(start..end) {
                    return T::default();
                }
                let chunk = Offset {
                    rows: self,
                    start,
                    len: end - start,
                };
                f(start, &chunk)
            })
            .collect())
    }
}

/// The loss of a primal problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrimalLoss {
    /// `max(0, 1 - m)^2` (LIBLINEAR `-s 2`).
    SquaredHinge,
    /// `log(1 + exp(-m))` (LIBLINEAR `-s 0`).
    Logistic,
}

/// One binary problem: rows, labels `y_i = +-1`, costs by class, bias.
pub(crate) struct PrimalProblem<'a, R: PrimalRows> {
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

/// Minimises the problem's `f(w)` from `w = 0` until `|g| <= eps |g0|` or `max_iter` Newton
/// steps; an error producing the rows ends the solve with that error.
pub(crate) fn solve_primal<R: PrimalRows>(
    p: &PrimalProblem<'_, R>,
    eps: f64,
    max_iter: usize,
) -> Result<PrimalSolution> {
    let dim = p.n_cols + usize::from(p.bias.is_some());
    let n = p.rows.n_rows();
    let mut objective = State {
        p,
        margins: vec![0.0; n],
        weights: vec![0.0; n],
        combination: None,
        failed: Mutex::new(None),
    };
    let mut w = vec![0.0; dim];
    let report = tron(&mut objective, &mut w, eps, max_iter);
    if let Some(e) = objective
        .failed
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(e);
    }
    let active_rows = objective.weights.iter().filter(|&&d| d > 0.0).count();
    Ok(PrimalSolution {
        w,
        report,
        active_rows,
    })
}

/// LIBLINEAR's primal tolerance: `eps * max(min(#positive, #negative), 1) / n`.
pub(crate) fn liblinear_tolerance(eps: f64, y: &[f64]) -> f64 {
    let positive = y.iter().filter(|&&v| v > 0.0).count();
    let smaller = positive.min(y.len() - positive).max(1);
    eps * smaller as f64 / y.len() as f64
}

struct State<'p, 'a, R: PrimalRows> {
    p: &'p PrimalProblem<'a, R>,
    /// `y_i w'x_i` at the last `value` call.
    margins: Vec<f64>,
    /// `D_i`, the Hessian's weight of row `i`, at the last `gradient` call.
    weights: Vec<f64>,
    /// The loss part of the gradient at the `w` of the last `value` call, summed in the same pass
    /// as the value (streamed rows are then produced once per accepted step, not twice).
    combination: Option<(Vec<f64>, Vec<f64>)>,
    /// The first error producing the rows; every later pass is skipped.
    failed: Mutex<Option<LearnerError>>,
}

impl<R: PrimalRows> PrimalProblem<'_, R> {
    /// Everything but the rows (what the parallel passes read).
    fn terms(&self) -> Terms<'_> {
        Terms {
            n_cols: self.n_cols,
            y: self.y,
            c_positive: self.c_positive,
            c_negative: self.c_negative,
            bias: self.bias,
            loss: self.loss,
        }
    }
}

/// A problem's labels, costs, bias and loss.
#[derive(Clone, Copy)]
struct Terms<'a> {
    n_cols: usize,
    y: &'a [f64],
    c_positive: f64,
    c_negative: f64,
    bias: Option<f64>,
    loss: PrimalLoss,
}

impl Terms<'_> {
    fn cost(&self, i: usize) -> f64 {
        if self.y[i] > 0.0 {
            self.c_positive
        } else {
            self.c_negative
        }
    }

    /// `<x_k, w>` with the bias feature, `x_k` row `k` of a chunk.
    fn row_dot(&self, rows: &dyn DualRows, k: usize, w: &[f64]) -> f64 {
        let d = self.n_cols;
        rows.dot(k, &w[..d]) + self.bias.map_or(0.0, |b| b * w[d])
    }

    /// `acc += a x_k` with the bias feature.
    fn row_axpy(&self, rows: &dyn DualRows, k: usize, a: f64, acc: &mut [f64]) {
        let d = self.n_cols;
        rows.axpy(k, a, &mut acc[..d]);
        if let Some(bias) = self.bias {
            acc[d] += a * bias;
        }
    }
}

impl<R: PrimalRows> State<'_, '_, R> {
    /// The chunks' results, or `None` once producing the rows has failed (the error kept).
    fn pass<T: Send + Default>(
        &self,
        wanted: &(dyn Fn(std::ops::Range<usize>) -> bool + Sync),
        f: &(dyn Fn(usize, &dyn DualRows) -> T + Sync),
    ) -> Option<Vec<T>> {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        if failed.is_some() {
            return None;
        }
        match self.p.rows.each_chunk(wanted, f) {
            Ok(parts) => Some(parts),
            Err(e) => {
                *failed = Some(e);
                None
            }
        }
    }

    /// `sum_i a_i x_i` (bias feature included) over the chunks, partial sums in chunk order;
    /// NaN once the rows have failed.
    fn combination(
        &self,
        wanted: &(dyn Fn(std::ops::Range<usize>) -> bool + Sync),
        coefficient: &(dyn Fn(usize, &dyn DualRows, usize) -> f64 + Sync),
        dim: usize,
    ) -> Vec<f64> {
        let p = self.p.terms();
        let partials = self.pass(wanted, &|first, rows| {
            let mut acc = vec![0.0; dim];
            for k in 0..rows.n_rows() {
                let a = coefficient(first + k, rows, k);
                if a != 0.0 {
                    p.row_axpy(rows, k, a, &mut acc);
                }
            }
            acc
        });
        sum_in_order(partials, dim)
    }
}

/// The partial sums added in order (empty ones skipped chunks), NaN where the pass failed.
fn sum_in_order(partials: Option<Vec<Vec<f64>>>, dim: usize) -> Vec<f64> {
    let Some(partials) = partials else {
        return vec![f64::NAN; dim];
    };
    let mut total = vec![0.0; dim];
    for part in partials.iter().filter(|p| !p.is_empty()) {
        for (t, v) in total.iter_mut().zip(part) {
            *t += v;
        }
    }
    total
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

impl<R: PrimalRows> Objective for State<'_, '_, R> {
    fn dim(&self) -> usize {
        self.p.n_cols + usize::from(self.p.bias.is_some())
    }

    fn value(&mut self, w: &[f64]) -> f64 {
        let p = self.p.terms();
        let dim = w.len();
        let parts = self.pass(&|_| true, &|first, rows| {
            let mut sum = 0.0;
            let mut margins = Vec::with_capacity(rows.n_rows());
            let mut acc = vec![0.0; dim];
            for k in 0..rows.n_rows() {
                let i = first + k;
                let m = p.y[i] * p.row_dot(rows, k, w);
                let (value, slope, _) = loss(p.loss, m);
                sum += p.cost(i) * value;
                let a = p.cost(i) * slope * p.y[i];
                if a != 0.0 {
                    p.row_axpy(rows, k, a, &mut acc);
                }
                margins.push(m);
            }
            (sum, margins, acc)
        });
        let Some(parts) = parts else {
            self.combination = None;
            return f64::NAN;
        };
        let mut total = 0.0;
        let mut partials = Vec::with_capacity(parts.len());
        let mut i = 0;
        for (sum, margins, acc) in parts {
            total += sum;
            self.margins[i..i + margins.len()].copy_from_slice(&margins);
            i += margins.len();
            partials.push(acc);
        }
        self.combination = Some((w.to_vec(), sum_in_order(Some(partials), dim)));
        0.5 * w.iter().map(|v| v * v).sum::<f64>() + total
    }

    fn gradient(&mut self, w: &[f64], g: &mut [f64]) {
        let (p, kind) = (self.p.terms(), self.p.loss);
        self.weights = (0..self.margins.len())
            .into_par_iter()
            .map(|i| p.cost(i) * loss(kind, self.margins[i]).2)
            .collect();
        let combination = match self.combination.take() {
            Some((at, combination)) if at == w => combination,
            _ => {
                let margins = &self.margins;
                self.combination(
                    &|_| true,
                    &|i, _, _| p.cost(i) * loss(kind, margins[i]).1 * p.y[i],
                    w.len(),
                )
            }
        };
        for ((gi, wi), ci) in g.iter_mut().zip(w).zip(combination) {
            *gi = wi + ci;
        }
    }

    fn hessian_times(&self, v: &[f64], out: &mut [f64]) {
        let (p, weights) = (self.p.terms(), &self.weights);
        // A chunk whose rows all have weight 0 adds nothing (streamed: it is not produced).
        let active = |r: std::ops::Range<usize>| weights[r].iter().any(|&d| d != 0.0);
        let combination = self.combination(
            &active,
            &|i, rows, k| match weights[i] {
                0.0 => 0.0,
                d => d * p.row_dot(rows, k, v),
            },
            v.len(),
        );
        for ((oi, vi), ci) in out.iter_mut().zip(v).zip(combination) {
            *oi = vi + ci;
        }
    }

    fn failed(&self) -> bool {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}
