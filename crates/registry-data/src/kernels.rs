//! The exact kernels a spec can name (the `[kernel]` table), all built through the one
//! [`Kernel`] vocabulary of `rfbench-maps`. Bandwidths are sigma (scikit-learn's and LIBSVM's
//! gamma is `1 / (2 sigma^2)` for the Gaussian); a bandwidth may be a rule on the training rows,
//! which the runner resolves before the kernel is built.

use rfbench_maps::{Kernel, MapError};

use super::params::{non_negative, positive, Default, ParamKind, ParamSpec, ParamValues};
use super::python::{SklearnKernel, SvcKernel};
use super::steps::Step;

/// The norm of `x - y` a bandwidth scales: the Gaussian's and Matern's `|x - y|_2`, the
/// Laplacian's `|x - y|_1`. A bandwidth rule measures distances in its kernel's norm, so that
/// "the median distance" means the same thing to the kernel as to the rule (rfbench-data's
/// `distance_percentile` takes it, and re-exports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Norm {
    L1,
    L2,
}

impl Norm {
    pub fn name(self) -> &'static str {
        match self {
            Norm::L1 => "L1",
            Norm::L2 => "Euclidean",
        }
    }
}

pub type KernelConstructor = fn(&ParamValues) -> Result<Kernel, MapError>;

#[derive(Clone, Copy)]
pub struct KernelInfo {
    pub name: &'static str,
    pub formula: &'static str,
    pub params: &'static [ParamSpec],
    pub build: KernelConstructor,
    /// A short label for legends, from the cell's parameters.
    pub label: fn(&ParamValues) -> String,
    /// The norm of `x - y` its bandwidth scales (the distances a bandwidth rule measures);
    /// `None` for a kernel without a bandwidth.
    pub bandwidth_norm: Option<Norm>,
    /// The input normalisation `rfbench compare` applies before it: rows scaled to unit norm
    /// for the dot-product kernels (their sketches' variance grows with |x|^(2p)), columns
    /// standardised for the others.
    pub normalisation: Step,
    /// The map `rfbench compare` tunes the bandwidth and the penalty with, when it is among the
    /// maps compared: the plain Monte Carlo estimator of the kernel's family.
    pub tuning_map: Option<&'static str>,
    /// scikit-learn's `gamma` for a bandwidth, where its kernel of the same name takes one of
    /// that form (the Gaussian: `rbf`'s `exp(-gamma |x - y|^2)`, gamma = 1 / (2 sigma^2)); the
    /// answer's scikit-learn counterpart prints it.
    pub sklearn_gamma: Option<fn(f64) -> f64>,
    /// How scikit-learn writes it (the answer's code); `None` where it has no such kernel.
    pub sklearn: Option<SklearnKernel>,
    /// Its parameters the Python package and scikit-learn name otherwise (the offset's `coef0`).
    pub python_names: &'static [(&'static str, &'static str)],
}

impl KernelInfo {
    /// The parameter a bandwidth rule may set (`sigma`, Matern's `length_scale`), if any.
    pub fn bandwidth_param(&self) -> Option<&'static ParamSpec> {
        self.params
            .iter()
            .find(|p| matches!(p.kind, ParamKind::Bandwidth))
    }

    /// The parameter `rfbench compare --degree` sets, if the kernel has a degree.
    pub fn degree_param(&self) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == DEGREE.name)
    }
}

/// scikit-learn's `rbf` gamma, `exp(-gamma |x - y|^2)`: 1 / (2 sigma^2).
fn gaussian_gamma(sigma: f64) -> f64 {
    0.5 / (sigma * sigma)
}

const SIGMA: ParamSpec = ParamSpec {
    name: "sigma",
    kind: ParamKind::Bandwidth,
    default: None,
    doc: "bandwidth: a number, \"median\", or { percentile = P, pairs = N } of training-row distances (in the kernel's norm: L1 for the Laplacian)",
};

const DEGREE: ParamSpec = ParamSpec {
    name: "degree",
    kind: ParamKind::Int { min: 1, max: 64 },
    default: None,
    doc: "p, the degree",
};

fn polynomial(p: &ParamValues) -> Result<Kernel, MapError> {
    let degree = p.usize("degree");
    let degree = u32::try_from(degree).unwrap_or(u32::MAX);
    Kernel::libsvm_polynomial(degree, p.f64("gamma"), p.f64("offset"))
}

fn polynomial_label(p: &ParamValues) -> String {
    let (degree, gamma, offset) = (p.usize("degree"), p.f64("gamma"), p.f64("offset"));
    let dot = if gamma == 1.0 {
        "<x,y>".to_string()
    } else {
        format!("{gamma}<x,y>")
    };
    if offset == 0.0 {
        format!("{dot}^{degree}")
    } else {
        format!("({offset} + {dot})^{degree}")
    }
}

fn sigma_label(name: &str, p: &ParamValues) -> String {
    match p.get("sigma").and_then(|v| v.as_f64()) {
        Some(s) => format!("{name}, sigma = {s:.4}"),
        None => name.to_string(),
    }
}

