//! What random Fourier features and orthogonal random features share once fitted: both are a
//! `d x m` frequency matrix plus an output stage ([`DenseFourier`]); they differ only in how the
//! frequencies are drawn. [`dense_fourier_map!`] writes, for such a map, the [`FeatureMap`]
//! implementation (one matrix product for dense input and for CSR input of density at least
//! [`DENSIFY_DENSITY`](crate::fourier::DENSIFY_DENSITY), row by row for sparser CSR), the checked serde
//! form, the `f32` API and the accessors, so the two cannot drift apart.
//!
//! [`DenseFourier`]: crate::fourier::DenseFourier
//! [`FeatureMap`]: crate::FeatureMap

use crate::error::{ensure, Result};
use crate::fourier::{DenseFourier, FourierForm};

/// The consistency of a deserialised dense Fourier map with its parameters.
pub(crate) fn check_dense_fourier(
    map: &'static str,
    form: FourierForm,
    n_components: usize,
    input_dim: usize,
    inner: &DenseFourier,
) -> Result<()> {
    let (d, _) = inner.weights().dim();
    ensure(d == input_dim, map, || {
        format!("{d} frequency rows for input_dim = {input_dim}")
    })?;
    inner.output().check_matches(map, form, n_components)
}

/// For `$map { params: $params, input_dim: usize, inner: DenseFourier }` whose `$params` has
/// `form`, `n_components` and `check()`: `FeatureMap`, `TryFrom<$data>` (the serde mirror, also
/// defined here), `frequencies`, `memory_bytes`, `transform_f32` and `transform_f32_into`.
macro_rules! dense_fourier_map {
    ($map:ident, $params:ty, $data:ident) => {
        /// The serialised form of the map, checked on the way in.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct $data {
            params: $params,
            input_dim: usize,
            inner: $crate::fourier::DenseFourier,
        }

        impl TryFrom<$data> for $map {
            type Error = $crate::error::MapError;

            fn try_from(data: $data) -> $crate::error::Result<Self> {
                let $data {
                    params,
                    input_dim,
                    inner,
                } = data;
                params.clone().check()?;
                $crate::dense_map::check_dense_fourier(
                    stringify!($map),
                    params.form,
                    params.n_components,
                    input_dim,
                    &inner,
                )?;
                Ok(Self {
                    params,
                    input_dim,
                    inner,
                })
            }
        }

        impl $map {
            /// The frequencies as the columns of a `d x m` matrix.
            pub fn frequencies(&self) -> ndarray::ArrayView2<'_, f64> {
                self.inner.weights()
            }

            /// Heap memory of the fitted map's parameters, in bytes (`8 d m` plus the phases).
            pub fn memory_bytes(&self) -> usize {
                self.inner.memory_bytes()
            }

            /// Maps `f32` records to `f32` features into `out` (`n x D`): the frequencies rounded
            /// to `f32`, a single-precision product and cosines (module `fourier_f32`). Same checks
            /// and errors as [`FeatureMap::transform_into`].
            pub fn transform_f32_into(
                &self,
                x: ndarray::ArrayView2<'_, f32>,
                mut out: ndarray::ArrayViewMut2<'_, f32>,
            ) -> $crate::error::Result<()> {
                $crate::fourier_f32::check_batch_f32(
                    self.input_dim,
                    self.params.n_components,
                    &x,
                    &out,
                )?;
                let watch = $crate::projections::ProjectionWatch::start();
                self.inner.transform_dense_f32(x, out.view_mut());
                watch.finish(out.view())
            }

            /// Maps `f32` records to a new `n x D` matrix of `f32` features.
            pub fn transform_f32(
                &self,
                x: ndarray::ArrayView2<'_, f32>,
            ) -> $crate::error::Result<ndarray::Array2<f32>> {
                let mut out = $crate::big_alloc::zeros(x.nrows(), self.params.n_components);
                self.transform_f32_into(x, out.view_mut())?;
                Ok(out)
            }
        }

        impl FeatureMap for $map {
            type Scratch = ();

            fn input_dim(&self) -> usize {
                self.input_dim
            }

            fn output_dim(&self) -> usize {
                self.params.n_components
            }

            fn memory_bytes(&self) -> usize {
                self.inner.memory_bytes()
            }

            fn new_scratch(&self) {}

            fn map_row(&self, row: &$crate::csr::Row<'_>, out: &mut [f64], _: &mut ()) {
                self.inner.map_row(row, out);
            }

            /// Dense input: blocked matrix products (module `block_product`); CSR input densified
            /// by blocks into the same product unless sparser than `DENSIFY_DENSITY`, then row by
            /// row.
            fn transform_into<'a>(
                &self,
                rows: impl Into<$crate::csr::Rows<'a>>,
                out: ndarray::ArrayViewMut2<'_, f64>,
            ) -> $crate::error::Result<()> {
                $crate::fourier::transform_batch(self, &self.inner, rows.into(), out)
            }
        }
    };
}

pub(crate) use dense_fourier_map;
