//! How the answer's Python code (`rfbench compare`'s `scikit_learn`) writes a component: the
//! `rfbench` package's class of a map, scikit-learn's class of a map, a kernel's names in
//! scikit-learn, a learner's estimator. Each entry carries its own, so the code writer names
//! no component.

use crate::params::Default;

/// The Python package's class of a map, and the parameters that select the map among the
/// class's (Python literals); the package's `_registry_maps` say the same, which a test checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PythonClass {
    pub class: &'static str,
    pub selects: &'static [(&'static str, &'static str)],
}

pub const fn python_class(
    class: &'static str,
    selects: &'static [(&'static str, &'static str)],
) -> Option<PythonClass> {
    Some(PythonClass { class, selects })
}

/// scikit-learn's own map (`sklearn.kernel_approximation`) where it is the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SklearnMap {
    pub class: &'static str,
    /// How it takes the kernel.
    pub kernel: SklearnMapKernel,
    /// The choice parameter and value a series needs to be this map (RBFSampler: RFF's phase
    /// form); `None` for every series of the map.
    pub series: Option<(&'static str, &'static str)>,
    /// The kernels it approximates, where fewer than the map's (RBFSampler: the Gaussian);
    /// empty for all of the map's.
    pub kernels: &'static [&'static str],
}

/// How a scikit-learn map takes the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SklearnMapKernel {
    /// `gamma` only ([`SklearnKernel::gamma`]).
    Gamma,
    /// `kernel=` the metric name and its `gamma`, or its other parameters without a bandwidth.
    Metric,
    /// The kernel's parameters under the Python names, no `kernel=`.
    Params,
}

/// A kernel as scikit-learn writes it.
#[derive(Debug, Clone, Copy)]
pub struct SklearnKernel {
    /// `pairwise_kernels`' name (`Nystroem`'s and `KernelRidge`'s `kernel=`); `None` where it
    /// has none and takes it pair by pair (Matern).
    pub metric: Option<&'static str>,
    /// The metric's `gamma` at bandwidth sigma, for a kernel with a bandwidth.
    pub gamma: Option<fn(f64) -> f64>,
    /// How `SVC` takes it.
    pub svc: SvcKernel,
    /// Its class in `sklearn.gaussian_process.kernels` with the bandwidth as `length_scale`,
    /// which an estimator takes where it has no metric name.
    pub gaussian_process: Option<&'static str>,
}

/// How `SVC` takes a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvcKernel {
    /// By its metric name (`rbf`, `poly`).
    Metric,
    /// `functools.partial` of this function of `sklearn.metrics.pairwise` at its `gamma`.
    Function(&'static str),
    /// Its Gaussian-process kernel object.
    GaussianProcess,
}

/// A learner's scikit-learn estimator, with the learner's penalty under its name.
#[derive(Debug, Clone, Copy)]
pub struct SklearnLearner {
    pub module: &'static str,
    pub class: &'static str,
    /// Its class for classification where that is another (`RidgeClassifier`).
    pub classifier: Option<&'static str>,
    /// The penalty's name (`C`, `alpha`): the same value as the learner's.
    pub penalty: &'static str,
    /// Parameters it is given after the penalty.
    pub settings: &'static [(&'static str, Default)],
    /// How it takes the kernel, for an exact kernel machine.
    pub kernel: Option<SklearnLearnerKernel>,
}

/// How an exact kernel machine's estimator takes the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SklearnLearnerKernel {
    /// As `SVC` does ([`SvcKernel`]).
    Svc,
    /// `KernelRidge` on centred targets (`TransformedTargetRegressor`): the kernel by its metric
    /// name, else the mean of a `GaussianProcessRegressor` with `alpha` the penalty and its
    /// Gaussian-process kernel fixed.
    CentredRidge,
}