pub const KERNELS: &[KernelInfo] = &[
    KernelInfo {
        name: "polynomial",
        formula: "(gamma <x, y> + offset)^degree",
        params: &[
            DEGREE,
            positive(
                "gamma",
                Some(1.0),
                "scale of the inner product (LIBSVM's -g); the sketches need 1",
            ),
            non_negative(
                "offset",
                0.0,
                "c, LIBSVM's coef0 (-r); 0 is the homogeneous kernel",
            ),
        ],
        build: polynomial,
        label: polynomial_label,
        bandwidth_norm: None,
        normalisation: Step::UnitNorm,
        tuning_map: Some("tensor-sketch"),
        sklearn_gamma: None,
        sklearn: Some(SklearnKernel {
            metric: Some("poly"),
            gamma: None,
            svc: SvcKernel::Metric,
            gaussian_process: None,
        }),
        python_names: &[("offset", "coef0")],
    },
    KernelInfo {
        name: "gaussian",
        formula: "exp(-|x - y|_2^2 / (2 sigma^2))",
        params: &[SIGMA],
        build: |p| Kernel::gaussian(p.f64("sigma")),
        label: |p| sigma_label("Gaussian", p),
        bandwidth_norm: Some(Norm::L2),
        normalisation: Step::Standardize,
        tuning_map: Some("rff"),
        sklearn_gamma: Some(gaussian_gamma),
        sklearn: Some(SklearnKernel {
            metric: Some("rbf"),
            gamma: Some(gaussian_gamma),
            svc: SvcKernel::Metric,
            gaussian_process: None,
        }),
        python_names: &[],
    },
    KernelInfo {
        name: "laplacian",
        formula: "exp(-|x - y|_1 / sigma)",
        params: &[SIGMA],
        build: |p| Kernel::laplacian(p.f64("sigma")),
        label: |p| sigma_label("Laplacian", p),
        bandwidth_norm: Some(Norm::L1),
        normalisation: Step::Standardize,
        tuning_map: Some("rff"),
        sklearn_gamma: None,
        // laplacian_kernel's exp(-gamma |x - y|_1): gamma = 1 / sigma.
        sklearn: Some(SklearnKernel {
            metric: Some("laplacian"),
            gamma: Some(|sigma| 1.0 / sigma),
            svc: SvcKernel::Function("laplacian_kernel"),
            gaussian_process: None,
        }),
        python_names: &[],
    },
    KernelInfo {
        name: "matern",
        formula: "Matern(nu, length_scale) of |x - y|_2, nu in {0.5, 1.5, 2.5}",
        params: &[
            ParamSpec {
                name: "nu",
                kind: ParamKind::Float(rfbench_maps::Interval {
                    min: 0.5,
                    max: 2.5,
                    open_min: false,
                    open_max: false,
                }),
                default: Some(Default::Float(1.5)),
                doc: "smoothness: 0.5, 1.5 or 2.5 (the closed forms)",
            },
            ParamSpec {
                name: "length_scale",
                kind: ParamKind::Bandwidth,
                default: None,
                doc: "l: a number, \"median\", or { percentile = P, pairs = N }",
            },
        ],
        build: |p| Kernel::matern(p.f64("nu"), p.f64("length_scale")),
        label: |p| format!("Matern {}", p.f64("nu")),
        bandwidth_norm: Some(Norm::L2),
        normalisation: Step::Standardize,
        tuning_map: Some("rff"),
        sklearn_gamma: None,
        sklearn: Some(SklearnKernel {
            metric: None,
            gamma: None,
            svc: SvcKernel::GaussianProcess,
            gaussian_process: Some("Matern"),
        }),
        python_names: &[],
    },
    KernelInfo {
        name: "linear",
        formula: "<x, y>",
        params: &[],
        build: |_| Ok(Kernel::linear()),
        label: |_| "<x,y>".to_string(),
        bandwidth_norm: None,
        normalisation: Step::Standardize,
        tuning_map: None,
        sklearn_gamma: None,
        sklearn: None,
        python_names: &[],
    },
];

impl std::fmt::Debug for KernelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kernel {:?}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Value;
    use rfbench_maps::Row;

    /// scikit-learn's gamma gives the kernel's own value: exp(-gamma |x - y|^2) against the
    /// built kernel at three bandwidths (to 1e-12, rounding only).
    #[test]
    fn a_kernels_sklearn_gamma_gives_its_values() {
        let (x, y) = ([0.5, -1.0, 2.0], [1.5, 0.0, 1.25]);
        let squared: f64 = x.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
        let with_gamma: Vec<_> = KERNELS
            .iter()
            .filter(|k| k.sklearn_gamma.is_some())
            .collect();
        assert!(!with_gamma.is_empty());
        for info in with_gamma {
            let param = info.bandwidth_param().unwrap().name;
            for sigma in [0.3, 1.0, 4.0] {
                let values = ParamValues([(param.to_string(), Value::Float(sigma))].into());
                let kernel = (info.build)(&values).unwrap();
                let ours = kernel.eval(
                    &Row::Dense(ndarray::ArrayView1::from(&x)),
                    &Row::Dense(ndarray::ArrayView1::from(&y)),
                );
                let gamma = (info.sklearn_gamma.unwrap())(sigma);
                let theirs = (-gamma * squared).exp();
                assert!(
                    (ours - theirs).abs() <= 1e-12,
                    "{info:?} sigma {sigma}: {ours} != {theirs}"
                );
            }
        }
    }
}
