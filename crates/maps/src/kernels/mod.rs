//! Exact kernels: the one vocabulary ([`Kernel`]) every map is built from and tested against.
//!
//! | kernel | `k(x, y)` | parameters (valid range) |
//! |---|---|---|
//! | linear | `<x, y>` | none |
//! | polynomial | `(gamma <x, y> + offset)^degree` | `degree >= 1`; `gamma` finite `> 0`; `offset` finite (the sketches, [`PolynomialKernel`]: `>= 0`) |
//! | Gaussian | `exp(-‖x - y‖₂² / (2 sigma²))` | `sigma` finite `> 0` |
//! | Laplacian | `exp(-‖x - y‖₁ / sigma)` | `sigma` finite `> 0` |
//! | Matern | Rasmussen & Williams eq. 4.14, closed forms only | `nu` in {0.5, 1.5, 2.5}; `length_scale` finite `> 0` |
//!
//! **Bandwidth convention.** One `sigma` everywhere: the Gaussian's is the standard deviation of
//! the Gaussian in `exp(-‖x - y‖² / (2 sigma²))`; scikit-learn's and LIBSVM's `gamma` (`-g`) is
//! `1 / (2 sigma²)` ([`Kernel::gaussian_from_gamma`]). The Laplacian's `sigma` divides the L1
//! distance (Rahimi & Recht 2007's form). The polynomial kernel keeps LIBSVM's parameterisation
//! (`svm-train -t 1 -d degree -g gamma -r coef0`, [`Kernel::libsvm_polynomial`]) so that the same
//! three numbers go to both programs; the sketches (Tensor Sketch, Random Maclaurin) need
//! `gamma = 1`, the kernel [`PolynomialKernel`] `(<x, y> + c)^p`.
//!
//! **Why one enum.** The maps each take the part of it they can approximate
//! ([`ShiftInvariantKernel`], [`PolynomialKernel`]) and say so by an error when they cannot
//! (`for_kernel` on every map's params); a bad value is always the same error,
//! [`MapError::InvalidKernelParameter`], naming the kernel, the parameter and its valid range.
//!
//! **Gram matrices.** [`Kernel::eval`] is the entry-by-entry reference. [`Kernel::cross_gram`]
//! computes blocks of rows by one matrix product each (`X Y'`, module `block_product`), then the
//! kernel from the inner products (polynomial) or from `‖x‖² + ‖y‖² - 2 x'y` (Gaussian, Matern,
//! clamped at 0 against cancellation, as scikit-learn does; Matern's close pairs, where `sqrt`
//! would magnify the cancellation, from the differences); the L1 distances of the Laplacian are
//! no product and are computed entry by entry. It matches `eval` to rounding (tested) and gives
//! the same bits whatever the number of threads (the blocks are fixed).

use ndarray::{s, Array2, ArrayView2, ArrayViewMut2, CowArray, Ix2};
use serde::{Deserialize, Serialize};

use crate::block_product::{for_each_row_block, product_into};
use crate::csr::{Row, Rows};
use crate::error::{MapError, Result};
mod checks;
pub mod shift_invariant;

pub(crate) use checks::check_positive;
use checks::{
    check_degree, check_kernel_offset, check_offset, ensure_kernel_parameter, same_dimension,
};
use shift_invariant::{matern_closed_form, ShiftInvariantKernel};

/// An exact kernel. Build it with the constructors, which validate; a value built from the
/// variants directly is validated by [`Kernel::check`] (every map's `check()` calls it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Kernel {
    /// `<x, y>`.
    Linear,
    /// `(gamma <x, y> + offset)^degree`; `offset` is LIBSVM's `coef0`.
    Polynomial {
        degree: u32,
        gamma: f64,
        offset: f64,
    },
    /// `exp(-‖x - y‖₂² / (2 sigma²))`.
    Gaussian { sigma: f64 },
    /// `exp(-‖x - y‖₁ / sigma)`.
    Laplacian { sigma: f64 },
    /// Matern with smoothness `nu` in {0.5, 1.5, 2.5} and length scale `l` (see
    /// [`ShiftInvariantKernel`] for the closed forms).
    Matern { nu: f64, length_scale: f64 },
}

