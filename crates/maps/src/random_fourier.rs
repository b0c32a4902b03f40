//! Random Fourier features (Rahimi & Recht, NIPS 2007; "Random Kitchen Sinks") for the Gaussian,
//! Laplacian and Matern kernels of [`ShiftInvariantKernel`].
//!
//! **Estimator.** `m` frequencies `w_j` drawn i.i.d. from the kernel's spectral density
//! (Gaussian: `N(0, I / sigma²)`; Laplacian: Cauchy with scale `1/sigma` per coordinate; Matern:
//! multivariate t with `2 nu` degrees of freedom and scale `I / l²`, drawn as
//! `(g / l) sqrt(2 nu / u)`, `u ~ chi²(2 nu)`), turned into features by [`FourierForm`]: paired
//! `[cos, sin] / sqrt(D/2)` (`m = D/2`) or `sqrt(2/D) cos(w'x + b)` (`m = D`).
//!
//! **Unbiased**, with the per-frequency variances of the [`FourierForm`] docs (`<= 1` paired,
//! `<= 3/2` phase): the Gram error of one entry has standard deviation at most `1/sqrt(m)` resp.
//! `sqrt(3/(2m))`. Rahimi & Recht's Claim 1 bounds the uniform error over a compact set.
//!
//! **Cost.** Fit: `d m` random numbers, `8 d m` bytes. Transform: `O(nnz(x) m)` per row plus `m`
//! cosines; dense input goes through one matrix product (BLAS dgemm), sparse input through
//! one axpy per non-zero.

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use crate::dense_map::dense_fourier_map;
#[cfg(doc)]
use crate::error::MapError;
use crate::error::Result;
use crate::feature_map::FeatureMap;
use crate::fourier::{sample_frequency, start_fit, DenseFourier, FourierForm, FourierOutput};
use crate::kernels::shift_invariant::ShiftInvariantKernel;
use crate::kernels::{shift_invariant_for, Kernel};

/// The default seed: maps are deterministic unless the caller asks for another draw.
pub const DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0007;

/// Unchecked hyper-parameters of [`RandomFourierFeatures`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomFourierParams {
    kernel: ShiftInvariantKernel,
    n_components: usize,
    form: FourierForm,
    seed: u64,
}

/// Checked hyper-parameters: a valid kernel, `n_components >= 1` (even for the paired form).
#[derive(Debug, Clone, PartialEq)]
pub struct RandomFourierValidParams(RandomFourierParams);

impl RandomFourierParams {
    /// `n_components` features for `kernel`; paired form, default seed.
    pub fn new(kernel: ShiftInvariantKernel, n_components: usize) -> Self {
        Self {
            kernel,
            n_components,
            form: FourierForm::default(),
            seed: DEFAULT_SEED,
        }
    }

    /// The map for `kernel`: Gaussian, Laplacian or Matern, else [`MapError::UnsupportedKernel`].
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        Ok(Self::new(
            shift_invariant_for(kernel, "RandomFourierFeatures")?,
            n_components,
        ))
    }

    pub fn form(mut self, form: FourierForm) -> Self {
        self.form = form;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn check(self) -> Result<RandomFourierValidParams> {
        self.kernel.check()?;
        self.form.n_frequencies(self.n_components)?;
        Ok(RandomFourierValidParams(self))
    }

    /// `check()` then `fit(input_dim)`.
    pub fn fit(self, input_dim: usize) -> Result<RandomFourierFeatures> {
        self.check()?.fit(input_dim)
    }
}

impl RandomFourierValidParams {
    /// Draws the `m` frequencies (one after the other, each a full `d`-vector, so a frequency does
    /// not depend on `m`) and then the phases.
    pub fn fit(&self, input_dim: usize) -> Result<RandomFourierFeatures> {
        let p = &self.0;
        let (mut rng, m) = start_fit(input_dim, p.seed, p.form, p.n_components)?;
        let mut weights = Array2::zeros((input_dim, m));
        let mut w = vec![0.0; input_dim];
        for j in 0..m {
            sample_frequency(&p.kernel, &mut rng, &mut w);
            weights
                .column_mut(j)
                .iter_mut()
                .zip(&w)
                .for_each(|(o, &v)| *o = v);
        }
        let output = FourierOutput::new(p.form, p.n_components, &mut rng);
        Ok(RandomFourierFeatures {
            params: p.clone(),
            input_dim,
            inner: DenseFourier::new(weights, output),
        })
    }
}

