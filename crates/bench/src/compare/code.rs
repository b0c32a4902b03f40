//! The answer as code: the pick as a scikit-learn pipeline (the column scaling compare applied,
//! the map with its parameters, the learner with its tuned penalty), as `answer.json`'s
//! `scikit_learn` and the report's snippet. Every pick has one: a map and the linear learner on
//! its features, the linear learner on the raw inputs, or the exact kernel machine.
//!
//! Each step is what compare ran, in the Python classes' conventions:
//!
//! - the normalisation: `standardize` is `StandardScaler` (the training rows' mean and population
//!   sd, a constant column left unscaled), `unit-norm` is `Normalizer`;
//! - the map: the `rfbench` package's class of the registry map (its `python_class`), with
//!   `n_components = D`, every other parameter of the map at the value compare ran it with (its
//!   default, or the series' variant: RFF's `form`), and the kernel under the package's names
//!   (`sigma`, the crate's bandwidth, needs no conversion; the polynomial kernel's offset is
//!   `coef0`); `random_state` is compare's master seed (its cells derive one per repetition);
//! - the learner: the linear SVM is `LinearSVC` (LIBLINEAR's problem `1/2 |w|^2 + C sum_i
//!   loss_i`, squared hinge, an intercept regularised as a feature of value 1, one-vs-rest:
//!   scikit-learn's defaults, the same `C`); ridge is `Ridge` / `RidgeClassifier` (`|y - Zw - b|^2
//!   + lambda |w|^2`, unpenalised intercept, `alpha = lambda`); the kernel SVM is `SVC` (LIBSVM's
//!   C-SVC, one-vs-one, the same `C`); kernel ridge solves `(K + lambda I) a = y - mean(y)`,
//!   which is `KernelRidge(alpha = lambda)` on centred targets (`TransformedTargetRegressor`),
//!   and for the Matern kernel, which `KernelRidge` can only take pair by pair, the mean of a
//!   `GaussianProcessRegressor` with `alpha = lambda` and the kernel fixed.
//!
//! scikit-learn's own classes where it has them: `RBFSampler` for RFF's phase form on the
//! Gaussian kernel, `Nystroem`, `PolynomialCountSketch` for Tensor Sketch; its bandwidth is
//! `gamma` (the Gaussian's `1 / (2 sigma^2)`, the registry's `sklearn_gamma`; the Laplacian's
//! `1 / sigma`, `laplacian_kernel`'s `exp(-gamma |x - y|_1)`).
//!
//! Every class and kernel name is the registry entry's (`python_class`, `sklearn_class`,
//! `KernelInfo::sklearn`, `LearnerInfo::sklearn`); [`super::python`] writes the code.

use serde_json::{json, Value};

use super::lines::Line;
use super::python::{object_json, pipeline_code, Object, Py};
use super::setup::Setup;
use super::specs::Tuned;
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::params::Default as ParamDefault;
use rfbench_registry::python::{SklearnLearnerKernel, SklearnMapKernel, SvcKernel};
use rfbench_registry::{Features, KernelInfo, LearnerInfo, ParamKind, Series, Step as DataStep};

/// A step of the pipeline: its name, the object, and scikit-learn's own class for it where the
/// object is the `rfbench` package's and scikit-learn has the same map.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineStep {
    pub name: &'static str,
    pub object: Object,
    pub scikit_learn: Option<Object>,
}

/// What the pick is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickKind {
    Map,
    Baseline,
    Exact,
}

impl PickKind {
    fn name(self) -> &'static str {
        match self {
            PickKind::Map => "map",
            PickKind::Baseline => "linear baseline",
            PickKind::Exact => "exact kernel machine",
        }
    }
}

/// The pick as a pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub pick: String,
    pub kind: PickKind,
    pub steps: Vec<PipelineStep>,
    /// Comment lines the code opens with: what the pick is, what `X` is.
    pub comments: Vec<String>,
}

const PREPROCESSING: &str = "sklearn.preprocessing";