impl Kernel {
    pub fn linear() -> Kernel {
        Kernel::Linear
    }

    /// `(<x, y> + offset)^degree` (`gamma = 1`): the kernel of the polynomial sketches.
    pub fn polynomial(degree: u32, offset: f64) -> Result<Kernel> {
        Self::libsvm_polynomial(degree, 1.0, offset)
    }

    /// LIBSVM's `svm-train -t 1 -d degree -g gamma -r coef0`: `(gamma <x, y> + coef0)^degree`.
    pub fn libsvm_polynomial(degree: u32, gamma: f64, coef0: f64) -> Result<Kernel> {
        Self::checked(Kernel::Polynomial {
            degree,
            gamma,
            offset: coef0,
        })
    }

    pub fn gaussian(sigma: f64) -> Result<Kernel> {
        Self::checked(Kernel::Gaussian { sigma })
    }

    /// The Gaussian `exp(-gamma ‖x - y‖₂²)` of scikit-learn and LIBSVM (`-g`), stored as
    /// `sigma = sqrt(1 / (2 gamma))` (so its values can differ from `exp(-gamma r²)` in the last
    /// bits).
    pub fn gaussian_from_gamma(gamma: f64) -> Result<Kernel> {
        check_positive("gaussian", "gamma", gamma)?;
        Self::gaussian((0.5 / gamma).sqrt())
    }

    pub fn laplacian(sigma: f64) -> Result<Kernel> {
        Self::checked(Kernel::Laplacian { sigma })
    }

    pub fn matern(nu: f64, length_scale: f64) -> Result<Kernel> {
        Self::checked(Kernel::Matern { nu, length_scale })
    }

    fn checked(self) -> Result<Kernel> {
        self.check()?;
        Ok(self)
    }

    /// Every parameter in its range (module docs), else [`MapError::InvalidKernelParameter`].
    pub fn check(&self) -> Result<()> {
        match *self {
            Kernel::Linear => Ok(()),
            Kernel::Polynomial {
                degree,
                gamma,
                offset,
            } => {
                check_degree(degree)?;
                check_positive(self.name(), "gamma", gamma)?;
                check_kernel_offset(offset)
            }
            Kernel::Gaussian { .. } | Kernel::Laplacian { .. } | Kernel::Matern { .. } => self
                .shift_invariant()
                .expect("a shift-invariant variant")
                .check(),
        }
    }

