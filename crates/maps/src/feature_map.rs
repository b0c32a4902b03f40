//! The one interface every fitted map implements.
//!
//! A map only has to say how to map one row into a caller's buffer with its own scratch space
//! ([`FeatureMap::map_row`]); batching, input checks and parallelism live here once. Rows are
//! independent, so splitting them over rayon's threads cannot change a single bit of the output.

use ndarray::{Array2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use crate::csr::{Row, Rows};
use crate::error::{MapError, Result};

/// Rows per parallel task: large enough to amortise the scratch allocation, small enough to
/// balance two to a few dozen threads.
const ROWS_PER_TASK: usize = 256;

/// A fitted feature map `z: R^d -> R^D`.
pub trait FeatureMap: Sync {
    /// Per-thread working memory (FFT buffers, projections), allocated once per task.
    type Scratch: Send;

    /// `d`, the input dimension the map was fitted for.
    fn input_dim(&self) -> usize;

    /// `D`, the number of features.
    fn output_dim(&self) -> usize;

    /// Bytes of the fitted map's own parameters (random draws, landmarks, plans' tables): what
    /// the papers call the map's memory. Not the scratch space, not the struct itself.
    fn memory_bytes(&self) -> usize;

    fn new_scratch(&self) -> Self::Scratch;

    /// Maps one row (already checked: right dimension, finite) into `out` (length `D`, any prior
    /// content is overwritten).
    fn map_row(&self, row: &Row<'_>, out: &mut [f64], scratch: &mut Self::Scratch);

    /// Maps every row of `rows` into `out` (shape `n x D`), in parallel over rows.
    fn transform_into<'a>(
        &self,
        rows: impl Into<Rows<'a>>,
        mut out: ArrayViewMut2<'_, f64>,
    ) -> Result<()>
    where
        Self: Sized,
    {
        let rows = rows.into();
        if rows.n_cols() != self.input_dim() {
            return Err(MapError::DimensionMismatch {
                expected: self.input_dim(),
                got: rows.n_cols(),
            });
        }
        let expected = (rows.n_rows(), self.output_dim());
        if out.dim() != expected {
            return Err(MapError::OutputShape {
                expected,
                got: out.dim(),
            });
        }
        rows.check_finite()?;
        let watch = crate::projections::ProjectionWatch::start();
        out.axis_chunks_iter_mut(Axis(0), ROWS_PER_TASK)
            .into_par_iter()
            .enumerate()
            .for_each(|(chunk, mut block)| {
                let mut scratch = self.new_scratch();
                let mut buffer = vec![0.0; self.output_dim()];
                for (k, mut out_row) in block.rows_mut().into_iter().enumerate() {
                    let row = rows.row(chunk * ROWS_PER_TASK + k);
                    match out_row.as_slice_mut() {
                        Some(slice) => self.map_row(&row, slice, &mut scratch),
                        None => {
                            self.map_row(&row, &mut buffer, &mut scratch);
                            out_row.iter_mut().zip(&buffer).for_each(|(o, &b)| *o = b);
                        }
                    }
                }
            });
        watch.finish(out.view())
    }

    /// Maps every row of `rows` into a new `n x D` matrix.
    fn transform<'a>(&self, rows: impl Into<Rows<'a>>) -> Result<Array2<f64>>
    where
        Self: Sized,
    {
        let rows = rows.into();
        let mut out = crate::big_alloc::zeros(rows.n_rows(), self.output_dim());
        self.transform_into(rows, out.view_mut())?;
        Ok(out)
    }
}
