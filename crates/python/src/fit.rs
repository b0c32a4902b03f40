//! One function per map: its parameters (the kernel built by [`PyKernel`]'s constructors) and a
//! seed in, a [`FittedMap`] out, fitted with the GIL released. Maps that draw their randomness
//! from the input dimension alone take `n_features_in`; Nystroem and PRFF take the rows.

use pyo3::prelude::*;
use rfbench_maps::{
    landmark_indices, FastfoodParams, FastfoodTransform, FourierForm, MapError, NystroemParams,
    OrthogonalRandomFeaturesParams, PrffParams, PrffWeighting, RandomBinningParams,
    RandomFourierParams, RandomMaclaurinH01Params, RandomMaclaurinParams,
    StructuredOrthogonalParams, TensorSketchParams,
};

use crate::error::value_error;
use crate::fitted::{Fitted, FittedMap};
use crate::kernel::PyKernel;
use crate::rows::Input;
use crate::threads;

/// Fits with the GIL released, in a pool of `n_jobs` threads (0: the package's setting; module
/// [`crate::threads`]).
fn fit_map<M: Fitted + 'static>(
    py: Python<'_>,
    n_jobs: usize,
    fit: impl FnOnce() -> Result<M, MapError> + Send,
) -> PyResult<FittedMap>
where
    M: Send,
{
    py.detach(|| threads::install(n_jobs, fit))?
        .map(FittedMap::new)
        .map_err(value_error)
}

fn form(name: &str) -> PyResult<FourierForm> {
    FourierForm::from_name(name)
        .ok_or_else(|| value_error(format!("form must be 'paired' or 'phase', got {name:?}")))
}

#[pyfunction]
fn tensor_sketch(
    py: Python<'_>,
    kernel: &PyKernel,
    n_components: usize,
    n_features_in: usize,
    seed: u64,
    n_jobs: usize,
) -> PyResult<FittedMap> {
    let params = TensorSketchParams::for_kernel(&kernel.0, n_components).map_err(value_error)?;
    fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
}

/// Random Maclaurin; `h01` adds the exact degree-0 and degree-1 terms (Hamid et al. 2014).
#[pyfunction]
fn random_maclaurin(
    py: Python<'_>,
    kernel: &PyKernel,
    n_components: usize,
    h01: bool,
    n_features_in: usize,
    seed: u64,
    n_jobs: usize,
) -> PyResult<FittedMap> {
    let k = &kernel.0;
    if h01 {
        let params = RandomMaclaurinH01Params::for_kernel(k, n_components).map_err(value_error)?;
        fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
    } else {
        let params = RandomMaclaurinParams::for_kernel(k, n_components).map_err(value_error)?;
        fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
    }
}

/// A Fourier-type map whose params take a kernel, `D` and a form: one function each.
macro_rules! fourier_fit {
    ($name:ident, $params:ty) => {
        #[pyfunction]
        fn $name(
            py: Python<'_>,
            kernel: &PyKernel,
            n_components: usize,
            form_name: &str,
            n_features_in: usize,
            seed: u64,
            n_jobs: usize,
        ) -> PyResult<FittedMap> {
            let params = <$params>::for_kernel(&kernel.0, n_components)
                .map_err(value_error)?
                .form(form(form_name)?);
            fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
        }
    };
}

fourier_fit!(random_fourier, RandomFourierParams);
fourier_fit!(orthogonal, OrthogonalRandomFeaturesParams);
fourier_fit!(structured_orthogonal, StructuredOrthogonalParams);

/// Fastfood; `fft` picks the circulant (FFT) blocks instead of the Hadamard ones.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn fastfood(
    py: Python<'_>,
    kernel: &PyKernel,
    n_components: usize,
    form_name: &str,
    fft: bool,
    n_features_in: usize,
    seed: u64,
    n_jobs: usize,
) -> PyResult<FittedMap> {
    let transform = if fft {
        FastfoodTransform::Fourier
    } else {
        FastfoodTransform::Hadamard
    };
    let params = FastfoodParams::for_kernel(&kernel.0, n_components)
        .map_err(value_error)?
        .form(form(form_name)?)
        .transform(transform);
    fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
}

