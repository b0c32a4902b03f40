//! The exact kernels, built and checked by the library: a map is fitted for one, and the tests
//! compare a map's Gram matrix with the kernel's own.

use ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;
use rfbench_maps::Kernel;

use crate::error::value_error;
use crate::rows::Input;

/// An exact kernel with its parameters (`rfbench-maps`' one bandwidth convention: module docs of
/// the Python package). Built by the static constructors, which reject a parameter out of range.
#[pyclass(name = "Kernel", module = "rfbench._rfbench", frozen)]
#[derive(Clone)]
pub struct PyKernel(pub Kernel);

fn checked(kernel: Result<Kernel, rfbench_maps::MapError>) -> PyResult<PyKernel> {
    kernel.map(PyKernel).map_err(value_error)
}

#[pymethods]
impl PyKernel {
    /// `exp(-||x - y||^2 / (2 sigma^2))`.
    #[staticmethod]
    fn gaussian(sigma: f64) -> PyResult<Self> {
        checked(Kernel::gaussian(sigma))
    }

    /// scikit-learn's `exp(-gamma ||x - y||^2)`, stored as `sigma = sqrt(1 / (2 gamma))`.
    #[staticmethod]
    fn gaussian_from_gamma(gamma: f64) -> PyResult<Self> {
        checked(Kernel::gaussian_from_gamma(gamma))
    }

    /// `exp(-||x - y||_1 / sigma)`.
    #[staticmethod]
    fn laplacian(sigma: f64) -> PyResult<Self> {
        checked(Kernel::laplacian(sigma))
    }

    /// Matern with `nu` in {0.5, 1.5, 2.5} and `length_scale`.
    #[staticmethod]
    fn matern(nu: f64, length_scale: f64) -> PyResult<Self> {
        checked(Kernel::matern(nu, length_scale))
    }

    /// `(gamma <x, y> + coef0)^degree` (the sketches need `gamma = 1`).
    #[staticmethod]
    fn polynomial(degree: u32, gamma: f64, coef0: f64) -> PyResult<Self> {
        checked(Kernel::libsvm_polynomial(degree, gamma, coef0))
    }

    /// The exact `k(a_i, b_j)` for every row of `a` and of `b` (dense arrays or CSR parts).
    fn cross_gram<'py>(
        &self,
        py: Python<'py>,
        a: Input<'py>,
        b: Input<'py>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let kernel = self.0;
        let (a, b) = (a.prepare()?, b.prepare()?);
        let (n_a, n_b) = (a.rows().n_cols(), b.rows().n_cols());
        if n_a != n_b {
            return Err(value_error(format!(
                "the two sets of rows have {n_a} and {n_b} columns"
            )));
        }
        a.rows().check_finite().map_err(value_error)?;
        b.rows().check_finite().map_err(value_error)?;
        let gram: Array2<f64> = py.detach(|| kernel.cross_gram(a.rows(), b.rows()));
        Ok(gram.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.0)
    }
}