/// A fitted random Fourier feature map. Serialisable (serde): the frequencies and phases are
/// stored, so a saved map gives the same features bit for bit; reading one checks that its parts
/// fit together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RandomFourierData")]
pub struct RandomFourierFeatures {
    params: RandomFourierParams,
    input_dim: usize,
    inner: DenseFourier,
}

dense_fourier_map!(
    RandomFourierFeatures,
    RandomFourierParams,
    RandomFourierData
);

impl RandomFourierFeatures {
    /// The phases `b_j` (phase form; empty for the paired form).
    pub fn offsets(&self) -> &[f64] {
        self.inner.output().offsets()
    }

    pub fn kernel(&self) -> ShiftInvariantKernel {
        self.params.kernel
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::{CsrMatrix, Row};
    use crate::error::MapError;
    use crate::fourier::DENSIFY_DENSITY;
    use crate::test_support::{assert_gram_close, gaussian_data, measured_kappa, sparse_data};
    use ndarray::Array2;

    fn kernels() -> Vec<ShiftInvariantKernel> {
        vec![
            ShiftInvariantKernel::gaussian(4.0).unwrap(),
            ShiftInvariantKernel::laplacian(12.0).unwrap(),
            ShiftInvariantKernel::matern(1.5, 4.0).unwrap(),
            ShiftInvariantKernel::matern(2.5, 4.0).unwrap(),
        ]
    }

    /// Every kernel, both forms: the Gram matrix of 50 points (d = 12) against the exact one.
    #[test]
    fn approximates_every_kernel() {
        let x = gaussian_data(50, 12, 1);
        for kernel in kernels() {
            for form in [FourierForm::Paired, FourierForm::Phase] {
                let n_components = 4000;
                let map = RandomFourierParams::new(kernel, n_components)
                    .form(form)
                    .seed(11)
                    .fit(12)
                    .unwrap();
                let z = map.transform(&x).unwrap();
                assert_gram_close(
                    &kernel,
                    &x,
                    &z,
                    form,
                    1.0,
                    &format!("RFF {kernel:?} {form:?}"),
                );
            }
        }
    }

    /// The `f32` path: against the exact kernel with the `f64` path's tolerances (every kernel,
    /// both forms), and within a rigorous rounding bound of the `f64` features. Each entry of a
    /// projection `sum_i w_i x_i` in `f32` (inputs and frequencies rounded, then summed) is off
    /// by at most `(d + 2) eps (|x|'|w|)_j` (the classical summation bound, `eps = 2^-24`), the
    /// phase by `eps |b|`, the cosine by `1.5e-7` (its test); a feature moves by at most `scale`
    /// times their sum, plus its own rounding.
    #[test]
    fn f32_path_approximates_the_kernel_and_tracks_f64() {
        let x = gaussian_data(50, 12, 1);
        let x32 = x.mapv(|v| v as f32);
        let eps = f64::from(f32::EPSILON) / 2.0;
        for kernel in kernels() {
            for form in [FourierForm::Paired, FourierForm::Phase] {
                let n_components = 4000;
                let map = RandomFourierParams::new(kernel, n_components)
                    .form(form)
                    .seed(11)
                    .fit(12)
                    .unwrap();
                let z32 = map.transform_f32(x32.view()).unwrap();
                let z = z32.mapv(f64::from);
                assert_gram_close(
                    &kernel,
                    &x,
                    &z,
                    form,
                    1.0,
                    &format!("RFF f32 {kernel:?} {form:?}"),
                );
                let z64 = map.transform(&x).unwrap();
                let magnitude = x.mapv(f64::abs).dot(&map.frequencies().mapv(f64::abs));
                let m = magnitude.ncols();
                let scale = match form {
                    FourierForm::Paired => (1.0 / m as f64).sqrt(),
                    FourierForm::Phase => (2.0 / m as f64).sqrt(),
                };
                let mut worst = 0.0f64;
                for ((i, j), &a) in z.indexed_iter() {
                    let jm = j % m;
                    let phase = map.offsets().get(jm).map_or(0.0, |b| b.abs());
                    let bound = scale
                        * ((12.0 + 2.0) * eps * magnitude[[i, jm]] + eps * phase + 1.5e-7)
                        + eps * scale;
                    let diff = (a - z64[[i, j]]).abs();
                    assert!(
                        diff <= bound,
                        "{kernel:?} {form:?} ({i}, {j}): {diff:e} > {bound:e}"
                    );
                    worst = worst.max(diff / scale);
                }
                assert!(worst > 0.0, "the f32 path must differ from f64 somewhere");
            }
        }
    }

    #[test]
    fn f32_input_errors() {
        let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(1.0).unwrap(), 8)
            .fit(3)
            .unwrap();
        assert_eq!(
            map.transform_f32(ndarray::Array2::<f32>::zeros((2, 4)).view()),
            Err(MapError::DimensionMismatch {
                expected: 3,
                got: 4
            })
        );
        let mut x = ndarray::Array2::<f32>::zeros((2, 3));
        x[[1, 0]] = f32::INFINITY;
        assert!(matches!(
            map.transform_f32(x.view()),
            Err(MapError::NonFinite { row: 1, col: 0, .. })
        ));
        let mut out = ndarray::Array2::<f32>::zeros((2, 9));
        assert!(matches!(
            map.transform_f32_into(ndarray::Array2::<f32>::zeros((2, 3)).view(), out.view_mut()),
            Err(MapError::OutputShape { .. })
        ));
    }

