//! The feature maps a spec can name: one entry per map of `rfbench-maps`, plus `exact` (the kernel
//! machine itself, no features) and `none` (the raw inputs). The kernel and the seed come from the
//! cell; the entry's constructor turns the rest of the cell's parameters into an object-safe map.

use rfbench_maps::{
    DynFeatureMap, FastfoodParams, FastfoodTransform, FourierForm, Kernel, MapError,
    NystroemParams, OrthogonalRandomFeaturesParams, PrffParams, PrffWeighting, RandomBinningParams,
    RandomFourierParams, RandomMaclaurinH01Params, RandomMaclaurinParams, RevrandOrthogonalParams,
    Rows, StructuredOrthogonalParams, TensorSketchParams,
};

use super::params::{choice, count, real, Default, ParamKind, ParamSpec, ParamValues, MAX_COUNT};
use super::python::{python_class, PythonClass, SklearnMap, SklearnMapKernel};

/// A map's configuration from the cell's parameters and kernel (its bandwidth resolved, or a
/// stand-in at plan time): no data, no seed.
pub type MapConstructor = fn(&ParamValues, &Kernel) -> Result<Box<dyn MapConfig>, MapError>;

/// How a "map" entry turns inputs into what the learner sees.
#[derive(Clone, Copy)]
pub enum Features {
    /// A random feature map.
    Map(MapConstructor),
    /// No features: the learner works on the exact kernel (`kernel-svm`, `kernel-ridge`).
    Exact,
    /// The raw input rows (a linear model on the inputs).
    Raw,
}

/// A registry entry.
#[derive(Clone, Copy)]
pub struct MapInfo {
    pub name: &'static str,
    /// The papers' abbreviation, for legends and tables.
    pub label: &'static str,
    pub doc: &'static str,
    pub paper: &'static str,
    pub params: &'static [ParamSpec],
    /// The kernels (by [`Kernel::name`]) it approximates; empty for `none`.
    pub kernels: &'static [&'static str],
    /// Whether fitting looks at the training rows (Nystroem's landmarks, PRFF's optimisation).
    pub fits_on_data: bool,
    /// Whether its components are training rows (Nystroem's landmarks): at most as many as the
    /// rows it is fitted on.
    pub components_are_rows: bool,
    /// Whether `rfbench compare` runs it unless maps are named. Random binning is not: its D is
    /// a number of grids whose features are `width` times as many, so its ladder would not
    /// compare with the others'.
    pub in_default_comparison: bool,
    /// `Some(why)` for a paper's own variant of another map, kept as a reading of that paper
    /// (revrand's ORF, the PRFF paper's baseline): specs run it; `rfbench compare` does not sweep
    /// it unless named and the Python package does not offer it, since it is not the
    /// approximation of its kernel that its name suggests.
    pub reading_of: Option<&'static str>,
    /// The power of D its fit and transform time grow with for large D, from the algorithm:
    /// `rfbench compare` never extrapolates its pilot's timings past the pilot's D with a smaller
    /// power (PRFF's descent is O(B^2 D^2): timed at D = 64 and 512 on 600 rows it looked like
    /// D^1.25, and D = 4096 took 95 s a repetition where that predicted 42 s; D^2 predicts 198 s).
    pub cost_growth: f64,
    /// The multiply-adds of fitting and mapping `rows` rows beyond a `D x d` projection of each,
    /// from the parameters, `D` and `d` (the runner's scheduler orders runs by it, beside the
    /// projection): Nystroem's `D^3` eigendecomposition and `D x D` normalisation of every row,
    /// PRFF's descent; 0 for maps that only project.
    pub extra_work: fn(params: &ParamValues, width: f64, d: f64, rows: f64) -> f64,
    pub features: Features,
    /// scikit-learn's counterpart, with what its `n_components` is against this map's D
    /// (`rfbench compare` prints it beside its answer); `None` where scikit-learn has none.
    pub sklearn: Option<&'static str>,
    /// The `rfbench` Python package's class of it; `None` where the package has none.
    pub python_class: Option<PythonClass>,
    /// scikit-learn's own class of it, for the answer's code; `None` where it has none.
    pub sklearn_class: Option<SklearnMap>,
    /// What the memory estimate needs to know of it (the runner's `memory` module only adds these up).
    pub size: MapSize,
    /// Values of its choice parameters that `rfbench compare` sweeps as series of their own,
    /// beside the map at its defaults, because they change what D buys: RFF's phase form spends
    /// D on D frequencies where the paired form spends it on D/2 (on a set of 180 binary-coded
    /// features with a large sigma, RFF paired scored 91.18 % at D = 256 and scikit-learn's
    /// RBFSampler, the phase form, 95.07 %; at D = 512 both 96.1-96.2 %). Empty for most maps:
    /// the orthogonal and structured maps' forms differ the same way, but every variant doubles
    /// a map's share of the budget, and RFF's is the one scikit-learn users hold theirs against.
    pub compare_variants: &'static [CompareVariant],
}

