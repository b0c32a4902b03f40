//! The crate's one error type: every invalid parameter or input carries the offending values.

use thiserror::Error;

/// Errors from checking parameters, fitting or applying a feature map.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum MapError {
    /// A kernel parameter out of its range: the one error for a bad kernel, whichever type or
    /// map it was given to (`degree` is reported as an `f64`).
    #[error("{kernel} kernel: {parameter} = {value} is out of range (valid: {valid})")]
    InvalidKernelParameter {
        kernel: &'static str,
        parameter: &'static str,
        value: f64,
        valid: &'static str,
    },
    #[error("n_components (D) must be at least 1, got {0}")]
    ZeroComponents(usize),
    #[error("degree (p) = {got} is larger than the supported maximum {max}")]
    DegreeTooLarge { got: u32, max: u32 },
    #[error("input dimension (d) must be at least 1, got {0}")]
    ZeroInputDim(usize),
    #[error("input has {got} columns but the map was fitted for d = {expected}")]
    DimensionMismatch { expected: usize, got: usize },
    #[error("non-finite input value {value} at row {row}, column {col}")]
    NonFinite { row: usize, col: usize, value: f64 },
    #[error("output buffer has shape {got:?}, expected {expected:?}")]
    OutputShape {
        expected: (usize, usize),
        got: (usize, usize),
    },
    #[error("invalid CSR matrix: {0}")]
    InvalidCsr(String),
    #[error("number of grids (P) must be at least 1, got {0}")]
    ZeroGrids(usize),
    #[error("hash width must be at least 1, got {0}")]
    ZeroWidth(usize),
    #[error("{n_grids} grids x width {width} columns do not fit u32 column indices")]
    BinningTooWide { n_grids: usize, width: usize },
    #[error("{landmarks} landmarks requested but the data has only {n_samples} rows")]
    TooManyLandmarks { landmarks: usize, n_samples: usize },
    #[error("relative eigenvalue cutoff must be in [0, 1), got {0}")]
    InvalidEigenvalueCutoff(f64),
    #[error("symmetric eigendecomposition failed: {0}")]
    EigenDecomposition(String),
    #[error("batch size must be at least 1, got {0}")]
    ZeroBatchSize(usize),
    #[error("{name} must be a {valid}, got {value}")]
    InvalidOptimizerParameter {
        name: &'static str,
        value: f64,
        valid: crate::Interval,
    },
    #[error(
        "the projections w'x of row {row} overflow (not finite in floating point): its values \
         are too large for this map's frequencies; scale the input down"
    )]
    ProjectionOverflow { row: usize },
    #[error("fitting needs at least one data row, got none")]
    EmptyData,
    #[error("the paired [cos, sin] form needs an even n_components (D), got {0}")]
    OddComponents(usize),
    #[error("{map} does not support the {kernel} kernel")]
    UnsupportedKernel {
        map: &'static str,
        kernel: &'static str,
    },
    #[error("linear algebra failed: {0}")]
    Linalg(String),
    #[error("inconsistent serialised {map}: {reason}")]
    InvalidSerializedMap { map: &'static str, reason: String },
    #[error("linfa: {0}")]
    Linfa(String),
}

impl From<linfa::Error> for MapError {
    fn from(e: linfa::Error) -> Self {
        MapError::Linfa(e.to_string())
    }
}

/// `Ok(())` if `holds`, else [`MapError::InvalidSerializedMap`] with the reason: the checks that
/// deserialisation runs so that a tampered or truncated map is an error when it is read, not a
/// panic (or silent garbage) when it is applied.
pub(crate) fn ensure(
    holds: bool,
    map: &'static str,
    reason: impl FnOnce() -> String,
) -> Result<()> {
    if holds {
        Ok(())
    } else {
        Err(MapError::InvalidSerializedMap {
            map,
            reason: reason(),
        })
    }
}

/// `Result` with [`MapError`].
pub type Result<T> = std::result::Result<T, MapError>;
