//! The Rust half of the Python package `rfbench`: every map of `rfbench-maps` fitted and applied
//! from Python, on NumPy arrays and SciPy CSR parts, with the GIL released while it computes.
//!
//! **Why so thin.** scikit-learn's conventions (parameters stored by `__init__`, validation in
//! `fit`, `random_state`, tags, `get_feature_names_out`) are Python's to keep; they live in the
//! pure-Python classes of `python/rfbench`. This module only does what needs Rust: build a kernel
//! ([`kernel::PyKernel`], checked by the library), fit a map (one function per map, module
//! [`fit`]), map rows ([`fitted::FittedMap`]), and hand the component registry's parameter
//! tables and size model to Python ([`registry`]), from which the classes build their
//! constraints and refuse what would not fit in memory, read scikit-learn's fitted attributes
//! off the maps that have a scikit-learn counterpart ([`attributes`]), and run each call on a
//! thread pool of the asked size ([`threads`]: `n_jobs`, `set_num_threads`, threadpoolctl), and
//! check the polynomial maps' features for overflow without NumPy's boolean copy ([`finite`]).
//! Every library error becomes a `ValueError` carrying the library's message ([`error`]).

use pyo3::prelude::*;

mod attributes;
mod error;
mod finite;
mod fit;
mod fitted;
mod kernel;
mod registry;
mod rows;
mod threads;

#[pymodule]
fn _rfbench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<kernel::PyKernel>()?;
    m.add_class::<fitted::FittedMap>()?;
    fit::register(m)?;
    fitted::register_loaders(m)?;
    registry::register(m)?;
    threads::register(m)?;
    finite::register(m)?;
    Ok(())
}
