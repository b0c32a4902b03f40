//! The Rust half of the Python package `rfbench`: every map of `rfbench-maps` fitted and applied
//! from Python, on NumPy arrays and SciPy CSR parts, with the GIL released while it computes.
//!
//! **Why so thin.** scikit-learn's conventions (parameters stored by `__init__`, validation in
//! `fit`, `random_state`, tags, `get_feature_names_out`) are Python's to keep; they live in the
//! pure-Python classes of `python/rfbench`. This module only does what needs Rust: build a kernel
//! ([`kernel::PyKernel`], checked by the library), fit a map (one function per map, module
//! [`fit`]), map rows ([`fitted::FittedMap`]), and hand the component registry's parameter
//! tables to Python ([`registry`]), from which the classes build their constraints. Every library
//! error becomes a `ValueError` carrying the library's message.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod fit;
mod fitted;
mod kernel;
mod registry;
mod rows;

/// A library error as Python's `ValueError`, with the library's own message.
pub(crate) fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

#[pymodule]
fn _rfbench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<kernel::PyKernel>()?;
    m.add_class::<fitted::FittedMap>()?;
    fit::register(m)?;
    fitted::register_loaders(m)?;
    registry::register(m)?;
    Ok(())
}
