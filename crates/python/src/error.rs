//! The one conversion of a library error to Python: a `ValueError` with the library's message.
//! A module of its own (not the crate root) so that the modules the root registers do not
//! reach back into it.

use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

/// A library error as Python's `ValueError`, with the library's own message.
pub(crate) fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}
