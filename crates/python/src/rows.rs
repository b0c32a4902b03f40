//! Rows from Python: a C-contiguous float64 array, or a CSR matrix's parts (the Python classes
//! canonicalise SciPy matrices first: sorted, no duplicates, int64 indices).

use ndarray::ArrayView2;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rfbench_maps::{CsrMatrix, MapError, Rows};

use crate::error::value_error;
use crate::threads;

/// The rows a map is fitted on or applied to.
#[derive(FromPyObject)]
pub enum Input<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    /// `(data, indices, indptr, n_cols)`.
    Csr(
        PyReadonlyArray1<'py, f64>,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, i64>,
        usize,
    ),
}

/// Rows ready to be handed to the library without the GIL: a dense array borrowed as it is (any
/// strides), or CSR parts copied into the library's checked [`CsrMatrix`].
pub enum Prepared<'a> {
    Dense(ArrayView2<'a, f64>),
    Csr(CsrMatrix),
}

impl Prepared<'_> {
    pub fn rows(&self) -> Rows<'_> {
        match self {
            Prepared::Dense(x) => x.view().into(),
            Prepared::Csr(csr) => csr.into(),
        }
    }
}

impl<'py> Input<'py> {
    pub fn prepare(&self) -> PyResult<Prepared<'_>> {
        match self {
            Input::Dense(x) => Ok(Prepared::Dense(x.as_array())),
            Input::Csr(data, indices, indptr, n_cols) => {
                csr_matrix(data, indices, indptr, *n_cols).map(Prepared::Csr)
            }
        }
    }

    /// Runs `f` on the rows with the GIL released, in a pool of `n_jobs` threads (0: the
    /// package's setting; module [`crate::threads`]).
    pub fn with_rows<T: Send>(
        &self,
        py: Python<'_>,
        n_jobs: usize,
        f: impl for<'r> FnOnce(Rows<'r>) -> Result<T, MapError> + Send,
    ) -> PyResult<T> {
        let prepared = self.prepare()?;
        py.detach(|| threads::install(n_jobs, || f(prepared.rows())))?
            .map_err(value_error)
    }
}

fn csr_matrix(
    data: &PyReadonlyArray1<'_, f64>,
    indices: &PyReadonlyArray1<'_, i64>,
    indptr: &PyReadonlyArray1<'_, i64>,
    n_cols: usize,
) -> PyResult<CsrMatrix> {
    let indices = indices
        .as_array()
        .iter()
        .map(|&j| u32::try_from(j))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| value_error("CSR column index out of range"))?;
    let indptr = indptr
        .as_array()
        .iter()
        .map(|&k| usize::try_from(k))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| value_error("CSR row pointer is negative"))?;
    let values = data.as_array().to_vec();
    CsrMatrix::new(n_cols, indptr, indices, values).map_err(value_error)
}