/// A series `rfbench compare` sweeps besides a map's own: the map with one choice parameter at
/// a value other than its default. Its name is what `--maps`, the report and `answer.json`
/// call it; a test checks it is `map:value`, that the value is one of the parameter's and not
/// its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareVariant {
    pub name: &'static str,
    /// The choice parameter, and its value in this series.
    pub param: &'static str,
    pub value: &'static str,
    /// For legends and tables.
    pub label: &'static str,
    /// scikit-learn's counterpart of this series, with what its `n_components` is against D
    /// (`None`: the map's own [`MapInfo::sklearn`]).
    pub sklearn: Option<&'static str>,
}

/// A map's sizes, from its parameters (defaults filled), in 8-byte values.
#[derive(Clone, Copy)]
pub struct MapSize {
    /// The columns of its (dense) features; `None` for `exact` and `none`, which make none.
    pub output_dim: fn(&ParamValues) -> Option<u128>,
    /// The values of its own state, given its parameters, its output dimension, the input dimension `d` and the
    /// kernel's degree (1 for kernels without one).
    pub state: fn(params: &ParamValues, output_dim: u128, d: u128, degree: u128) -> u128,
}

fn param(params: &ParamValues, name: &str) -> Option<u128> {
    params
        .get(name)
        .and_then(|v| v.as_usize())
        .map(|v| v as u128)
}

/// Maps that only project.
const NO_EXTRA_WORK: fn(&ParamValues, f64, f64, f64) -> f64 = |_, _, _, _| 0.0;

/// Nystroem: the landmarks' kernel and its eigendecomposition (`D^2 d + D^3`), then each row's
/// kernel values through the `D x D` normalisation.
fn nystroem_work(_: &ParamValues, width: f64, d: f64, rows: f64) -> f64 {
    width * width * (d + width) + rows * width * width
}

/// PRFF's fit (rfbench-maps' prff module): per feature `j`, the batch's exact kernel (`B^2 d`),
/// the previous features' part of the target (`B^2 j`), and `max_iterations` descent steps
/// (`B^2 + B d` each); every row's cosine per feature (`n D d`) once.
fn prff_work(p: &ParamValues, width: f64, d: f64, rows: f64) -> f64 {
    let count = |name| p.get(name).and_then(|v| v.as_usize()).unwrap_or(0) as f64;
    let (b, steps) = (count("batch_size"), count("max_iterations"));
    width * (b * b * d + steps * (b * b + b * d)) + b * b * width * width / 2.0 + rows * width * d
}

/// `n_components` columns; a `D x d` projection (RFF, ORF, PRFF's frequencies).
const PROJECTION: MapSize = MapSize {
    output_dim: |p| param(p, "n_components"),
    state: |_, dim, d, _| dim * d,
};

/// Random Maclaurin: up to `degree` sign vectors of length `d` per feature (a bound: the
/// number of factors per feature is random, its mean below 1).
const PRODUCTS: MapSize = MapSize {
    output_dim: |p| param(p, "n_components"),
    state: |_, dim, d, degree| dim * d * degree,
};

/// Tensor Sketch: `degree` count sketches (a hash and a sign per input coordinate).
const SKETCHES: MapSize = MapSize {
    output_dim: |p| param(p, "n_components"),
    state: |_, _, d, degree| 2 * d * degree,
};

/// SORF, Fastfood: a few diagonals of the padded dimension per block of `D` (a bound of 4 per
/// column and input coordinate's block).
const STRUCTURED: MapSize = MapSize {
    output_dim: |p| param(p, "n_components"),
    state: |_, dim, d, _| 4 * (dim + d),
};

