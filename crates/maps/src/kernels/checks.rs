//! What every exact kernel checks, shared by [`Kernel`](super::Kernel) and
//! [`ShiftInvariantKernel`](super::shift_invariant::ShiftInvariantKernel): each parameter's valid
//! range, a bad value being always the one error [`MapError::InvalidKernelParameter`] naming the
//! kernel, the parameter and the range; and that two sets of rows have one dimension.

use crate::csr::Rows;
use crate::error::{MapError, Result};

/// The valid range of a bandwidth or a scale.
const POSITIVE: &str = "finite and > 0";
const NON_NEGATIVE: &str = "finite and >= 0";
const FINITE: &str = "finite";
const DEGREE: &str = ">= 1";
const MATERN_NU: &str = "0.5, 1.5 or 2.5";

/// `Ok` if `holds`, else the one error for a bad kernel parameter.
pub(super) fn ensure_kernel_parameter(
    holds: bool,
    kernel: &'static str,
    parameter: &'static str,
    value: f64,
    valid: &'static str,
) -> Result<()> {
    if holds {
        Ok(())
    } else {
        Err(MapError::InvalidKernelParameter {
            kernel,
            parameter,
            value,
            valid,
        })
    }
}

/// A bandwidth or scale: finite and `> 0`.
pub(crate) fn check_positive(
    kernel: &'static str,
    parameter: &'static str,
    value: f64,
) -> Result<()> {
    ensure_kernel_parameter(
        value.is_finite() && value > 0.0,
        kernel,
        parameter,
        value,
        POSITIVE,
    )
}

pub(super) fn check_degree(degree: u32) -> Result<()> {
    ensure_kernel_parameter(degree >= 1, "polynomial", "degree", degree as f64, DEGREE)
}

/// The exact polynomial kernel's offset: any finite value, as LIBSVM's and scikit-learn's
/// `coef0`. A negative offset makes the kernel indefinite, which the exact kernel's users
/// tolerate (Nystroem drops the non-positive eigenvalues of `K_mm`); the sketches, which append
/// the coordinate `sqrt(offset)`, need [`check_offset`]'s `>= 0`.
pub(super) fn check_kernel_offset(offset: f64) -> Result<()> {
    ensure_kernel_parameter(offset.is_finite(), "polynomial", "offset", offset, FINITE)
}

pub(super) fn check_offset(offset: f64) -> Result<()> {
    ensure_kernel_parameter(
        offset.is_finite() && offset >= 0.0,
        "polynomial",
        "offset",
        offset,
        NON_NEGATIVE,
    )
}

/// Matern's smoothness: one of the closed forms.
pub(super) fn check_matern_nu(nu: f64) -> Result<()> {
    ensure_kernel_parameter([0.5, 1.5, 2.5].contains(&nu), "matern", "nu", nu, MATERN_NU)
}

/// Two sets of rows for a cross Gram matrix. Panics when their column counts differ (a caller's
/// defect: every front end checks the data first).
pub(super) fn same_dimension<'a, 'b>(
    a: impl Into<Rows<'a>>,
    b: impl Into<Rows<'b>>,
) -> (Rows<'a>, Rows<'b>) {
    let (a, b) = (a.into(), b.into());
    assert_eq!(
        a.n_cols(),
        b.n_cols(),
        "both sets of rows need the same dimension"
    );
    (a, b)
}