/// Random binning: `n_grids` grids of `width` hashed bins each (`D = n_grids * width`).
#[pyfunction]
fn random_binning(
    py: Python<'_>,
    kernel: &PyKernel,
    n_grids: usize,
    width: usize,
    n_features_in: usize,
    seed: u64,
    n_jobs: usize,
) -> PyResult<FittedMap> {
    let params = RandomBinningParams::for_kernel(&kernel.0, n_grids)
        .map_err(value_error)?
        .width(width);
    fit_map(py, n_jobs, || params.seed(seed).fit(n_features_in))
}

/// The fitted map and the indices of the rows that became its landmarks (scikit-learn's
/// `component_indices_`).
#[pyfunction]
fn nystroem(
    py: Python<'_>,
    kernel: &PyKernel,
    n_components: usize,
    eigenvalue_cutoff: f64,
    rows: Input<'_>,
    seed: u64,
    n_jobs: usize,
) -> PyResult<(FittedMap, Vec<usize>)> {
    let params = NystroemParams::for_kernel(&kernel.0, n_components)
        .map_err(value_error)?
        .eigenvalue_cutoff(eigenvalue_cutoff)
        .seed(seed)
        .check()
        .map_err(value_error)?;
    let prepared = rows.prepare()?;
    let (map, indices) = py
        .detach(|| threads::install(n_jobs, || params.fit_with_indices(prepared.rows())))?
        .map_err(value_error)?;
    Ok((FittedMap::new(map), indices))
}

/// The landmark rows Nystroem's fit picks for `seed` (`rfbench_maps::landmark_indices`), for
/// the kernels the Python side computes itself.
#[pyfunction]
fn nystroem_landmarks(n_rows: usize, n_components: usize, seed: u64) -> PyResult<Vec<usize>> {
    landmark_indices(n_rows, n_components, seed).map_err(value_error)
}

/// PRFF (Damodaran, Courty & Gosselin 2017), Gaussian kernels only.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn prff(
    py: Python<'_>,
    kernel: &PyKernel,
    n_components: usize,
    batch_size: usize,
    learning_rate: f64,
    l2_penalty: f64,
    max_iterations: usize,
    tolerance: f64,
    weighting: &str,
    rows: Input<'_>,
    seed: u64,
    n_jobs: usize,
) -> PyResult<FittedMap> {
    let weighting = PrffWeighting::from_name(weighting).ok_or_else(|| {
        value_error(format!(
            "weighting must be 'average' or 'residual', got {weighting:?}"
        ))
    })?;
    let params = PrffParams::for_kernel(&kernel.0, n_components)
        .map_err(value_error)?
        .weighting(weighting)
        .batch_size(batch_size)
        .learning_rate(learning_rate)
        .l2_penalty(l2_penalty)
        .max_iterations(max_iterations)
        .tolerance(tolerance)
        .seed(seed);
    let prepared = rows.prepare()?;
    fit_map(py, n_jobs, || params.fit(prepared.rows()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tensor_sketch, m)?)?;
    m.add_function(wrap_pyfunction!(random_maclaurin, m)?)?;
    m.add_function(wrap_pyfunction!(random_fourier, m)?)?;
    m.add_function(wrap_pyfunction!(orthogonal, m)?)?;
    m.add_function(wrap_pyfunction!(structured_orthogonal, m)?)?;
    m.add_function(wrap_pyfunction!(fastfood, m)?)?;
    m.add_function(wrap_pyfunction!(random_binning, m)?)?;
    m.add_function(wrap_pyfunction!(nystroem, m)?)?;
    m.add_function(wrap_pyfunction!(nystroem_landmarks, m)?)?;
    m.add_function(wrap_pyfunction!(prff, m)?)?;
    Ok(())
}
