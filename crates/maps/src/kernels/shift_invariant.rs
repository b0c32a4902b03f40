//! Exact shift-invariant kernels `k(x, y) = k(x - y)`: the part of the one vocabulary
//! ([`Kernel`]) that the Fourier-type maps (random Fourier features, orthogonal random features,
//! Fastfood) approximate and are tested against; [`Kernel::shift_invariant`] and
//! `From<ShiftInvariantKernel> for Kernel` convert between the two.
//!
//! Bandwidth conventions (every bandwidth must be finite and `> 0`, else
//! [`MapError::InvalidKernelParameter`]):
//!
//! | kernel | `k(x, y)` | spectral density `p(w)` (Bochner: `k(d) = E_w[cos(w'd)]`) |
//! |---|---|---|
//! | Gaussian, `sigma` | `exp(-‖x - y‖₂² / (2 sigma²))` | `N(0, I / sigma²)` |
//! | Laplacian, `sigma` | `exp(-‖x - y‖₁ / sigma)` (Rahimi & Recht 2007's form) | product of Cauchy densities, scale `1 / sigma` per coordinate |
//! | Matern, `nu`, `length_scale` `l` | `2^(1-nu)/Gamma(nu) (sqrt(2 nu) r / l)^nu K_nu(sqrt(2 nu) r / l)`, `r = ‖x - y‖₂` | multivariate Student t, `2 nu` degrees of freedom, scale `I / l²` |
//!
//! The Gaussian's `sigma` is scikit-learn's `gamma = 1 / (2 sigma²)`. The Laplacian is the
//! product of one-dimensional `exp(-|d_i| / sigma)` (an L1 distance, not scikit-learn's
//! `laplacian_kernel` with `gamma = 1 / sigma`, which is the same kernel). The Matern kernel is
//! Rasmussen & Williams' (2006, eq. 4.14) and scikit-learn's `Matern(length_scale, nu)`; only the
//! closed forms are provided:
//!
//! * `nu = 1/2`: `exp(-r / l)`;
//! * `nu = 3/2`: `(1 + sqrt(3) r / l) exp(-sqrt(3) r / l)`;
//! * `nu = 5/2`: `(1 + sqrt(5) r / l + 5 r² / (3 l²)) exp(-sqrt(5) r / l)`.

use ndarray::Array2;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::checks::{check_matern_nu, check_positive, same_dimension};
use crate::csr::{Row, Rows};
use crate::error::Result;
#[cfg(doc)]
use crate::{kernels::Kernel, MapError};

/// A shift-invariant kernel with its bandwidth. Build it with [`ShiftInvariantKernel::gaussian`],
/// [`ShiftInvariantKernel::laplacian`] or [`ShiftInvariantKernel::matern`], which validate; a
/// value built from the variants directly is validated by [`ShiftInvariantKernel::check`]
/// (every map's `check()` calls it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum ShiftInvariantKernel {
    /// `exp(-‖x - y‖₂² / (2 sigma²))`.
    Gaussian { sigma: f64 },
    /// `exp(-‖x - y‖₁ / sigma)`.
    Laplacian { sigma: f64 },
    /// Matern with smoothness `nu` in {0.5, 1.5, 2.5} and length scale `l`.
    Matern { nu: f64, length_scale: f64 },
}

impl ShiftInvariantKernel {
    pub fn gaussian(sigma: f64) -> Result<Self> {
        let k = Self::Gaussian { sigma };
        k.check()?;
        Ok(k)
    }

    pub fn laplacian(sigma: f64) -> Result<Self> {
        let k = Self::Laplacian { sigma };
        k.check()?;
        Ok(k)
    }

    pub fn matern(nu: f64, length_scale: f64) -> Result<Self> {
        let k = Self::Matern { nu, length_scale };
        k.check()?;
        Ok(k)
    }

    /// Bandwidths finite and `> 0`, Matern `nu` one of the closed forms, else
    /// [`MapError::InvalidKernelParameter`].
    pub fn check(&self) -> Result<()> {
        match *self {
            Self::Gaussian { sigma } | Self::Laplacian { sigma } => {
                check_positive(self.name(), "sigma", sigma)
            }
            Self::Matern { nu, length_scale } => {
                check_matern_nu(nu)?;
                check_positive(self.name(), "length_scale", length_scale)
            }
        }
    }

