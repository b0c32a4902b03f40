//! An object-safe view of every fitted map, for code that chooses the map at run time (the
//! benchmark runner, the conformance tests) and holds it as a `Box<dyn DynFeatureMap>`.
//!
//! **Why a second trait.** [`FeatureMap`] has an associated `Scratch` type and generic methods
//! (`impl Into<Rows>`), so it cannot be a trait object; those are what keep its hot path free of
//! dynamic dispatch and allocation per row. [`DynFeatureMap`] takes [`Rows`] by value and checks
//! the row it maps alone, and is implemented once for every `FeatureMap`, so the two cannot
//! disagree: a boxed map gives the bits of the map itself.

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use crate::csr::{Row, Rows};
use crate::error::{MapError, Result};
use crate::feature_map::FeatureMap;

/// A fitted feature map `z: R^d -> R^D` behind a pointer. Implemented for every [`FeatureMap`]
/// that is `Send + Sync + Debug` (all of this crate's).
pub trait DynFeatureMap: Send + Sync + std::fmt::Debug {
    /// `d`, the input dimension the map was fitted for.
    fn input_dim(&self) -> usize;

    /// `D`, the number of features.
    fn output_dim(&self) -> usize;

    /// Bytes of the fitted map's own parameters (random draws, landmarks, plans): what the papers
    /// call the map's memory.
    fn memory_bytes(&self) -> usize;

    /// Maps every row into a new `n x D` matrix ([`FeatureMap::transform`]).
    fn transform(&self, rows: Rows<'_>) -> Result<Array2<f64>>;

    /// Maps every row into `out` (`n x D`, any strides; [`FeatureMap::transform_into`]).
    fn transform_into(&self, rows: Rows<'_>, out: ArrayViewMut2<'_, f64>) -> Result<()>;

    /// One row, no parallelism: the reference the batch paths are tested against. `out` must have
    /// length `D` and the row dimension `d` and finite values, else the errors of `transform`
    /// (`NonFinite` at row 0).
    fn map_row(&self, row: &Row<'_>, out: &mut [f64]) -> Result<()>;

    /// `f32` records to `f32` features for a map without a single-precision path of its own: the
    /// rows widened to `f64`, mapped by [`DynFeatureMap::transform_into`] and rounded, a block of
    /// rows at a time, so the bits are those of `transform` rounded but the `n x D` double matrix
    /// is never made (half the memory, and one pass over the output instead of three).
    fn transform_f32_rounded(&self, x: ArrayView2<'_, f32>) -> Result<Array2<f32>> {
        let mut out = crate::big_alloc::zeros(x.nrows(), self.output_dim());
        crate::fourier_f32::check_batch_f32(
            self.input_dim(),
            self.output_dim(),
            &x,
            &out.view_mut(),
        )?;
        out.axis_chunks_iter_mut(Axis(0), ROUNDED_BLOCK_ROWS)
            .into_par_iter()
            .zip(x.axis_chunks_iter(Axis(0), ROUNDED_BLOCK_ROWS))
            .try_for_each(|(mut out_block, x_block)| -> Result<()> {
                let wide = x_block.mapv(f64::from);
                let mut features = Array2::zeros(out_block.dim());
                self.transform_into(Rows::Dense(wide.view()), features.view_mut())?;
                out_block.zip_mut_with(&features, |o, &f| *o = f as f32);
                Ok(())
            })?;
        Ok(out)
    }
}

/// Rows per block of [`DynFeatureMap::transform_f32_rounded`]: a block's double-precision
/// features (`64 D` values, 2 MB at D = 4000) are rounded while still in cache, and 10,000 rows
/// make 157 blocks to share among the threads.
const ROUNDED_BLOCK_ROWS: usize = 64;

impl<M: FeatureMap + Send + Sync + std::fmt::Debug> DynFeatureMap for M {
    fn input_dim(&self) -> usize {
        FeatureMap::input_dim(self)
    }

    fn output_dim(&self) -> usize {
        FeatureMap::output_dim(self)
    }

    fn memory_bytes(&self) -> usize {
        FeatureMap::memory_bytes(self)
    }

    fn transform(&self, rows: Rows<'_>) -> Result<Array2<f64>> {
        FeatureMap::transform(self, rows)
    }

    fn transform_into(&self, rows: Rows<'_>, out: ArrayViewMut2<'_, f64>) -> Result<()> {
        FeatureMap::transform_into(self, rows, out)
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64]) -> Result<()> {
        let (d, n_features) = (FeatureMap::input_dim(self), FeatureMap::output_dim(self));
        let got = match row {
            Row::Dense(x) => x.len(),
            // A sparse row does not know its dimension; its largest index bounds it.
            Row::Sparse { indices, .. } => indices.last().map_or(0, |&j| j as usize + 1),
        };
        if got > d || (matches!(row, Row::Dense(_)) && got != d) {
            return Err(MapError::DimensionMismatch { expected: d, got });
        }
        if out.len() != n_features {
            return Err(MapError::OutputShape {
                expected: (1, n_features),
                got: (1, out.len()),
            });
        }
        let mut first_non_finite = None;
        row.for_each_nonzero(|col, value| {
            if !value.is_finite() && first_non_finite.is_none() {
                first_non_finite = Some((col, value));
            }
        });
        if let Some((col, value)) = first_non_finite {
            return Err(MapError::NonFinite { row: 0, col, value });
        }
        FeatureMap::map_row(self, row, out, &mut self.new_scratch());
        Ok(())
    }
}
