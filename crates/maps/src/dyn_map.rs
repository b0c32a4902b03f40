//! An object-safe view of every fitted map, for code that chooses the map at run time (the
//! benchmark runner, the conformance tests) and holds it as a `Box<dyn DynFeatureMap>`.
//!
//! **Why a second trait.** [`FeatureMap`] has an associated `Scratch` type and generic methods
//! (`impl Into<Rows>`), so it cannot be a trait object; those are what keep its hot path free of
//! dynamic dispatch and allocation per row. [`DynFeatureMap`] takes [`Rows`] by value and checks
//! the row it maps alone, and is implemented once for every `FeatureMap`, so the two cannot
//! disagree: a boxed map gives the bits of the map itself.

use ndarray::{Array2, ArrayViewMut2};

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
}

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