/// Nystroem: the landmarks (`D x d`) and the `D x D` normalisation.
const LANDMARKS: MapSize = MapSize {
    output_dim: |p| param(p, "n_components"),
    state: |_, dim, d, _| dim * d + dim * dim,
};

/// Random binning: `P` grids of `width` hashed columns each, dense as every map's features
/// (`P x width` columns); each grid keeps a shift and a pitch per input coordinate.
const BINNING: MapSize = MapSize {
    output_dim: |p| Some(param(p, "n_grids")? * param(p, "width")?),
    state: |p, _, d, _| 2 * d * param(p, "n_grids").unwrap_or(1),
};

/// No features (`exact`, `none`).
const NO_FEATURES: MapSize = MapSize {
    output_dim: |_| None,
    state: |_, _, _, _| 0,
};

/// D, every map's size parameter but random binning's.
pub const N_COMPONENTS: ParamSpec = count(
    "n_components",
    None,
    "D, the number of features (the paired Fourier form needs it even)",
);
const FORM: ParamSpec = choice(
    "form",
    &["paired", "phase"],
    "paired",
    "paired: [cos, sin] of D/2 frequencies; phase: cos(w'x + b) of D frequencies",
);
const POLY: &[&str] = &["polynomial"];
const SHIFT: &[&str] = &["gaussian", "laplacian", "matern"];
/// Orthogonal and Fastfood frequencies: radial spectral densities only.
const RADIAL: &[&str] = &["gaussian", "matern"];

/// The `form` choice (checked against [`FORM`]'s names when the spec is read).
fn form(p: &ParamValues) -> FourierForm {
    FourierForm::from_name(p.text("form")).unwrap_or_default()
}