    /// The kernel's name, that of [`Kernel::name`]: `"gaussian"`, `"laplacian"`, `"matern"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Gaussian { .. } => "gaussian",
            Self::Laplacian { .. } => "laplacian",
            Self::Matern { .. } => "matern",
        }
    }

    /// `k(x, y)` for rows of the same dimension, dense or sparse in any combination.
    pub fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        match *self {
            Self::Gaussian { sigma } => {
                let sq = fold_differences(x, y, 0.0, |acc, d| acc + d * d);
                (-sq / (2.0 * sigma * sigma)).exp()
            }
            Self::Laplacian { sigma } => {
                let l1 = fold_differences(x, y, 0.0, |acc, d| acc + d.abs());
                (-l1 / sigma).exp()
            }
            Self::Matern { nu, length_scale } => {
                let r = fold_differences(x, y, 0.0, |acc, d| acc + d * d).sqrt();
                matern_closed_form(nu, r / length_scale)
            }
        }
    }

    /// The exact Gram matrix `K[i, j] = k(x_i, x_j)` (symmetric, unit diagonal), rows in parallel,
    /// entry by entry ([`Kernel::gram`] is the fast, blocked one).
    pub fn gram<'a>(&self, rows: impl Into<Rows<'a>>) -> Array2<f64> {
        let rows = rows.into();
        self.cross_gram(rows, rows)
    }

    /// `K[i, j] = k(a_i, b_j)`. Panics when the column counts differ.
    pub fn cross_gram<'a, 'b>(
        &self,
        a: impl Into<Rows<'a>>,
        b: impl Into<Rows<'b>>,
    ) -> Array2<f64> {
        let (a, b) = same_dimension(a, b);
        let mut k = Array2::zeros((a.n_rows(), b.n_rows()));
        k.outer_iter_mut()
            .into_par_iter()
            .enumerate()
            .for_each(|(i, mut out)| {
                let x = a.row(i);
                for (j, o) in out.iter_mut().enumerate() {
                    *o = self.eval(&x, &b.row(j));
                }
            });
        k
    }
}

/// The Matern correlation at scaled distance `t = r / l`, for the three closed forms.
pub(crate) fn matern_closed_form(nu: f64, t: f64) -> f64 {
    if nu == 0.5 {
        (-t).exp()
    } else if nu == 1.5 {
        let s = 3f64.sqrt() * t;
        (1.0 + s) * (-s).exp()
    } else {
        let s = 5f64.sqrt() * t;
        (1.0 + s + s * s / 3.0) * (-s).exp()
    }
}