/// The pipeline of `line` (a cell of the sweep), with the values tuning chose; `None` where a
/// step has no Python counterpart (a map the package does not offer, a learner compare does not
/// use).
pub fn pipeline(setup: &Setup, line: &Line, tuned: &Tuned) -> Option<Pipeline> {
    let mut steps = vec![PipelineStep {
        name: "scale",
        object: scaler(setup.normalise)?,
        scikit_learn: None,
    }];
    let kind = match line.features()? {
        Features::Exact => PickKind::Exact,
        Features::Raw => PickKind::Baseline,
        Features::Map(_) => PickKind::Map,
    };
    let mut comments = vec![match kind {
        PickKind::Baseline => format!(
            "rfbench compare's pick on {}: the linear model on the raw inputs, no kernel.",
            setup.dataset
        ),
        _ => format!(
            "rfbench compare's pick on {}: {} ({} kernel{}).",
            setup.dataset,
            line.name(),
            setup.kernel.name,
            kernel_words(setup, line, tuned)
        ),
    }];
    comments.push(input_words(setup));
    if kind == PickKind::Map {
        comments.push(format!(
            "random_state is compare's master seed {}: its cells drew their maps from seeds \
             derived from it, so this is a new draw of the same map.",
            setup.seed
        ));
    }
    if kind == PickKind::Exact {
        let sigma = tuned.exact_sigma;
        steps.push(PipelineStep {
            name: "learner",
            object: exact_learner(setup, sigma, tuned.exact_penalty)?,
            scikit_learn: None,
        });
        if line.train_size > 0 {
            comments.push(format!(
                "compare trained it on {} of the training rows.",
                line.train_size
            ));
        }
    } else {
        if kind == PickKind::Map {
            let series = line.registry_series()?;
            steps.push(PipelineStep {
                name: "map",
                object: rfbench_map(setup, series, line.d, tuned.sigma)?,
                scikit_learn: sklearn_map(setup, series, line.d, tuned.sigma),
            });
        }
        let penalty = tuned.penalty_at(&line.map, line.d);
        steps.push(PipelineStep {
            name: "learner",
            object: linear_learner(setup, penalty)?,
            scikit_learn: None,
        });
    }
    Some(Pipeline {
        pick: line.name(),
        kind,
        steps,
        comments,
    })
}

/// `, sigma = ...` for a kernel with a bandwidth (the exact machine's own where it is the pick).
fn kernel_words(setup: &Setup, line: &Line, tuned: &Tuned) -> String {
    let sigma = match line.features() {
        Some(Features::Exact) => tuned.exact_sigma,
        _ => tuned.sigma,
    };
    match (setup.kernel.bandwidth_param(), sigma) {
        (Some(param), Some(s)) => format!(", {} = {s:?}", param.name),
        _ if setup.kernel.degree_param().is_some() => format!(", degree {}", setup.degree),
        _ => String::new(),
    }
}

/// What `X` is: the data's feature columns as rfbench reads them (a one-hot block per
/// categorical column where the file has them).
fn input_words(setup: &Setup) -> String {
    let categorical = setup.embedded.as_ref().is_some_and(has_categorical_columns);
    let encoding = match categorical {
        true => {
            ": its numeric columns, then one one-hot block per categorical column (categories \
             sorted)"
        }
        false => "",
    };
    format!(
        "X, y: the {} feature columns and the labels as rfbench reads the data{encoding}; the \
         pipeline scales the columns as compare did, on the rows it is fitted on.",
        setup.d
    )
}

fn has_categorical_columns(value: &toml::Value) -> bool {
    match value {
        toml::Value::Table(t) => t.iter().any(|(k, v)| {
            (k == "categorical_columns" && v.as_array().is_some_and(|a| !a.is_empty()))
                || has_categorical_columns(v)
        }),
        toml::Value::Array(a) => a.iter().any(has_categorical_columns),
        _ => false,
    }
}

/// The column or row scaling compare applied before every cell.
fn scaler(step: DataStep) -> Option<Object> {
    match step {
        DataStep::Standardize => Some(Object::new(PREPROCESSING, "StandardScaler")),
        DataStep::UnitNorm => Some(Object::new(PREPROCESSING, "Normalizer")),
        DataStep::MinMax { lower, upper } => Some(Object::new(PREPROCESSING, "MinMaxScaler").with(
            "feature_range",
            Py::Tuple(vec![Py::Float(lower), Py::Float(upper)]),
        )),
        _ => None,
    }
}

fn default_value(default: ParamDefault) -> Py {
    match default {
        ParamDefault::Int(v) => Py::Int(v),
        ParamDefault::Float(v) => Py::Float(v),
        ParamDefault::Bool(v) => Py::Bool(v),
        ParamDefault::Text(v) => Py::Text(v.into()),
    }
}

/// The kernel's parameters other than its bandwidth, under the Python package's names (the
/// registry's `python_names`: the offset is scikit-learn's `coef0`): their registry defaults,
/// the degree compare's.
fn kernel_params(setup: &Setup) -> Vec<(String, Py)> {
    let kernel = setup.kernel;
    let mut out = Vec::new();
    for p in kernel.params {
        if matches!(p.kind, ParamKind::Bandwidth) {
            continue;
        }
        let value = match (kernel.degree_param(), p.default) {
            (Some(degree), _) if degree.name == p.name => Py::Int(i64::from(setup.degree)),
            (_, Some(default)) => default_value(default),
            (_, None) => continue,
        };
        let renamed = kernel.python_names.iter().find(|(ours, _)| *ours == p.name);
        let name = renamed.map_or(p.name, |(_, theirs)| theirs);
        out.push((name.to_string(), value));
    }
    out
}