/// A map's hyper-parameters read from a cell, before any data: [`MapConfig::check`] runs the
/// library's own `check()` at plan time (so the paired form's even D and the sketches' gamma = 1
/// fail before anything runs), [`MapConfig::fit`] builds the map at run time.
pub trait MapConfig {
    fn check(&self) -> Result<(), MapError>;
    fn fit(&self, seed: u64, train: Rows<'_>) -> Result<Box<dyn DynFeatureMap>, MapError>;
    /// The config's `Debug` text.
    #[cfg(test)]
    fn described(&self) -> String;
    /// The `Debug` text of the library's own config of this type for `kernel` and `size` (its
    /// `for_kernel`: every other parameter at the library's default).
    #[cfg(test)]
    fn library_default(&self, kernel: &Kernel, size: usize) -> Result<String, MapError>;
}

/// [`MapConfig`]'s test-only methods, the same for every library params type.
macro_rules! described {
    ($params:ty) => {
        #[cfg(test)]
        fn described(&self) -> String {
            format!("{self:?}")
        }
        #[cfg(test)]
        fn library_default(&self, kernel: &Kernel, size: usize) -> Result<String, MapError> {
            Ok(format!("{:?}", <$params>::for_kernel(kernel, size)?))
        }
    };
}

/// `MapConfig` for a library params type: `fits on dimension` maps take the input dimension,
/// `fits on rows` maps (Nystroem, PRFF) the training rows themselves.
macro_rules! map_config {
    ($params:ty, fits on dimension) => {
        impl MapConfig for $params {
            fn check(&self) -> Result<(), MapError> {
                self.clone().check().map(|_| ())
            }
            fn fit(&self, seed: u64, train: Rows<'_>) -> Result<Box<dyn DynFeatureMap>, MapError> {
                let map = self.clone().seed(seed).fit(train.n_cols())?;
                Ok(Box::new(map))
            }
            described!($params);
        }
    };
    ($params:ty, fits on rows) => {
        impl MapConfig for $params {
            fn check(&self) -> Result<(), MapError> {
                self.clone().check().map(|_| ())
            }
            fn fit(&self, seed: u64, train: Rows<'_>) -> Result<Box<dyn DynFeatureMap>, MapError> {
                let map = self.clone().seed(seed).fit(train)?;
                Ok(Box::new(map))
            }
            described!($params);
        }
    };
}

map_config!(TensorSketchParams, fits on dimension);
map_config!(RandomMaclaurinParams, fits on dimension);
map_config!(RandomMaclaurinH01Params, fits on dimension);
map_config!(RandomFourierParams, fits on dimension);
map_config!(OrthogonalRandomFeaturesParams, fits on dimension);
map_config!(StructuredOrthogonalParams, fits on dimension);
map_config!(RevrandOrthogonalParams, fits on dimension);
map_config!(FastfoodParams, fits on dimension);
map_config!(RandomBinningParams, fits on dimension);
map_config!(NystroemParams, fits on rows);
map_config!(PrffParams, fits on rows);

type Config = Result<Box<dyn MapConfig>, MapError>;

fn config(params: impl MapConfig + 'static) -> Config {
    Ok(Box::new(params))
}

fn tensor_sketch(p: &ParamValues, k: &Kernel) -> Config {
    config(TensorSketchParams::for_kernel(k, p.usize("n_components"))?)
}

fn random_maclaurin(p: &ParamValues, k: &Kernel) -> Config {
    config(RandomMaclaurinParams::for_kernel(
        k,
        p.usize("n_components"),
    )?)
}

fn random_maclaurin_h01(p: &ParamValues, k: &Kernel) -> Config {
    config(RandomMaclaurinH01Params::for_kernel(
        k,
        p.usize("n_components"),
    )?)
}

fn rff(p: &ParamValues, k: &Kernel) -> Config {
    config(RandomFourierParams::for_kernel(k, p.usize("n_components"))?.form(form(p)))
}

fn orf(p: &ParamValues, k: &Kernel) -> Config {
    config(OrthogonalRandomFeaturesParams::for_kernel(k, p.usize("n_components"))?.form(form(p)))
}

fn orf_revrand(p: &ParamValues, k: &Kernel) -> Config {
    config(RevrandOrthogonalParams::for_kernel(k, p.usize("n_components"))?.form(form(p)))
}

fn sorf(p: &ParamValues, k: &Kernel) -> Config {
    config(StructuredOrthogonalParams::for_kernel(k, p.usize("n_components"))?.form(form(p)))
}

fn fastfood_with(p: &ParamValues, k: &Kernel, transform: FastfoodTransform) -> Config {
    config(
        FastfoodParams::for_kernel(k, p.usize("n_components"))?
            .form(form(p))
            .transform(transform),
    )
}

fn fastfood(p: &ParamValues, k: &Kernel) -> Config {
    fastfood_with(p, k, FastfoodTransform::Hadamard)
}

fn fastfood_fft(p: &ParamValues, k: &Kernel) -> Config {
    fastfood_with(p, k, FastfoodTransform::Fourier)
}

fn random_binning(p: &ParamValues, k: &Kernel) -> Config {
    config(RandomBinningParams::for_kernel(k, p.usize("n_grids"))?.width(p.usize("width")))
}

fn nystroem(p: &ParamValues, k: &Kernel) -> Config {
    config(
        NystroemParams::for_kernel(k, p.usize("n_components"))?
            .eigenvalue_cutoff(p.f64("eigenvalue_cutoff")),
    )
}

fn prff(p: &ParamValues, k: &Kernel) -> Config {
    config(
        PrffParams::for_kernel(k, p.usize("n_components"))?
            .batch_size(p.usize("batch_size"))
            .learning_rate(p.f64("learning_rate"))
            .l2_penalty(p.f64("l2_penalty"))
            .max_iterations(p.usize("max_iterations"))
            .tolerance(p.f64("tolerance"))
            .weighting(
                PrffWeighting::from_name(p.text("weighting"))
                    .expect("validated against the weighting names"),
            ),
    )
}

impl MapInfo {
    /// Whether it is a random feature map (not `exact` or `none`).
    pub fn is_feature_map(&self) -> bool {
        matches!(self.features, Features::Map(_))
    }
}

impl std::fmt::Debug for MapInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "map {:?}", self.name)
    }
}