    /// `"linear"`, `"polynomial"`, `"gaussian"`, `"laplacian"` or `"matern"`.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Linear => "linear",
            Kernel::Polynomial { .. } => "polynomial",
            Kernel::Gaussian { .. } => "gaussian",
            Kernel::Laplacian { .. } => "laplacian",
            Kernel::Matern { .. } => "matern",
        }
    }

    /// `k(x, y)` for rows of the same dimension, dense or sparse in any combination: the
    /// reference every fast path is tested against.
    pub fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        match (*self, self.shift_invariant()) {
            (_, Some(k)) => k.eval(x, y),
            (Kernel::Linear, None) => x.dot(y),
            (
                Kernel::Polynomial {
                    degree,
                    gamma,
                    offset,
                },
                None,
            ) => polynomial_from_dot(degree, gamma, offset, x.dot(y)),
            (_, None) => unreachable!("every other kernel is shift-invariant"),
        }
    }

    /// `k(x, y)` from `xy = <x, y>`, `xx = <x, x>` and `yy = <y, y>`, for the kernels that are
    /// functions of these: linear and polynomial (the same operations as [`Kernel::eval`], so
    /// the same values; they ignore `xx` and `yy`), and the Gaussian, with
    /// `‖x - y‖² = xx + yy - 2 xy` clamped at 0 (equal to `eval` up to rounding, as LIBSVM
    /// computes it). `None` for the Laplacian and Matern kernels. A solver that keeps its rows'
    /// squared norms then needs one dot product per kernel value: a gather over a sparse row's
    /// non-zeros against a dense copy of the other row, where a distance between two sparse rows
    /// is a merge of their index lists.
    #[inline]
    pub fn from_dots(&self, xy: f64, xx: f64, yy: f64) -> Option<f64> {
        match *self {
            Kernel::Linear => Some(xy),
            Kernel::Polynomial {
                degree,
                gamma,
                offset,
            } => Some(polynomial_from_dot(degree, gamma, offset, xy)),
            Kernel::Gaussian { sigma } => {
                let sq = (xx + yy - 2.0 * xy).max(0.0);
                Some((-sq / (2.0 * sigma * sigma)).exp())
            }
            Kernel::Laplacian { .. } | Kernel::Matern { .. } => None,
        }
    }

    /// Whether [`Kernel::from_dots`] gives the kernel, and whether it reads the squared norms:
    /// `(has a dot form, needs the norms)`.
    pub fn dot_form(&self) -> (bool, bool) {
        match self {
            Kernel::Linear | Kernel::Polynomial { .. } => (true, false),
            Kernel::Gaussian { .. } => (true, true),
            Kernel::Laplacian { .. } | Kernel::Matern { .. } => (false, false),
        }
    }

    /// `K[i, j] = k(a_i, b_j)` by blocks of rows (module docs), in parallel; the same bits on any
    /// number of threads. Sparse rows are made dense first. Panics when the column counts differ.
    pub fn cross_gram<'a, 'b>(
        &self,
        a: impl Into<Rows<'a>>,
        b: impl Into<Rows<'b>>,
    ) -> Array2<f64> {
        let (a, b) = same_dimension(a, b);
        let (a, b) = (dense_rows(a), dense_rows(b));
        let b = b.view();
        let b_sq_norms = squared_norms(b);
        let mut out = Array2::zeros((a.nrows(), b.nrows()));
        for_each_row_block(out.view_mut(), |rows, block| {
            self.block_serial(a.slice(s![rows, ..]), b, &b_sq_norms, block);
        });
        out
    }

    /// The Gram matrix `K[i, j] = k(a_i, a_j)`, as [`Kernel::cross_gram`].
    pub fn gram<'a>(&self, a: impl Into<Rows<'a>>) -> Array2<f64> {
        let a = a.into();
        self.cross_gram(a, a)
    }

    /// The Gaussian, Laplacian or Matern kernel as the maps of shift-invariant kernels take it.
    pub fn shift_invariant(&self) -> Option<ShiftInvariantKernel> {
        match *self {
            Kernel::Gaussian { sigma } => Some(ShiftInvariantKernel::Gaussian { sigma }),
            Kernel::Laplacian { sigma } => Some(ShiftInvariantKernel::Laplacian { sigma }),
            Kernel::Matern { nu, length_scale } => {
                Some(ShiftInvariantKernel::Matern { nu, length_scale })
            }
            Kernel::Linear | Kernel::Polynomial { .. } => None,
        }
    }

    /// The polynomial kernel with `gamma = 1` as the polynomial sketches take it (`None` for any
    /// other kernel or gamma, and for invalid parameters).
    pub fn as_polynomial(&self) -> Option<PolynomialKernel> {
        match *self {
            Kernel::Polynomial {
                degree,
                gamma: 1.0,
                offset,
            } => PolynomialKernel::new(degree, offset).ok(),
            _ => None,
        }
    }

    /// `out[i, j] = k(x_i, y_j)` on the calling thread, for dense rows (`y_sq_norms[j] = ‖y_j‖²`):
    /// one matrix product `X Y'`, then the kernel from it while the block is in cache. Matches
    /// [`Kernel::eval`] to rounding: the expanded squared distance loses about
    /// `eps (‖x‖² + ‖y‖²)`.
    pub(crate) fn block_serial(
        &self,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        y_sq_norms: &[f64],
        mut out: ArrayViewMut2<'_, f64>,
    ) {
        if let Kernel::Laplacian { .. } = self {
            for (mut o, xr) in out.rows_mut().into_iter().zip(x.rows()) {
                for (v, yr) in o.iter_mut().zip(y.rows()) {
                    *v = self.eval(&Row::Dense(xr), &Row::Dense(yr));
                }
            }
            return;
        }
        product_into(x, y.t(), out.view_mut());
        for (mut o, xr) in out.rows_mut().into_iter().zip(x.rows()) {
            let squared_distances = |o: &mut ndarray::ArrayViewMut1<'_, f64>, factor: f64| {
                let x_sq = xr.dot(&xr);
                o.iter_mut().zip(y_sq_norms).for_each(|(v, &y_sq)| {
                    *v = factor * (x_sq + y_sq - 2.0 * *v).max(0.0);
                });
            };
            match *self {
                Kernel::Linear => {}
                Kernel::Polynomial {
                    degree,
                    gamma,
                    offset,
                } => o
                    .iter_mut()
                    .for_each(|v| *v = polynomial_from_dot(degree, gamma, offset, *v)),
                Kernel::Gaussian { sigma } => {
                    squared_distances(&mut o, -1.0 / (2.0 * sigma * sigma));
                    match o.as_slice_mut() {
                        Some(slice) => crate::fast_exp::exp_in_place(slice),
                        None => o.mapv_inplace(f64::exp),
                    }
                }
                Kernel::Matern { nu, length_scale } => {
                    squared_distances(&mut o, 1.0);
                    // `r = sqrt(r²)` magnifies the expanded form's absolute error `eps (‖x‖² +
                    // ‖y‖²)` near `r = 0`, where the Matern kernel of `nu = 1/2` has slope -1:
                    // close pairs get their distance from the differences instead.
                    let x_sq = xr.dot(&xr);
                    for ((v, yr), &y_sq) in o.iter_mut().zip(y.rows()).zip(y_sq_norms) {
                        if *v < CANCELLATION * (x_sq + y_sq) {
                            *v = xr.iter().zip(yr).map(|(a, b)| (a - b) * (a - b)).sum();
                        }
                        *v = matern_closed_form(nu, v.sqrt() / length_scale);
                    }
                }
                Kernel::Laplacian { .. } => unreachable!("handled above"),
            }
        }
    }
}