/// Folds `f` over the coordinate differences `x_i - y_i` where either row is non-zero (a
/// coordinate where both are zero contributes a zero difference, which every fold here ignores).
fn fold_differences(x: &Row<'_>, y: &Row<'_>, init: f64, f: impl Fn(f64, f64) -> f64) -> f64 {
    if let (Row::Dense(a), Row::Dense(b)) = (x, y) {
        return a
            .iter()
            .zip(b.iter())
            .fold(init, |acc, (p, q)| f(acc, p - q));
    }
    let (a, b) = (nonzeros(x), nonzeros(y));
    let (mut i, mut j, mut acc) = (0, 0, init);
    while i < a.len() || j < b.len() {
        let ca = a.get(i).map_or(usize::MAX, |e| e.0);
        let cb = b.get(j).map_or(usize::MAX, |e| e.0);
        match ca.cmp(&cb) {
            std::cmp::Ordering::Less => {
                acc = f(acc, a[i].1);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                acc = f(acc, -b[j].1);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                acc = f(acc, a[i].1 - b[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    acc
}

fn nonzeros(row: &Row<'_>) -> Vec<(usize, f64)> {
    let mut v = Vec::new();
    row.for_each_nonzero(|j, x| v.push((j, x)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::error::MapError;
    use ndarray::array;

    #[test]
    fn closed_forms() {
        let (x, y) = (array![1.0, 2.0, 0.0], array![0.0, 0.0, 2.0]);
        let (x, y) = (Row::Dense(x.view()), Row::Dense(y.view()));
        // ‖x - y‖₂² = 1 + 4 + 4 = 9, ‖x - y‖₁ = 5.
        let g = ShiftInvariantKernel::gaussian(1.5).unwrap();
        assert!((g.eval(&x, &y) - (-9.0f64 / 4.5).exp()).abs() < 1e-15);
        let l = ShiftInvariantKernel::laplacian(2.0).unwrap();
        assert!((l.eval(&x, &y) - (-2.5f64).exp()).abs() < 1e-15);
        let m = ShiftInvariantKernel::matern(0.5, 3.0).unwrap();
        assert!((m.eval(&x, &y) - (-1.0f64).exp()).abs() < 1e-15);
        let m = ShiftInvariantKernel::matern(1.5, 3.0).unwrap();
        let s = 3f64.sqrt();
        assert!((m.eval(&x, &y) - (1.0 + s) * (-s).exp()).abs() < 1e-15);
        let m = ShiftInvariantKernel::matern(2.5, 1.5).unwrap();
        let s = 5f64.sqrt() * 2.0;
        assert!((m.eval(&x, &y) - (1.0 + s + 20.0 / 3.0) * (-s).exp()).abs() < 1e-15);
    }

    /// The Matern closed forms against the Bessel-function definition, with `K_nu` for
    /// half-integer `nu` written out: `K_{1/2}(z) = sqrt(pi/(2z)) e^-z`,
    /// `K_{3/2}(z) = K_{1/2}(z) (1 + 1/z)`, `K_{5/2}(z) = K_{1/2}(z) (1 + 3/z + 3/z²)`.
    #[test]
    fn matern_matches_bessel_definition() {
        let pi_sqrt = std::f64::consts::PI.sqrt();
        let gamma = |nu: f64| {
            if nu == 0.5 {
                pi_sqrt
            } else if nu == 1.5 {
                pi_sqrt / 2.0
            } else {
                3.0 * pi_sqrt / 4.0
            }
        };
        for nu in [0.5f64, 1.5, 2.5] {
            for t in [0.01, 0.3, 1.0, 2.7, 8.0] {
                let z: f64 = (2.0 * nu).sqrt() * t;
                let k_half = (std::f64::consts::PI / (2.0 * z)).sqrt() * (-z).exp();
                let k_nu = if nu == 0.5 {
                    k_half
                } else if nu == 1.5 {
                    k_half * (1.0 + 1.0 / z)
                } else {
                    k_half * (1.0 + 3.0 / z + 3.0 / (z * z))
                };
                let bessel_form = 2f64.powf(1.0 - nu) / gamma(nu) * z.powf(nu) * k_nu;
                assert!(
                    (bessel_form - matern_closed_form(nu, t)).abs() < 1e-13,
                    "nu {nu} t {t}"
                );
            }
        }
    }

    #[test]
    fn dense_and_sparse_agree() {
        let x = array![
            [0.0, 1.5, 0.0, -2.0],
            [3.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0]
        ];
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for k in [
            ShiftInvariantKernel::gaussian(1.3).unwrap(),
            ShiftInvariantKernel::laplacian(0.7).unwrap(),
            ShiftInvariantKernel::matern(2.5, 2.0).unwrap(),
        ] {
            let dense = k.gram(&x);
            let sparse = k.gram(&csr);
            let mixed = k.cross_gram(&x, &csr);
            for ((a, b), c) in dense.iter().zip(&sparse).zip(&mixed) {
                assert!((a - b).abs() < 1e-15 && (a - c).abs() < 1e-15);
            }
            for i in 0..3 {
                assert_eq!(dense[[i, i]], 1.0);
            }
        }
    }

    #[test]
    fn invalid_bandwidths_are_errors() {
        let invalid = |kernel, parameter, value| MapError::InvalidKernelParameter {
            kernel,
            parameter,
            value,
            valid: "finite and > 0",
        };
        for bad in [0.0, -1.0, f64::INFINITY] {
            assert_eq!(
                ShiftInvariantKernel::gaussian(bad),
                Err(invalid("gaussian", "sigma", bad))
            );
            assert_eq!(
                ShiftInvariantKernel::laplacian(bad),
                Err(invalid("laplacian", "sigma", bad))
            );
            assert_eq!(
                ShiftInvariantKernel::matern(1.5, bad),
                Err(invalid("matern", "length_scale", bad))
            );
        }
        assert!(matches!(
            ShiftInvariantKernel::gaussian(f64::NAN),
            Err(MapError::InvalidKernelParameter { parameter: "sigma", value, .. }) if value.is_nan()
        ));
        assert_eq!(
            ShiftInvariantKernel::matern(1.0, 1.0),
            Err(MapError::InvalidKernelParameter {
                kernel: "matern",
                parameter: "nu",
                value: 1.0,
                valid: "0.5, 1.5 or 2.5"
            })
        );
        assert_eq!(
            ShiftInvariantKernel::gaussian(-2.0)
                .unwrap_err()
                .to_string(),
            "gaussian kernel: sigma = -2 is out of range (valid: finite and > 0)"
        );
    }
}
