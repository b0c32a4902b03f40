//! Whether an array of features is all finite, scanned on the package's threads with the GIL
//! released: the polynomial maps' overflow check (`_check_finite` in python/rfbench/_base.py),
//! which runs after every transform of theirs.
//!
//! **Why not NumPy.** `np.isfinite(Z).all()` writes a boolean copy of the whole `n x D` output
//! and reads it again, on one thread: on a9a's 32,561 rows at D = 4000 (a 1 GB output) it took
//! a tenth of Tensor Sketch's whole transform. Here each thread reads its share once, in
//! register-wide steps with no early exit (the widest vector build the processor has), and nothing
//! is allocated. The answer is the same whatever the thread count: a value either is finite or not.
//! Tested from Python (crates/python/tests/test_memory.py), where the extension is built.

use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::threads;

/// Values per task: 512 KiB of `f64`, enough to hide the task's cost, small enough to share.
const CHUNK: usize = 1 << 16;

/// A float type's finiteness tests: of one value, and of a slice in the processor's widest vector
/// build (`rfbench_maps::slice_finite`, the maps' own check of the arrays they load).
trait Finite: Copy + Send + Sync + numpy::Element {
    fn finite(self) -> bool;
    fn all_finite(values: &[Self]) -> bool;
}

impl Finite for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn all_finite(values: &[f64]) -> bool {
        rfbench_maps::slice_finite(values)
    }
}

impl Finite for f32 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn all_finite(values: &[f32]) -> bool {
        rfbench_maps::slice_finite_f32(values)
    }
}

/// Whether every value of `values` is finite, on the current rayon pool.
fn slice_finite<T: Finite>(values: &[T]) -> bool {
    values.par_chunks(CHUNK).all(T::all_finite)
}

/// Whether every value of `z` is finite (a C- or F-contiguous array in parallel, any other
/// layout value by value), on `n_jobs` threads (0: the package's setting), GIL released.
fn array_finite<T: Finite>(
    py: Python<'_>,
    z: PyReadonlyArray2<'_, T>,
    n_jobs: usize,
) -> PyResult<bool> {
    match z.as_slice() {
        Ok(values) => py.detach(|| threads::install(n_jobs, || slice_finite(values))),
        Err(_) => Ok(z.as_array().iter().all(|v| v.finite())),
    }
}

/// Whether every value of a float64 matrix is finite.
#[pyfunction]
#[pyo3(signature = (z, n_jobs = 0))]
fn all_finite_f64(py: Python<'_>, z: PyReadonlyArray2<'_, f64>, n_jobs: usize) -> PyResult<bool> {
    array_finite(py, z, n_jobs)
}

/// Whether every value of a float32 matrix is finite.
#[pyfunction]
#[pyo3(signature = (z, n_jobs = 0))]
fn all_finite_f32(py: Python<'_>, z: PyReadonlyArray2<'_, f32>, n_jobs: usize) -> PyResult<bool> {
    array_finite(py, z, n_jobs)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(all_finite_f64, m)?)?;
    m.add_function(wrap_pyfunction!(all_finite_f32, m)?)?;
    Ok(())
}