/// Squared distances below this fraction of `‖x‖² + ‖y‖²` are recomputed from the differences
/// (Matern): the expanded form's error there exceeds `1e-12` relative in `r²`, and more in `r`.
const CANCELLATION: f64 = 1e-4;

#[inline]
fn polynomial_from_dot(degree: u32, gamma: f64, offset: f64, dot: f64) -> f64 {
    powi_inline(gamma * dot + offset, degree)
}

/// `base^exponent` by repeated squaring: the multiplications of the compiler runtime's
/// `__powidf2`, which `f64::powi` calls when the exponent is known only at run time, in the same
/// order (so the same bits), but inlined: the call was 9 % of the polynomial kernel SVM's time on
/// Adult (a `perf` profile of the exact SVM, degree 4).
#[inline]
pub(crate) fn powi_inline(mut base: f64, exponent: u32) -> f64 {
    let (mut result, mut e) = (1.0, exponent);
    loop {
        if e & 1 == 1 {
            result *= base;
        }
        e >>= 1;
        if e == 0 {
            return result;
        }
        base *= base;
    }
}

impl From<ShiftInvariantKernel> for Kernel {
    fn from(k: ShiftInvariantKernel) -> Self {
        match k {
            ShiftInvariantKernel::Gaussian { sigma } => Kernel::Gaussian { sigma },
            ShiftInvariantKernel::Laplacian { sigma } => Kernel::Laplacian { sigma },
            ShiftInvariantKernel::Matern { nu, length_scale } => {
                Kernel::Matern { nu, length_scale }
            }
        }
    }
}

