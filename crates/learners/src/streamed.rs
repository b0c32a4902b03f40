//! Rows produced a block at a time, for the primal solvers on features too large to hold: a
//! fitted map applied to consecutive row ranges, again on every pass. The blocks that fit in
//! `keep_bytes` are kept after they are first produced, so features that almost fit cost little
//! more than features in memory, and features that do not fit cost one mapping per pass.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use ndarray::Array2;
use rayon::prelude::*;

use crate::dual_cd::{DenseRows, DualRows, SvmLoss};
use crate::error::{LearnerError, Result};
use crate::linear_svm::{
    checked_classes, linear_model, one_vs_rest_targets, primal_report, sub_problems,
    CommonSettings, Solved,
};
use crate::primal::{PrimalLoss, PrimalProblem, PrimalRows, BLOCK};
use crate::{LinearSvm, LinearSvmValidParams, Solver, PRIMAL_EPS};

/// The features of rows `range`, `range.len()` rows of the source's width.
pub type Produce<'a> = dyn Fn(Range<usize>) -> Result<Array2<f64>> + 'a;

/// A matrix of `n_rows` x `n_cols` features, produced `block_rows` rows at a time.
pub struct FeatureBlocks<'a> {
    pub n_rows: usize,
    pub n_cols: usize,
    pub block_rows: usize,
    pub features: &'a Produce<'a>,
    /// Bytes of produced blocks kept for later passes (the first blocks, in order).
    pub keep_bytes: usize,
}

impl FeatureBlocks<'_> {
    /// Row ranges of at most `block_rows` rows, in order.
    pub fn ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let step = self.block_rows.max(1);
        (0..self.n_rows)
            .step_by(step)
            .map(move |start| start..(start + step).min(self.n_rows))
    }

    /// How many of the first blocks `keep_bytes` holds.
    fn kept_blocks(&self) -> usize {
        let block_bytes = self.block_rows.max(1) * self.n_cols.max(1) * 8;
        self.keep_bytes / block_bytes
    }
}

/// [`FeatureBlocks`] as the primal solver reads them, with the kept blocks.
pub(crate) struct StreamedRows<'a> {
    source: &'a FeatureBlocks<'a>,
    kept: Mutex<Vec<Arc<Array2<f64>>>>,
}

impl<'a> StreamedRows<'a> {
    pub(crate) fn new(source: &'a FeatureBlocks<'a>) -> Self {
        StreamedRows {
            source,
            kept: Mutex::new(Vec::new()),
        }
    }

    /// Block `b` (rows `range`): kept, or produced, checked and kept if there is room.
    fn block(&self, b: usize, range: Range<usize>) -> Result<Arc<Array2<f64>>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(z) = kept.get(b) {
            return Ok(Arc::clone(z));
        }
        let z = (self.source.features)(range.clone())?;
        let z = match z.is_standard_layout() {
            true => z,
            false => z.as_standard_layout().into_owned(),
        };
        check_block(&z, range, self.source.n_cols)?;
        let z = Arc::new(z);
        if kept.len() == b && b < self.source.kept_blocks() {
            kept.push(Arc::clone(&z));
        }
        Ok(z)
    }
}

/// A block of rows `range` has their shape and only finite values. The values are checked by a
/// branch-free fold per stretch (vectorised); the first bad one is looked for only on failure.
fn check_block(z: &Array2<f64>, range: Range<usize>, n_cols: usize) -> Result<()> {
    let rows = range.len();
    if z.dim() != (rows, n_cols) {
        return Err(LearnerError::Pipeline(format!(
            "rows {range:?} gave features of shape {:?}, not {rows} x {n_cols}",
            z.dim()
        )));
    }
    let data = z.as_slice().expect("a standard-layout array is contiguous");
    let finite = data
        .chunks(1024)
        .all(|c| c.iter().fold(true, |ok, v| ok & v.is_finite()));
    if finite {
        return Ok(());
    }
    match data.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        Some((at, &value)) => Err(LearnerError::NonFinite {
            row: range.start + at / n_cols.max(1),
            col: at % n_cols.max(1),
            value,
        }),
        None => Ok(()),
    }
}