/// Every map, in the order `rfbench maps` lists them.
pub const MAPS: &[MapInfo] = &[
    MapInfo {
        name: "tensor-sketch",
        label: "TS",
        doc: "Tensor Sketch: the FFT of p count sketches; unbiased for (<x,y> + offset)^degree (gamma = 1).",
        paper: "Pham & Pagh 2013",
        params: &[N_COMPONENTS],
        kernels: POLY,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(tensor_sketch),
        sklearn: Some("sklearn.kernel_approximation.PolynomialCountSketch(n_components=D, degree=p, gamma=1, coef0=offset): the same sketch, D features"),
        python_class: python_class("TensorSketch", &[]),
        sklearn_class: Some(SklearnMap {
            class: "PolynomialCountSketch",
            kernel: SklearnMapKernel::Params,
            series: None,
            kernels: &[],
        }),
        size: SKETCHES,
        compare_variants: &[],
    },
    MapInfo {
        name: "random-maclaurin",
        label: "RM",
        doc: "Random Maclaurin: products of N Rademacher projections, P[N = n] = 2^-(n+1).",
        paper: "Kar & Karnick 2012",
        params: &[N_COMPONENTS],
        kernels: POLY,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(random_maclaurin),
        sklearn: None,
        python_class: python_class("RandomMaclaurin", &[("h01", "False")]),
        sklearn_class: None,
        size: PRODUCTS,
        compare_variants: &[],
    },
    MapInfo {
        name: "random-maclaurin-h01",
        label: "RM H0/1",
        doc: "Random Maclaurin with the exact degree-0 and degree-1 terms (Hamid et al. 2014's H0/1).",
        paper: "Hamid et al. 2014",
        params: &[N_COMPONENTS],
        kernels: POLY,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(random_maclaurin_h01),
        sklearn: None,
        python_class: python_class("RandomMaclaurin", &[("h01", "True")]),
        sklearn_class: None,
        size: PRODUCTS,
        compare_variants: &[],
    },
    MapInfo {
        name: "rff",
        label: "RFF",
        doc: "Random Fourier features (Random Kitchen Sinks): i.i.d. frequencies from the kernel's spectral density.",
        paper: "Rahimi & Recht 2007",
        params: &[N_COMPONENTS, FORM],
        kernels: SHIFT,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(rff),
        sklearn: Some("sklearn.kernel_approximation.RBFSampler(n_components=D, gamma=1/(2 sigma^2)), Gaussian kernel only: D frequencies with a random phase, our form = \"phase\"; our default form, \"paired\", takes the cos and sin of D/2 frequencies (at equal D half the frequencies: on data with many near-linear directions it needs a larger D)"),
        python_class: python_class("RandomFourierFeatures", &[]),
        sklearn_class: Some(SklearnMap {
            class: "RBFSampler",
            kernel: SklearnMapKernel::Gamma,
            series: Some(("form", "phase")),
            kernels: &["gaussian"],
        }),
        size: PROJECTION,
        compare_variants: &[CompareVariant {
            name: "rff:phase",
            param: "form",
            value: "phase",
            label: "RFF (phase)",
            sklearn: Some("sklearn.kernel_approximation.RBFSampler(n_components=D, gamma=1/(2 sigma^2)), Gaussian kernel only: the same form, D frequencies with a random phase, so its n_components is this D"),
        }],
    },
    MapInfo {
        name: "orf",
        label: "ORF",
        doc: "Orthogonal random features: frequencies from orthogonalised Gaussian blocks, chi-distributed norms.",
        paper: "Yu et al. 2016",
        params: &[N_COMPONENTS, FORM],
        kernels: RADIAL,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(orf),
        sklearn: None,
        python_class: python_class("OrthogonalRandomFeatures", &[]),
        sklearn_class: None,
        size: PROJECTION,
        compare_variants: &[],
    },
    MapInfo {
        name: "sorf",
        label: "SORF",
        doc: "Structured orthogonal random features: products of three Hadamard-diagonal blocks.",
        paper: "Yu et al. 2016",
        params: &[N_COMPONENTS, FORM],
        kernels: &["gaussian"],
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(sorf),
        sklearn: None,
        python_class: python_class("StructuredOrthogonalRandomFeatures", &[]),
        sklearn_class: None,
        size: STRUCTURED,
        compare_variants: &[],
    },
    MapInfo {
        name: "fastfood",
        label: "Fastfood",
        doc: "Fastfood with Walsh-Hadamard blocks: S H G Pi H B, O(D log d) per row.",
        paper: "Le, Sarlos & Smola 2013",
        params: &[N_COMPONENTS, FORM],
        kernels: RADIAL,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(fastfood),
        sklearn: None,
        python_class: python_class("Fastfood", &[("method", "\"hadamard\"")]),
        sklearn_class: None,
        size: STRUCTURED,
        compare_variants: &[],
    },
    MapInfo {
        name: "fastfood-fft",
        label: "Fastfood FFT",
        doc: "Fastfood with Fourier blocks instead of Hadamard ones.",
        paper: "Le, Sarlos & Smola 2013",
        params: &[N_COMPONENTS, FORM],
        kernels: RADIAL,
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(fastfood_fft),
        sklearn: None,
        python_class: python_class("Fastfood", &[("method", "\"fft\"")]),
        sklearn_class: None,
        size: STRUCTURED,
        compare_variants: &[],
    },
    MapInfo {
        name: "random-binning",
        label: "Binning",
        doc: "Random binning: P randomly shifted grids, one-hot bins hashed into `width` columns each.",
        paper: "Rahimi & Recht 2007",
        params: &[
            count("n_grids", None, "P, the number of grids"),
            count("width", Some(1 << 20), "hash columns per grid (collisions bias the kernel up by about 1/width)"),
        ],
        kernels: &["laplacian"],
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: false,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(random_binning),
        sklearn: None,
        python_class: python_class("RandomBinning", &[]),
        sklearn_class: None,
        size: BINNING,
        compare_variants: &[],
    },
    MapInfo {
        name: "nystroem",
        label: "Nystroem",
        doc: "Nystroem: n_components landmarks drawn from the training rows, K_mm^(-1/2) normalisation.",
        paper: "Williams & Seeger 2001",
        params: &[
            N_COMPONENTS,
            real("eigenvalue_cutoff", NystroemParams::EIGENVALUE_CUTOFF, 1e-10, "relative eigenvalue cutoff of K_mm^(-1/2)"),
        ],
        kernels: &["linear", "polynomial", "gaussian", "laplacian", "matern"],
        fits_on_data: true,
        components_are_rows: true,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 2.0,
        extra_work: nystroem_work,
        features: Features::Map(nystroem),
        sklearn: Some("sklearn.kernel_approximation.Nystroem(kernel=\"rbf\", gamma=1/(2 sigma^2), n_components=D) for the Gaussian kernel: D landmarks drawn uniformly from the training rows"),
        python_class: python_class("NystroemMap", &[]),
        sklearn_class: Some(SklearnMap {
            class: "Nystroem",
            kernel: SklearnMapKernel::Metric,
            series: None,
            kernels: &[],
        }),
        size: LANDMARKS,
        compare_variants: &[],
    },
    MapInfo {
        name: "prff",
        label: "PRFF",
        doc: "Pseudo-random Fourier features: RFF frequencies and phases optimised on the training rows.",
        paper: "Damodaran, Courty & Gosselin 2017 (PRFF)",
        params: &[
            N_COMPONENTS,
            count("batch_size", Some(128), "points per mini-batch"),
            real("learning_rate", PrffParams::LEARNING_RATE, 50.0, "step size of the stochastic gradient"),
            real("l2_penalty", PrffParams::L2_PENALTY, 0.0, "penalty on the frequencies' deviation"),
            ParamSpec {
                name: "max_iterations",
                // 0 is the library's random Fourier features (phase form) with the same draws.
                kind: ParamKind::Int { min: 0, max: MAX_COUNT },
                default: Some(Default::Int(100)),
                doc: "optimisation iterations (0: random Fourier features with the same draws)",
            },
            real("tolerance", PrffParams::TOLERANCE, 1e-8, "stop when the loss changes less"),
            choice("weighting", &["average", "residual"], "average", "the loss of feature j: average = eq. (4)'s second line, every feature 2/j; residual = its first line, the new feature 2 against the average of the ones before"),
        ],
        kernels: &["gaussian"],
        fits_on_data: true,
        components_are_rows: false,
        in_default_comparison: true,
        reading_of: None,
        cost_growth: 2.0,
        extra_work: prff_work,
        features: Features::Map(prff),
        sklearn: None,
        python_class: python_class("PseudoRandomFourierFeatures", &[]),
        sklearn_class: None,
        size: PROJECTION,
        compare_variants: &[],
    },
    MapInfo {
        name: "orf-revrand",
        label: "ORF (revrand)",
        doc: "revrand's OrthogonalRBF: orthogonal blocks with one set of d chi-distributed norms multiplying the input coordinates, not one norm per frequency; converges to a kernel of its norms, not to the Gaussian.",
        paper: "Damodaran, Courty & Gosselin 2017 (PRFF)'s ORF baseline",
        params: &[N_COMPONENTS, FORM],
        kernels: &["gaussian"],
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: false,
        reading_of: Some("the PRFF paper's ORF baseline as revrand implements it (docs/papers.md): \
            kept beside Yu et al.'s ORF to decide the paper's ORF claims on the map it ran"),
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Map(orf_revrand),
        sklearn: None,
        python_class: None,
        sklearn_class: None,
        size: PROJECTION,
        compare_variants: &[],
    },
    MapInfo {
        name: "exact",
        label: "exact",
        doc: "No features: the learner works on the exact kernel (kernel-svm, kernel-ridge).",
        paper: "",
        params: &[],
        kernels: &["linear", "polynomial", "gaussian", "laplacian", "matern"],
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: false,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Exact,
        sklearn: None,
        python_class: None,
        sklearn_class: None,
        size: NO_FEATURES,
        compare_variants: &[],
    },
    MapInfo {
        name: "none",
        label: "linear",
        doc: "No map: the raw inputs (a linear model on them).",
        paper: "",
        params: &[],
        kernels: &[],
        fits_on_data: false,
        components_are_rows: false,
        in_default_comparison: false,
        reading_of: None,
        cost_growth: 1.0,
        extra_work: NO_EXTRA_WORK,
        features: Features::Raw,
        sklearn: None,
        python_class: None,
        sklearn_class: None,
        size: NO_FEATURES,
        compare_variants: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel;
    use crate::kernels::KERNELS;
    use crate::library_defaults::compare_defaults;
    use crate::params::{assert_ranges_agree, defaults};

    fn checked(map: &MapInfo, params: &ParamValues, kernel: &Kernel) -> Result<(), MapError> {
        let Features::Map(construct) = map.features else {
            unreachable!("only maps with features are checked")
        };
        construct(params, kernel)?.check()
    }

    fn with_features() -> impl Iterator<Item = &'static MapInfo> {
        MAPS.iter()
            .filter(|m| matches!(m.features, Features::Map(_)))
    }

    /// The registry's list of kernels is what the library accepts: a spec pairing a map with a
    /// kernel is refused by the registry exactly when the library would refuse it.
    #[test]
    fn a_map_lists_a_kernel_exactly_when_the_library_accepts_it() {
        for map in with_features() {
            for info in KERNELS {
                let kernel = (info.build)(&defaults(info.params)).unwrap();
                let accepted = checked(map, &defaults(map.params), &kernel);
                assert_eq!(
                    accepted.is_ok(),
                    map.kernels.contains(&info.name),
                    "map {} with kernel {}: library says {accepted:?}",
                    map.name,
                    info.name
                );
            }
        }
    }

    /// A real parameter's interval in the registry is the one the library's `check()` applies:
    /// each end and a step past it are accepted or refused alike.
    #[test]
    fn a_real_parameters_range_is_the_one_the_library_checks() {
        let mut tested = 0;
        for map in with_features() {
            let kernel = kernel(map.kernels[0]).unwrap();
            let kernel = (kernel.build)(&defaults(kernel.params)).unwrap();
            tested += assert_ranges_agree(&format!("map {}", map.name), map.params, |p| {
                checked(map, p, &kernel).is_ok()
            });
        }
        assert!(tested >= 12, "only {tested} values tested");
    }

    /// Every parameter's registry default is the library's own: the config the entry builds
    /// from the registry's defaults agrees with the library's `for_kernel` config (every other
    /// parameter at its default) on every field a parameter sets, and every parameter with a
    /// default sets one.
    #[test]
    fn a_parameters_registry_default_is_the_librarys() {
        let mut disagreements = Vec::new();
        for map in with_features() {
            let Features::Map(construct) = map.features else {
                unreachable!("only maps with features are compared")
            };
            let info = kernel(map.kernels[0]).unwrap();
            let kernel = (info.build)(&defaults(info.params)).unwrap();
            let values = defaults(map.params);
            // The size parameter (D, or random binning's grids) is the one the spec must give.
            let size = map.params.iter().find(|p| p.default.is_none()).unwrap();
            let size = values.usize(size.name);
            let library = construct(&values, &kernel)
                .and_then(|config| config.library_default(&kernel, size))
                .unwrap();
            let build = |p: &ParamValues| construct(p, &kernel).unwrap().described();
            let name = format!("map {}", map.name);
            let found = compare_defaults(&name, map.params, build, &library);
            assert!(
                found.unheld.is_empty(),
                "{name}: {:?} set nothing",
                found.unheld
            );
            disagreements.extend(found.disagreements);
        }
        assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    }
}