impl From<PolynomialKernel> for Kernel {
    fn from(k: PolynomialKernel) -> Self {
        Kernel::Polynomial {
            degree: k.degree(),
            gamma: 1.0,
            offset: k.offset(),
        }
    }
}

/// `‖r‖²` of every row.
pub(crate) fn squared_norms(rows: ArrayView2<'_, f64>) -> Vec<f64> {
    rows.rows().into_iter().map(|r| r.dot(&r)).collect()
}

/// Writes `row` into the dense buffer `out` (zeros where the row has none).
pub(crate) fn densify(row: &Row<'_>, out: &mut [f64]) {
    out.iter_mut().for_each(|o| *o = 0.0);
    row.for_each_nonzero(|j, v| out[j] = v);
}

/// `rows` as a dense row-major matrix: dense rows in that layout borrowed where they are (a
/// copy of a large sample per call was most of a Gram-error run's page faults), other views and
/// sparse rows copied, so the products see the layout they always saw.
fn dense_rows(rows: Rows<'_>) -> CowArray<'_, f64, Ix2> {
    match rows {
        Rows::Dense(view) if view.is_standard_layout() => CowArray::from(view),
        other => CowArray::from(to_dense(other)),
    }
}

/// A standard-layout dense copy of `rows`.
pub(crate) fn to_dense(rows: Rows<'_>) -> Array2<f64> {
    let mut out = Array2::zeros((rows.n_rows(), rows.n_cols()));
    for (i, mut o) in out.rows_mut().into_iter().enumerate() {
        densify(&rows.row(i), o.as_slice_mut().expect("standard layout"));
    }
    out
}

/// The polynomial kernel `k(x, y) = (<x, y> + c)^p` of the polynomial sketches (Tensor Sketch,
/// Random Maclaurin): homogeneous for `c = 0`, inhomogeneous for `c > 0`. The same kernel as
/// [`Kernel::polynomial`]`(p, c)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PolynomialKernel {
    degree: u32,
    offset: f64,
}

impl PolynomialKernel {
    /// `degree >= 1`, `offset` finite and `>= 0`, else [`MapError::InvalidKernelParameter`].
    pub fn new(degree: u32, offset: f64) -> Result<Self> {
        check_degree(degree)?;
        check_offset(offset)?;
        Ok(Self { degree, offset })
    }

    pub fn degree(&self) -> u32 {
        self.degree
    }

    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// `(t + c)^p` for an inner product `t`.
    #[inline]
    pub fn from_dot(&self, dot: f64) -> f64 {
        powi_inline(dot + self.offset, self.degree)
    }

    pub fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        self.from_dot(x.dot(y))
    }
}

/// The parameter checks every polynomial-kernel map shares (Tensor Sketch, Random Maclaurin), in
/// this order: degree `p >= 1`, `D >= 1`, offset `c` finite and `>= 0`.
pub(crate) fn check_polynomial_map(degree: u32, offset: f64, n_components: usize) -> Result<()> {
    check_degree(degree)?;
    if n_components == 0 {
        return Err(MapError::ZeroComponents(n_components));
    }
    check_offset(offset)
}

/// `(degree, offset)` of a kernel a polynomial sketch can approximate: a polynomial kernel with
/// `gamma = 1`; another gamma is an [`MapError::InvalidKernelParameter`], another kernel an
/// [`MapError::UnsupportedKernel`] naming `map`.
pub(crate) fn sketchable_polynomial(kernel: &Kernel, map: &'static str) -> Result<(u32, f64)> {
    kernel.check()?;
    match *kernel {
        Kernel::Polynomial {
            degree,
            gamma,
            offset,
        } => {
            ensure_kernel_parameter(
                gamma == 1.0,
                "polynomial",
                "gamma",
                gamma,
                "1 (this map sketches (<x,y> + offset)^degree)",
            )?;
            Ok((degree, offset))
        }
        _ => Err(MapError::UnsupportedKernel {
            map,
            kernel: kernel.name(),
        }),
    }
}

