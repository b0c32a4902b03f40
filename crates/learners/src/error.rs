//! The crate's one error type: every invalid parameter or input carries the offending values.

use rfbench_maps::MapError;
use thiserror::Error;

/// Errors from checking parameters, fitting or applying a learner.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum LearnerError {
    #[error("the training data has no rows")]
    EmptyData,
    #[error("the training data has no columns")]
    NoFeatures,
    #[error("{rows} rows of input but {labels} labels/targets")]
    LengthMismatch { rows: usize, labels: usize },
    #[error("classification needs at least two classes, the labels hold only {label}")]
    SingleClass { label: i64 },
    #[error("non-finite input value {value} at row {row}, column {col}")]
    NonFinite { row: usize, col: usize, value: f64 },
    #[error("non-finite target {value} at row {row}, output {output}")]
    NonFiniteTarget {
        row: usize,
        output: usize,
        value: f64,
    },
    #[error("label {value} at row {row} is not an integer class label")]
    NonIntegerLabel { row: usize, value: f64 },
    #[error("C must be finite and > 0, got {0}")]
    InvalidC(f64),
    #[error("stopping tolerance eps must be finite and > 0, got {0}")]
    InvalidTolerance(f64),
    #[error("max_iter must be at least 1, got {0}")]
    ZeroMaxIter(usize),
    #[error("the primal Newton solver needs a differentiable loss: the squared hinge (L2), not the hinge (L1)")]
    PrimalNeedsSquaredHinge,
    #[error(
        "features produced a block at a time need the primal solver (solver \"auto\" or \"primal\"); \
         dual coordinate descent visits rows in random order"
    )]
    StreamedNeedsPrimal,
    #[error("bias feature value must be finite and > 0, got {0}")]
    InvalidBias(f64),
    #[error("weight of class {label} must be finite and > 0, got {weight}")]
    InvalidClassWeight { label: i64, weight: f64 },
    #[error("class {label} has a weight but does not occur in the training labels")]
    UnknownClassWeight { label: i64 },
    #[error("lambda must be finite and >= 0, got {0}")]
    InvalidLambda(f64),
    #[error("the lambda grid for cross-validation is empty")]
    EmptyLambdaGrid,
    #[error("the {parameter} grid for cross-validation is empty")]
    EmptyGrid { parameter: &'static str },
    #[error(
        "grid extension limits must satisfy 0 < lower <= upper < infinity, got lower = {lower}, \
         upper = {upper}"
    )]
    InvalidGridLimits { lower: f64, upper: f64 },
    #[error("cross-validation needs at least 2 folds, got {0}")]
    TooFewFolds(usize),
    #[error("label {label} is not among the classes given")]
    UnknownLabel { label: i64 },
    #[error("cross-validation needs 2 <= folds <= n rows, got {folds} folds for {rows} rows")]
    InvalidFolds { folds: usize, rows: usize },
    #[error("input has {got} columns but {expected} were expected")]
    DimensionMismatch { expected: usize, got: usize },
    #[error("targets have {got} outputs but {expected} were expected")]
    OutputMismatch { expected: usize, got: usize },
    #[error("the true targets are all equal to {0}: normalised RMSE is undefined")]
    ConstantTargets(f64),
    #[error(
        "Z'Z + lambda I is not positive definite (lambda = {lambda}); \
         use lambda > 0 or more rows than features"
    )]
    NotPositiveDefinite { lambda: f64 },
    #[error("linear algebra failure: {0}")]
    LinearAlgebra(String),
    #[error(
        "the exact kernel matrix for {rows} rows needs {bytes} bytes, above the limit of \
         {limit} bytes"
    )]
    KernelTooLarge {
        rows: usize,
        bytes: u128,
        limit: u128,
    },
    /// A failure of the pipeline around a learner, in [`crate::cross_validate_parameter`]'s
    /// loss (fitting a feature map on a fold, say), passed through with its message.
    #[error("{0}")]
    Pipeline(String),
    #[error("kernel cache size must be > 0 bytes, got {0}")]
    InvalidCacheSize(u64),
    #[error(
        "a kernel cache of {bytes} bytes cannot hold two kernel rows of {rows} entries \
         ({needed} bytes)"
    )]
    CacheTooSmall {
        bytes: u64,
        rows: usize,
        needed: u64,
    },
    #[error("linfa: {0}")]
    Linfa(String),
    #[error("input error: {0}")]
    Input(#[from] MapError),
}

/// `Result` with [`LearnerError`].
pub type Result<T> = std::result::Result<T, LearnerError>;

/// The checks every SVM's parameters share: C and eps finite and positive, an iteration cap (if
/// any) of at least one, an optional penalised bias term finite and positive.
pub(crate) fn check_svm_params(
    c: f64,
    eps: f64,
    max_iter: Option<usize>,
    bias: Option<f64>,
) -> Result<()> {
    if !(c.is_finite() && c > 0.0) {
        return Err(LearnerError::InvalidC(c));
    }
    if !(eps.is_finite() && eps > 0.0) {
        return Err(LearnerError::InvalidTolerance(eps));
    }
    if max_iter == Some(0) {
        return Err(LearnerError::ZeroMaxIter(0));
    }
    match bias {
        Some(b) if !(b.is_finite() && b > 0.0) => Err(LearnerError::InvalidBias(b)),
        _ => Ok(()),
    }
}