    /// The variance formula behind every tolerance: over 200 seeds, the Gram MSE of i.i.d.
    /// frequencies divided by the exact `mean(v) / m` is 1 up to sampling noise (the MSE over 200
    /// independent draws has a relative standard error of about sqrt(2 / 200) = 10%; tolerance
    /// 30%).
    #[test]
    fn variance_formula_matches_measurement() {
        let x = gaussian_data(30, 12, 2);
        for kernel in kernels() {
            for form in [FourierForm::Paired, FourierForm::Phase] {
                let kappa = measured_kappa(&kernel, &x, form, 200, &|seed| {
                    RandomFourierParams::new(kernel, 64)
                        .form(form)
                        .seed(seed)
                        .fit(12)
                        .unwrap()
                        .transform(&x)
                        .unwrap()
                });
                assert!(
                    (kappa - 1.0).abs() < 0.3,
                    "{kernel:?} {form:?}: kappa {kappa}"
                );
            }
        }
    }

    /// The frequencies are what the docs say: for the Gaussian, each coordinate has variance
    /// `1 / sigma²` (2.5² = 6.25). 12 x 2000 draws: the sample variance's relative standard error
    /// is sqrt(2 / 24,000) = 0.9%; tolerance 5%.
    #[test]
    fn gaussian_frequency_scale() {
        let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(2.5).unwrap(), 4000)
            .fit(12)
            .unwrap();
        let w = map.frequencies();
        let var = w.iter().map(|v| v * v).sum::<f64>() / w.len() as f64;
        assert!((var * 6.25 - 1.0).abs() < 0.05, "{var}");
        assert_eq!(map.memory_bytes(), 12 * 2000 * 8);
    }

    /// The tiled matrix product (and dgemv for tiny batches) equals the row-by-row reference
    /// `map_row` to rounding, with one and with several column tiles; CSR input of density 0.3
    /// (densified by blocks, over more than one block) gives the dense path's features, CSR input
    /// of density 0.05 goes row by row and gives `map_row`'s bits.
    #[test]
    fn dense_blocked_sparse_and_rows_agree() {
        for (density, n) in [(0.3, 1100), (0.05, 300)] {
            let x = sparse_data(n, 20, density, 5);
            let csr = CsrMatrix::from_dense(x.view()).unwrap();
            let row_by_row = (csr.nnz() as f64) < DENSIFY_DENSITY * (n * 20) as f64;
            assert_eq!(row_by_row, density < 0.1);
            // 2178 features: several column tiles of the tiled product, the last one partial.
            let sizes = [64, 2 * crate::block_product::PRODUCT_COLS + 130];
            for (kernel, form, n_components) in kernels().into_iter().flat_map(|kernel| {
                [FourierForm::Paired, FourierForm::Phase]
                    .into_iter()
                    .flat_map(move |form| sizes.map(|size| (kernel, form, size)))
            }) {
                {
                    let map = RandomFourierParams::new(kernel, n_components)
                        .form(form)
                        .fit(20)
                        .unwrap();
                    let dense = map.transform(&x).unwrap();
                    // n rows through the tiled product, 2 rows through dgemv.
                    let small = map.transform(x.slice(ndarray::s![..2, ..])).unwrap();
                    for (a, b) in small.iter().zip(dense.slice(ndarray::s![..2, ..])) {
                        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
                    }
                    let sparse = map.transform(&csr).unwrap();
                    let mut one = vec![0.0; n_components];
                    for i in 0..x.nrows() {
                        map.map_row(&Row::Dense(x.row(i)), &mut one, &mut ());
                        if row_by_row {
                            assert_eq!(sparse.row(i).to_vec(), one);
                        }
                        for ((a, b), c) in dense.row(i).iter().zip(&one).zip(sparse.row(i)) {
                            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
                            assert!((c - b).abs() < 1e-12, "{c} vs {b}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn invalid_parameters_and_inputs_are_errors() {
        let g = ShiftInvariantKernel::gaussian(1.0).unwrap();
        assert_eq!(
            RandomFourierParams::new(g, 0).check(),
            Err(MapError::ZeroComponents(0))
        );
        assert_eq!(
            RandomFourierParams::new(g, 7).check(),
            Err(MapError::OddComponents(7))
        );
        assert!(RandomFourierParams::new(g, 7)
            .form(FourierForm::Phase)
            .check()
            .is_ok());
        assert_eq!(
            RandomFourierParams::new(ShiftInvariantKernel::Gaussian { sigma: 0.0 }, 8).check(),
            Err(MapError::InvalidKernelParameter {
                kernel: "gaussian",
                parameter: "sigma",
                value: 0.0,
                valid: "finite and > 0"
            })
        );
        assert!(matches!(
            RandomFourierParams::new(ShiftInvariantKernel::Laplacian { sigma: f64::NAN }, 8)
                .check(),
            Err(MapError::InvalidKernelParameter {
                kernel: "laplacian",
                ..
            })
        ));
        assert_eq!(
            RandomFourierParams::new(g, 8).fit(0),
            Err(MapError::ZeroInputDim(0))
        );
        let map = RandomFourierParams::new(g, 8).fit(3).unwrap();
        let mut x = Array2::zeros((2, 4));
        assert_eq!(
            map.transform(&x),
            Err(MapError::DimensionMismatch {
                expected: 3,
                got: 4
            })
        );
        x = Array2::zeros((2, 3));
        x[[1, 2]] = f64::NAN;
        assert!(matches!(
            map.transform(&x),
            Err(MapError::NonFinite { row: 1, col: 2, .. })
        ));
        let mut out = Array2::zeros((2, 7));
        assert!(matches!(
            map.transform_into(&x, out.view_mut()),
            Err(MapError::OutputShape { .. })
        ));
    }

    /// Same features on one, two and three threads (bit for bit), dense, CSR and `f32`; 700 rows
    /// are three blocks of the blocked product.
    #[test]
    fn deterministic_across_thread_counts() {
        let x = gaussian_data(700, 16, 3);
        let x32 = x.mapv(|v| v as f32);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(3.0).unwrap(), 128)
            .fit(16)
            .unwrap();
        let run = |threads: usize| {
            crate::test_support::on_threads(threads, || {
                (
                    map.transform(&x).unwrap(),
                    map.transform(&csr).unwrap(),
                    map.transform_f32(x32.view()).unwrap(),
                )
            })
        };
        let reference = run(1);
        for threads in [2, 3] {
            assert_eq!(run(threads), reference);
        }
    }
}