/// The shift-invariant part of a kernel, for a map of shift-invariant kernels (which then checks
/// which of them it supports); any other kernel is an [`MapError::UnsupportedKernel`].
pub(crate) fn shift_invariant_for(
    kernel: &Kernel,
    map: &'static str,
) -> Result<ShiftInvariantKernel> {
    kernel.check()?;
    kernel.shift_invariant().ok_or(MapError::UnsupportedKernel {
        map,
        kernel: kernel.name(),
    })
}

/// The Gaussian's `sigma` (a map of the Gaussian kernel only); any other kernel is an
/// [`MapError::UnsupportedKernel`].
pub(crate) fn gaussian_sigma_for(kernel: &Kernel, map: &'static str) -> Result<f64> {
    kernel.check()?;
    match *kernel {
        Kernel::Gaussian { sigma } => Ok(sigma),
        _ => Err(MapError::UnsupportedKernel {
            map,
            kernel: kernel.name(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::test_support::{gaussian_data, on_threads, sparse_data};
    use ndarray::array;

    /// The inlined power is `f64::powi`'s, bit for bit, on bases of every sign and size
    /// (results that overflow or underflow included) and the degrees the kernels take.
    #[test]
    fn the_inlined_power_is_powi_to_the_last_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for _ in 0..20_000 {
            let base = (rng.random::<f64>() - 0.5) * 10f64.powi(rng.random_range(-8..9));
            for degree in [1u32, 2, 3, 4, 5, 7, 8, 10, 16, 33, 100, 1000] {
                let expected = std::hint::black_box(base).powi(std::hint::black_box(degree) as i32);
                assert_eq!(
                    powi_inline(base, degree).to_bits(),
                    expected.to_bits(),
                    "{base}^{degree}"
                );
            }
        }
        assert_eq!(powi_inline(-0.0, 3).to_bits(), (-0.0f64).to_bits());
    }

    fn every_kernel() -> Vec<Kernel> {
        vec![
            Kernel::linear(),
            Kernel::polynomial(3, 1.0).unwrap(),
            Kernel::libsvm_polynomial(2, 0.25, 1.5).unwrap(),
            Kernel::gaussian(1.3).unwrap(),
            Kernel::laplacian(2.0).unwrap(),
            Kernel::matern(0.5, 2.0).unwrap(),
            Kernel::matern(1.5, 1.0).unwrap(),
            Kernel::matern(2.5, 3.0).unwrap(),
        ]
    }

    /// The entry-by-entry reference of `cross_gram`.
    fn naive_cross_gram(kernel: &Kernel, a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
        Array2::from_shape_fn((a.nrows(), b.nrows()), |(i, j)| {
            kernel.eval(&Row::Dense(a.row(i)), &Row::Dense(b.row(j)))
        })
    }

    #[test]
    fn values_and_errors() {
        let (x, y) = (array![1.0, 2.0], array![3.0, -1.0]);
        let (x, y) = (Row::Dense(x.view()), Row::Dense(y.view()));
        let k = PolynomialKernel::new(3, 1.0).unwrap();
        assert_eq!(k.eval(&x, &y), 8.0);
        assert_eq!(Kernel::polynomial(3, 1.0).unwrap().eval(&x, &y), 8.0);
        assert_eq!(Kernel::linear().eval(&x, &y), 1.0);
        // LIBSVM's parameterisation: (0.25 * 1 + 1.5)^2.
        assert_eq!(
            Kernel::libsvm_polynomial(2, 0.25, 1.5)
                .unwrap()
                .eval(&x, &y),
            1.75 * 1.75
        );
        // ‖x - y‖₂² = 4 + 9 = 13, ‖x - y‖₁ = 5.
        let g = Kernel::gaussian(2.0).unwrap();
        assert!((g.eval(&x, &y) - (-13.0f64 / 8.0).exp()).abs() < 1e-15);
        let from_gamma = Kernel::gaussian_from_gamma(0.125).unwrap();
        assert!((from_gamma.eval(&x, &y) - (-13.0f64 * 0.125).exp()).abs() < 1e-15);
        let l = Kernel::laplacian(2.5).unwrap();
        assert!((l.eval(&x, &y) - (-2.0f64).exp()).abs() < 1e-15);
        let m = Kernel::matern(0.5, 13f64.sqrt()).unwrap();
        assert!((m.eval(&x, &y) - (-1.0f64).exp()).abs() < 1e-15);

        assert_eq!(
            PolynomialKernel::new(0, 1.0),
            Err(MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "degree",
                value: 0.0,
                valid: ">= 1"
            })
        );
        assert_eq!(
            PolynomialKernel::new(2, -0.5).unwrap_err().to_string(),
            "polynomial kernel: offset = -0.5 is out of range (valid: finite and >= 0)"
        );
        // The exact kernel takes LIBSVM's and scikit-learn's negative coef0; a sketch of it
        // refuses it.
        let indefinite = Kernel::libsvm_polynomial(2, 0.5, -1.0).unwrap();
        assert!((indefinite.eval(&x, &y) - (0.5 * x.dot(&y) - 1.0).powi(2)).abs() < 1e-12);
        assert!(sketchable_polynomial(&indefinite, "TensorSketch")
            .and_then(|(p, c)| PolynomialKernel::new(p, c))
            .is_err());
    }

    #[test]
    fn invalid_parameters_name_kernel_parameter_and_range() {
        let cases: Vec<(Result<Kernel>, &str, &str, f64)> = vec![
            (Kernel::polynomial(0, 1.0), "polynomial", "degree", 0.0),
            (
                Kernel::polynomial(2, f64::INFINITY),
                "polynomial",
                "offset",
                f64::INFINITY,
            ),
            (
                Kernel::libsvm_polynomial(2, 0.0, 1.0),
                "polynomial",
                "gamma",
                0.0,
            ),
            (
                Kernel::libsvm_polynomial(2, -1.0, 1.0),
                "polynomial",
                "gamma",
                -1.0,
            ),
            (Kernel::gaussian(-1.0), "gaussian", "sigma", -1.0),
            (Kernel::gaussian_from_gamma(0.0), "gaussian", "gamma", 0.0),
            (Kernel::laplacian(0.0), "laplacian", "sigma", 0.0),
            (Kernel::matern(1.5, -2.0), "matern", "length_scale", -2.0),
            (Kernel::matern(1.0, 1.0), "matern", "nu", 1.0),
        ];
        for (result, kernel, parameter, value) in cases {
            match result {
                Err(MapError::InvalidKernelParameter {
                    kernel: k,
                    parameter: p,
                    value: v,
                    ..
                }) => assert_eq!((k, p, v), (kernel, parameter, value)),
                other => panic!("{kernel} {parameter} = {value}: {other:?}"),
            }
        }
        assert!(matches!(
            Kernel::gaussian(f64::NAN),
            Err(MapError::InvalidKernelParameter { value, .. }) if value.is_nan()
        ));
        assert_eq!(
            Kernel::gaussian(-1.0).unwrap_err().to_string(),
            "gaussian kernel: sigma = -1 is out of range (valid: finite and > 0)"
        );
        assert_eq!(
            Kernel::Matern {
                nu: 2.0,
                length_scale: 1.0
            }
            .check()
            .unwrap_err()
            .to_string(),
            "matern kernel: nu = 2 is out of range (valid: 0.5, 1.5 or 2.5)"
        );
        assert_eq!(Kernel::Linear.check(), Ok(()));
    }

    #[test]
    fn names_and_conversions() {
        let names: Vec<_> = every_kernel().iter().map(Kernel::name).collect();
        assert_eq!(
            names,
            [
                "linear",
                "polynomial",
                "polynomial",
                "gaussian",
                "laplacian",
                "matern",
                "matern",
                "matern"
            ]
        );
        for k in every_kernel() {
            match k.shift_invariant() {
                Some(s) => {
                    assert_eq!(Kernel::from(s), k);
                    assert_eq!(s.name(), k.name());
                }
                None => assert!(matches!(k, Kernel::Linear | Kernel::Polynomial { .. })),
            }
        }
        let p = Kernel::polynomial(3, 0.5).unwrap();
        assert_eq!(
            p.as_polynomial(),
            Some(PolynomialKernel::new(3, 0.5).unwrap())
        );
        assert_eq!(Kernel::from(p.as_polynomial().unwrap()), p);
        assert_eq!(
            Kernel::libsvm_polynomial(3, 2.0, 0.5)
                .unwrap()
                .as_polynomial(),
            None
        );
        assert_eq!(Kernel::gaussian(1.0).unwrap().as_polynomial(), None);
        assert_eq!(Kernel::linear().shift_invariant(), None);
    }

    /// The blocked Gram matrix against `eval` entry by entry, over more rows than one block, for
    /// dense, sparse and mixed input. The tolerance is rounding: the expanded squared distance
    /// loses about `eps (‖x‖² + ‖y‖²)` (`‖x‖² ≈ d = 7` here), a difference the kernels' slopes
    /// (at most 1 per unit of `r²` at these bandwidths) carry over; `(gamma t + c)^3` with
    /// `|t| <~ 20` is about `1e4`, its rounding relative.
    #[test]
    fn cross_gram_matches_eval() {
        let n = crate::block_product::PRODUCT_ROWS + 37;
        let a = gaussian_data(n, 7, 1);
        let b = sparse_data(45, 7, 0.4, 2);
        let b_csr = CsrMatrix::from_dense(b.view()).unwrap();
        for kernel in every_kernel() {
            let reference = naive_cross_gram(&kernel, &a, &b);
            let scale = reference.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for fast in [kernel.cross_gram(&a, &b), kernel.cross_gram(&a, &b_csr)] {
                assert_eq!(fast.dim(), (n, 45));
                for (f, r) in fast.iter().zip(&reference) {
                    assert!((f - r).abs() <= 1e-12 * scale, "{kernel:?}: {f} vs {r}");
                }
            }
            let gram = kernel.gram(&b_csr);
            let naive = naive_cross_gram(&kernel, &b, &b);
            for (f, r) in gram.iter().zip(&naive) {
                assert!(
                    (f - r).abs() <= 1e-12 * scale.max(1.0),
                    "{kernel:?}: {f} vs {r}"
                );
            }
        }
    }

    #[test]
    fn cross_gram_is_deterministic_across_thread_counts() {
        let a = gaussian_data(3 * crate::block_product::PRODUCT_ROWS + 5, 6, 3);
        let b = gaussian_data(30, 6, 4);
        for kernel in every_kernel() {
            let reference = on_threads(1, || kernel.cross_gram(&a, &b));
            for threads in [2, 3] {
                assert_eq!(
                    on_threads(threads, || kernel.cross_gram(&a, &b)),
                    reference,
                    "{kernel:?}, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn serde_uses_the_variant_names() {
        let k = Kernel::libsvm_polynomial(2, 0.5, 1.0).unwrap();
        let json = serde_json::to_string(&k).unwrap();
        assert_eq!(
            json,
            r#"{"Polynomial":{"degree":2,"gamma":0.5,"offset":1.0}}"#
        );
        assert_eq!(serde_json::from_str::<Kernel>(&json).unwrap(), k);
        assert_eq!(
            serde_json::to_string(&Kernel::Linear).unwrap(),
            r#""Linear""#
        );
    }
}