/// The `rfbench` package's map, as compare ran it.
fn rfbench_map(setup: &Setup, series: Series, d: usize, sigma: Option<f64>) -> Option<Object> {
    let map = series.map;
    let python = map.python_class?;
    let mut object = Object::new("rfbench", python.class);
    for p in map.params {
        let value = if p.name == N_COMPONENTS.name {
            Py::Int(i64::try_from(d).ok()?)
        } else if let Some(value) = series.value_of(p.name) {
            Py::Text(value.into())
        } else if let Some(default) = p.default {
            default_value(default)
        } else {
            continue;
        };
        object.params.push((p.name.to_string(), value));
    }
    for (name, literal) in python.selects {
        object
            .params
            .push((name.to_string(), literal_value(literal)));
    }
    if map.kernels.len() > 1 {
        object
            .params
            .push(("kernel".into(), Py::Text(setup.kernel.name.into())));
    }
    if let (Some(_), Some(sigma)) = (setup.kernel.bandwidth_param(), sigma) {
        object.params.push(("sigma".into(), Py::Float(sigma)));
    }
    object.params.extend(kernel_params(setup));
    object.params.push(("random_state".into(), seed(setup)?));
    Some(object)
}

fn literal_value(literal: &str) -> Py {
    match literal {
        "True" => Py::Bool(true),
        "False" => Py::Bool(false),
        text => Py::Text(text.trim_matches('"').to_string()),
    }
}

fn seed(setup: &Setup) -> Option<Py> {
    i64::try_from(setup.seed).ok().map(Py::Int)
}

/// scikit-learn's `gamma` of the kernel at bandwidth `sigma`, where its kernel of the same
/// kind takes one (the registry's `sklearn.gamma`).
fn sklearn_gamma(kernel: &KernelInfo, sigma: f64) -> Option<f64> {
    kernel.sklearn?.gamma.map(|gamma| gamma(sigma))
}

/// The kernel as scikit-learn's `pairwise_kernels` names it (`Nystroem`, `KernelRidge`):
/// `kernel=...` and its parameters; `None` for a kernel it has no name for (Matern: a
/// callable, taken pair by pair).
fn pairwise_kernel(setup: &Setup, sigma: Option<f64>) -> Option<Vec<(String, Py)>> {
    let kernel = setup.kernel;
    let name = kernel.sklearn?.metric?;
    let mut out = vec![("kernel".to_string(), Py::Text(name.into()))];
    match kernel.bandwidth_param() {
        Some(_) => out.push(("gamma".into(), Py::Float(sklearn_gamma(kernel, sigma?)?))),
        None => out.extend(kernel_params(setup)),
    }
    Some(out)
}

/// scikit-learn's own map where it has the same one: for this series and this kernel.
fn sklearn_map(setup: &Setup, series: Series, d: usize, sigma: Option<f64>) -> Option<Object> {
    const MODULE: &str = "sklearn.kernel_approximation";
    let own = series.map.sklearn_class?;
    if let Some((param, value)) = own.series {
        series.value_of(param).filter(|v| *v == value)?;
    }
    if !own.kernels.is_empty() && !own.kernels.contains(&setup.kernel.name) {
        return None;
    }
    let n = ("n_components".to_string(), Py::Int(i64::try_from(d).ok()?));
    let random_state = ("random_state".to_string(), seed(setup)?);
    let mut object = Object::new(MODULE, own.class);
    match own.kernel {
        SklearnMapKernel::Gamma => {
            let gamma = sklearn_gamma(setup.kernel, sigma?)?;
            object = object.with("gamma", Py::Float(gamma));
        }
        SklearnMapKernel::Metric => object.params = pairwise_kernel(setup, sigma)?,
        SklearnMapKernel::Params => object.params = kernel_params(setup),
    }
    object.params.insert(0, n);
    object.params.push(random_state);
    Some(object)
}

/// A learner's scikit-learn estimator with its penalty and settings.
fn estimator(setup: &Setup, learner: &LearnerInfo, penalty: f64) -> Option<Object> {
    let own = learner.sklearn?;
    let class = match own.classifier {
        Some(classifier) if setup.classification() => classifier,
        _ => own.class,
    };
    let mut object = Object::new(own.module, class).with(own.penalty, Py::Float(penalty));
    for (name, value) in own.settings {
        object = object.with(name, default_value(*value));
    }
    Some(object)
}