impl PrimalRows for StreamedRows<'_> {
    fn n_rows(&self) -> usize {
        self.source.n_rows
    }

    /// Blocks one after another (producing one may use every thread), each block's chunks in
    /// parallel; the chunks are those of rows in memory when `block_rows` is a multiple of
    /// [`BLOCK`], so the sums, and the model, are the same.
    fn each_chunk<T: Send + Default>(
        &self,
        wanted: &(dyn Fn(Range<usize>) -> bool + Sync),
        f: &(dyn Fn(usize, &dyn DualRows) -> T + Sync),
    ) -> Result<Vec<T>> {
        let n_cols = self.source.n_cols;
        let mut out = Vec::new();
        for (b, range) in self.source.ranges().enumerate() {
            let chunks: Vec<Range<usize>> = (range.start..range.end)
                .step_by(BLOCK)
                .map(|s| s..(s + BLOCK).min(range.end))
                .collect();
            if !chunks.iter().any(|c| wanted(c.clone())) {
                out.extend(chunks.iter().map(|_| T::default()));
                continue;
            }
            let z = self.block(b, range.clone())?;
            let data = z.as_slice().expect("a standard-layout array is contiguous");
            let parts: Vec<T> = chunks
                .par_iter()
                .map(|c| {
                    if !wanted(c.clone()) {
                        return T::default();
                    }
                    let (from, to) = (
                        (c.start - range.start) * n_cols,
                        (c.end - range.start) * n_cols,
                    );
                    f(
                        c.start,
                        &DenseRows {
                            data: &data[from..to],
                            n_cols,
                        },
                    )
                })
                .collect();
            out.extend(parts);
        }
        Ok(out)
    }
}

impl LinearSvmValidParams {
    /// Trains on features produced a block at a time ([`FeatureBlocks`]), never all in memory:
    /// the primal Newton method (squared hinge loss; `Auto` and `Primal` solvers), one
    /// sub-problem after another, each pass producing the blocks not kept. With `block_rows` a
    /// multiple of 2,048 the model is [`fit`](Self::fit)'s with the primal solver on the whole
    /// matrix.
    pub fn fit_blocks(&self, x: &FeatureBlocks<'_>, labels: &[i64]) -> Result<LinearSvm> {
        if self.loss == SvmLoss::L1 {
            return Err(LearnerError::PrimalNeedsSquaredHinge);
        }
        if self.solver == Solver::Dual {
            return Err(LearnerError::StreamedNeedsPrimal);
        }
        let (n, d) = (x.n_rows, x.n_cols);
        let classes = checked_classes(n, d, labels)?;
        let common = CommonSettings {
            c: self.c,
            class_weights: &self.class_weights,
            bias: self.bias,
            seed: self.seed,
        };
        let rows = StreamedRows::new(x);
        let solutions = sub_problems(&classes, &common)?
            .into_iter()
            .map(|(positive, c_positive, c_negative)| {
                let y = one_vs_rest_targets(labels, positive);
                let problem = PrimalProblem {
                    rows: &rows,
                    n_cols: d,
                    y: &y,
                    c_positive,
                    c_negative,
                    bias: self.bias,
                    loss: PrimalLoss::SquaredHinge,
                };
                let eps = self.eps.unwrap_or(PRIMAL_EPS);
                let (w, report) = primal_report(&problem, eps, self.max_iter)?;
                Ok((w, report, Solver::Primal))
            })
            .collect::<Result<Vec<Solved>>>()?;
        Ok(linear_model(classes, d, self.bias, solutions))
    }
}

#[cfg(test)]
#[path = "streamed_tests.rs"]
mod tests;