/// The learner on the features (or the raw inputs) with its tuned penalty.
fn linear_learner(setup: &Setup, penalty: f64) -> Option<Object> {
    setup.learner.sklearn?.kernel.is_none().then_some(())?;
    estimator(setup, setup.learner, penalty)
}

/// The exact kernel machine with its own bandwidth and penalty.
fn exact_learner(setup: &Setup, sigma: Option<f64>, penalty: f64) -> Option<Object> {
    let mut object = estimator(setup, setup.exact_learner, penalty)?;
    match setup.exact_learner.sklearn?.kernel? {
        SklearnLearnerKernel::Svc => {
            object.params.extend(svc_kernel(setup, sigma)?);
            Some(object)
        }
        SklearnLearnerKernel::CentredRidge => {
            let regressor = match pairwise_kernel(setup, sigma) {
                Some(kernel) => {
                    object.params.extend(kernel);
                    object
                }
                None => Object::new("sklearn.gaussian_process", "GaussianProcessRegressor")
                    .with("kernel", Py::Object(gaussian_process(setup, sigma?)?))
                    .with("alpha", Py::Float(penalty))
                    .with("optimizer", Py::None),
            };
            let centre =
                Object::new(PREPROCESSING, "StandardScaler").with("with_std", Py::Bool(false));
            Some(
                Object::new("sklearn.compose", "TransformedTargetRegressor")
                    .with("regressor", Py::Object(regressor))
                    .with("transformer", Py::Object(centre)),
            )
        }
    }
}

/// `SVC`'s kernel: a name it knows (`rbf`, `poly`), else a callable on two matrices.
fn svc_kernel(setup: &Setup, sigma: Option<f64>) -> Option<Vec<(String, Py)>> {
    match setup.kernel.sklearn?.svc {
        SvcKernel::Metric => pairwise_kernel(setup, sigma),
        SvcKernel::Function(name) => {
            let gamma = sklearn_gamma(setup.kernel, sigma?)?;
            let partial = Object {
                module: "functools",
                class: "partial",
                args: vec![Py::Function {
                    module: "sklearn.metrics.pairwise",
                    name,
                }],
                params: vec![("gamma".into(), Py::Float(gamma))],
            };
            Some(vec![("kernel".into(), Py::Object(partial))])
        }
        SvcKernel::GaussianProcess => Some(vec![(
            "kernel".into(),
            Py::Object(gaussian_process(setup, sigma?)?),
        )]),
    }
}

/// scikit-learn's Gaussian-process kernel object (Matern) at length scale `sigma`, held fixed.
fn gaussian_process(setup: &Setup, sigma: f64) -> Option<Object> {
    let class = setup.kernel.sklearn?.gaussian_process?;
    let mut object = Object::new("sklearn.gaussian_process.kernels", class)
        .with("length_scale", Py::Float(sigma));
    object.params.extend(kernel_params(setup));
    Some(object.with("length_scale_bounds", Py::Text("fixed".into())))
}

impl Pipeline {
    /// The code with the `rfbench` package's map; `None` when the pipeline has no map (the
    /// baseline and the exact machine are scikit-learn's alone).
    pub fn rfbench_code(&self) -> Option<String> {
        let objects: Vec<(&str, &Object)> =
            self.steps.iter().map(|s| (s.name, &s.object)).collect();
        objects
            .iter()
            .any(|(_, o)| o.module == "rfbench")
            .then(|| pipeline_code(&self.comments, &objects))
    }

    /// The code with scikit-learn's classes only; `None` when scikit-learn has no such map.
    pub fn scikit_learn_code(&self) -> Option<String> {
        let objects = self
            .steps
            .iter()
            .map(|s| match (&s.scikit_learn, s.object.module) {
                (Some(own), _) => Some((s.name, own)),
                (None, "rfbench") => None,
                (None, _) => Some((s.name, &s.object)),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(pipeline_code(&self.comments, &objects))
    }

    /// `answer.json`'s `scikit_learn`.
    pub fn json(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| {
                let mut step = object_json(&s.object);
                step.insert("name".into(), s.name.into());
                if let Some(own) = &s.scikit_learn {
                    step.insert("scikit_learn".into(), Value::Object(object_json(own)));
                }
                Value::Object(step)
            })
            .collect();
        json!({
            "pick": self.pick,
            "kind": self.kind.name(),
            "steps": steps,
            "rfbench": self.rfbench_code(),
            "scikit_learn": self.scikit_learn_code(),
        })
    }
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
