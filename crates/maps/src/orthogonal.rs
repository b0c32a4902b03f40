//! Orthogonal random features (ORF) and structured orthogonal random features (SORF), Yu, Suresh,
//! Choromanski, Holtmann-Rice & Kumar, "Orthogonal Random Features" (NIPS 2016); the baseline
//! "ORF" of Damodaran et al.'s PRFF paper.
//!
//! **ORF.** Frequencies come in blocks of `d`: a `d x d` matrix `G` of i.i.d. `N(0, 1)` entries is
//! factored `G = QR` (LAPACK through ndarray-linalg); the columns of `Q` are multiplied by the signs
//! of `diag(R)`, which makes `Q` Haar-distributed (uniform over the orthogonal group; without it the
//! distribution depends on LAPACK's sign convention). Row `i` of the block is `s_i q_i`: a direction
//! uniform on the sphere, orthogonal to the block's other rows, with an independent length `s_i`
//! drawn from the spectral density's radial law: `chi(d) / sigma` for the Gaussian kernel (Yu et
//! al.'s `W = S Q / sigma`), `chi(d) sqrt(2 nu / u) / l`, `u ~ chi²(2 nu)` for Matern (not in the
//! paper; the same construction for another radial density). `D > d` stacks independent blocks,
//! the last one truncated. Each frequency is marginally exactly a draw of the spectral density, so
//! the estimator is **unbiased**; within a block the frequencies are negatively dependent, which
//! lowers the variance for the Gaussian kernel (Yu et al., Theorem 1: for `m = d` the variance is
//! below that of i.i.d. frequencies by a term of order `‖delta‖⁴ / sigma⁴`).
//! Cost: fit `O(d³)` per block (`m / d` blocks, `O(m d²)` in all); transform as random Fourier
//! features (`O(nnz(x) m)`, a dense `d x m` matrix).
//!
//! **SORF.** `W = (sqrt(p) / sigma) H D_1 H D_2 H D_3` per block, `H` the normalised
//! Walsh-Hadamard matrix (`H / sqrt(p)` in [`crate::hadamard`]'s terms), `D_i` diagonal Rademacher,
//! `p = 2^ceil(log2 d)` (the input is zero-padded to `p`), blocks of `p` frequencies stacked and the
//! last one truncated. Every row has norm exactly `sqrt(p) / sigma`, rows of a block are orthogonal.
//! Gaussian kernel only; **not exactly unbiased** (the rows are not Gaussian), with a bias that
//! vanishes as `O(1/sqrt(p))` (Yu et al., Theorem 5). Cost: fit `3p` signs per block; transform
//! `O(3 p log p)` per block and row, memory `3p` numbers per block.

use ndarray::Array2;
use ndarray_linalg::QR;
use rand::Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use crate::csr::Row;
use crate::dense_map::dense_fourier_map;
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::fourier::{
    rademacher, require_radial, sample_radius, start_fit, DenseFourier, FourierForm, FourierOutput,
};
use crate::hadamard::fwht;
use crate::kernels::shift_invariant::ShiftInvariantKernel;
use crate::kernels::{gaussian_sigma_for, shift_invariant_for, Kernel};

/// The default seeds: maps are deterministic unless the caller asks for another draw.
pub const ORF_DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0008;
pub const SORF_DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0009;

/// The maps' names in errors.
const ORF_NAME: &str = "OrthogonalRandomFeatures";
const SORF_NAME: &str = "StructuredOrthogonalFeatures";

/// Unchecked hyper-parameters of [`OrthogonalRandomFeatures`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrthogonalRandomFeaturesParams {
    kernel: ShiftInvariantKernel,
    n_components: usize,
    form: FourierForm,
    seed: u64,
}

/// Checked: a Gaussian or Matern kernel, `n_components >= 1` (even for the paired form).
#[derive(Debug, Clone, PartialEq)]
pub struct OrthogonalRandomFeaturesValidParams(OrthogonalRandomFeaturesParams);

impl OrthogonalRandomFeaturesParams {
    /// `n_components` features for `kernel` (Gaussian or Matern); paired form, default seed.
    pub fn new(kernel: ShiftInvariantKernel, n_components: usize) -> Self {
        Self {
            kernel,
            n_components,
            form: FourierForm::default(),
            seed: ORF_DEFAULT_SEED,
        }
    }

    /// The map for `kernel`: Gaussian or Matern, else [`MapError::UnsupportedKernel`] (the
    /// Laplacian's spectral density is not radial).
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        let kernel = shift_invariant_for(kernel, ORF_NAME)?;
        require_radial(ORF_NAME, &kernel)?;
        Ok(Self::new(kernel, n_components))
    }

    pub fn form(mut self, form: FourierForm) -> Self {
        self.form = form;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn check(self) -> Result<OrthogonalRandomFeaturesValidParams> {
        require_radial(ORF_NAME, &self.kernel)?;
        self.form.n_frequencies(self.n_components)?;
        Ok(OrthogonalRandomFeaturesValidParams(self))
    }

    pub fn fit(self, input_dim: usize) -> Result<OrthogonalRandomFeatures> {
        self.check()?.fit(input_dim)
    }
}

impl OrthogonalRandomFeaturesValidParams {
    /// Draws `ceil(m / d)` orthogonal blocks, then the phases.
    pub fn fit(&self, input_dim: usize) -> Result<OrthogonalRandomFeatures> {
        let p = &self.0;
        let d = input_dim;
        let (mut rng, m) = start_fit(d, p.seed, p.form, p.n_components)?;
        let mut weights = Array2::zeros((d, m));
        for start in (0..m).step_by(d) {
            let q = haar_orthogonal(d, &mut rng)?;
            for i in 0..d.min(m - start) {
                let radius = sample_radius(&p.kernel, d, &mut rng);
                weights
                    .column_mut(start + i)
                    .iter_mut()
                    .zip(q.row(i))
                    .for_each(|(w, &qv)| *w = radius * qv);
            }
        }
        let output = FourierOutput::new(p.form, p.n_components, &mut rng);
        Ok(OrthogonalRandomFeatures {
            params: p.clone(),
            input_dim,
            inner: DenseFourier::new(weights, output),
        })
    }
}

/// A Haar-distributed `d x d` orthogonal matrix: `Q` of `G = QR`, columns times `sign(R_jj)`.
pub(crate) fn haar_orthogonal(d: usize, rng: &mut impl Rng) -> Result<Array2<f64>> {
    let g = Array2::from_shape_simple_fn((d, d), || rng.sample::<f64, _>(StandardNormal));
    let (mut q, r) = g.qr().map_err(|e| MapError::Linalg(e.to_string()))?;
    for (j, mut col) in q.columns_mut().into_iter().enumerate() {
        if r[[j, j]] < 0.0 {
            col.mapv_inplace(|v| -v);
        }
    }
    Ok(q)
}

/// A fitted orthogonal random feature map. Serialisable (serde), checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "OrthogonalData")]
pub struct OrthogonalRandomFeatures {
    params: OrthogonalRandomFeaturesParams,
    input_dim: usize,
    inner: DenseFourier,
}

dense_fourier_map!(
    OrthogonalRandomFeatures,
    OrthogonalRandomFeaturesParams,
    OrthogonalData
);

/// Unchecked hyper-parameters of [`StructuredOrthogonalFeatures`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructuredOrthogonalParams {
    sigma: f64,
    n_components: usize,
    form: FourierForm,
    seed: u64,
}

/// Checked: `sigma` finite and `> 0`, `n_components >= 1` (even for the paired form).
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOrthogonalValidParams(StructuredOrthogonalParams);

impl StructuredOrthogonalParams {
    /// `n_components` features for the Gaussian kernel of bandwidth `sigma`; paired form.
    pub fn new(sigma: f64, n_components: usize) -> Self {
        Self {
            sigma,
            n_components,
            form: FourierForm::default(),
            seed: SORF_DEFAULT_SEED,
        }
    }

    pub fn form(mut self, form: FourierForm) -> Self {
        self.form = form;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The map for `kernel`, which must be Gaussian, else [`MapError::UnsupportedKernel`].
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        Ok(Self::new(
            gaussian_sigma_for(kernel, SORF_NAME)?,
            n_components,
        ))
    }

    pub fn check(self) -> Result<StructuredOrthogonalValidParams> {
        ShiftInvariantKernel::Gaussian { sigma: self.sigma }.check()?;
        self.form.n_frequencies(self.n_components)?;
        Ok(StructuredOrthogonalValidParams(self))
    }

    pub fn fit(self, input_dim: usize) -> Result<StructuredOrthogonalFeatures> {
        self.check()?.fit(input_dim)
    }
}

impl StructuredOrthogonalValidParams {
    /// Draws `D_3, D_2, D_1` for each of the `ceil(m / p)` blocks, then the phases.
    pub fn fit(&self, input_dim: usize) -> Result<StructuredOrthogonalFeatures> {
        let p = &self.0;
        let (mut rng, m) = start_fit(input_dim, p.seed, p.form, p.n_components)?;
        let padded = input_dim.next_power_of_two();
        let n_blocks = m.div_ceil(padded);
        let signs = (0..n_blocks)
            .map(|_| {
                [
                    rademacher(padded, &mut rng),
                    rademacher(padded, &mut rng),
                    rademacher(padded, &mut rng),
                ]
            })
            .collect();
        let output = FourierOutput::new(p.form, p.n_components, &mut rng);
        Ok(StructuredOrthogonalFeatures {
            params: p.clone(),
            input_dim,
            padded,
            scale: structured_scale(p.sigma, padded),
            signs,
            output,
        })
    }
}

/// A fitted SORF map. Serialisable (serde) without the padded size and scale, which are
/// recomputed (same expressions, same bits); checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StructuredOrthogonalData")]
pub struct StructuredOrthogonalFeatures {
    params: StructuredOrthogonalParams,
    input_dim: usize,
    #[serde(skip_serializing)]
    padded: usize,
    #[serde(skip_serializing)]
    scale: f64,
    /// Per block `[D_3, D_2, D_1]`, applied in that order.
    signs: Vec<[Vec<f64>; 3]>,
    output: FourierOutput,
}

/// The serialised form of [`StructuredOrthogonalFeatures`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StructuredOrthogonalData {
    params: StructuredOrthogonalParams,
    input_dim: usize,
    signs: Vec<[Vec<f64>; 3]>,
    output: FourierOutput,
}

impl TryFrom<StructuredOrthogonalData> for StructuredOrthogonalFeatures {
    type Error = MapError;

    fn try_from(data: StructuredOrthogonalData) -> Result<Self> {
        let StructuredOrthogonalData {
            params,
            input_dim,
            signs,
            output,
        } = data;
        let name = "StructuredOrthogonalFeatures";
        params.clone().check()?;
        let padded = input_dim.checked_next_power_of_two().unwrap_or(0);
        ensure(padded >= 1, name, || format!("input_dim = {input_dim}"))?;
        output.check_matches(name, params.form, params.n_components)?;
        let n_blocks = output.n_frequencies().div_ceil(padded);
        ensure(signs.len() == n_blocks, name, || {
            format!("{} blocks, expected {n_blocks}", signs.len())
        })?;
        ensure(
            signs
                .iter()
                .flatten()
                .all(|d| d.len() == padded && d.iter().all(|s| s.abs() == 1.0)),
            name,
            || format!("sign vectors must have length {padded} and entries +-1"),
        )?;
        Ok(Self {
            scale: structured_scale(params.sigma, padded),
            params,
            input_dim,
            padded,
            signs,
            output,
        })
    }
}

/// `sqrt(p) / sigma` times three normalisations `1 / sqrt(p)` of the unnormalised FWHT.
fn structured_scale(sigma: f64, padded: usize) -> f64 {
    1.0 / (sigma * padded as f64)
}

impl StructuredOrthogonalFeatures {
    /// `p`, the input dimension padded to a power of two.
    pub fn padded_dim(&self) -> usize {
        self.padded
    }

    /// Heap memory of the fitted map's parameters, in bytes (`3p` signs per block as `f64`).
    pub fn memory_bytes(&self) -> usize {
        self.signs.len() * 3 * self.padded * std::mem::size_of::<f64>() + self.output.memory_bytes()
    }

    /// The frequencies as the columns of a `d x m` matrix (mapping the unit vectors): for tests
    /// and inspection, `O(d m log p)`.
    pub fn frequencies(&self) -> Array2<f64> {
        let m = self.output.n_frequencies();
        let mut w = Array2::zeros((self.input_dim, m));
        let mut scratch = self.new_scratch();
        let mut proj = vec![0.0; m];
        for i in 0..self.input_dim {
            scratch.0.iter_mut().for_each(|v| *v = 0.0);
            scratch.0[i] = 1.0;
            self.project(&mut proj, &mut scratch);
            w.row_mut(i)
                .iter_mut()
                .zip(&proj)
                .for_each(|(o, &v)| *o = v);
        }
        w
    }

    /// `proj = W x` for the padded input in `scratch.0`.
    fn project(&self, proj: &mut [f64], (x, buf): &mut (Vec<f64>, Vec<f64>)) {
        for (block, out) in self.signs.iter().zip(proj.chunks_mut(self.padded)) {
            buf.iter_mut()
                .zip(x.iter())
                .zip(&block[0])
                .for_each(|((b, &v), &s)| *b = v * s);
            fwht(buf);
            buf.iter_mut().zip(&block[1]).for_each(|(b, &s)| *b *= s);
            fwht(buf);
            buf.iter_mut().zip(&block[2]).for_each(|(b, &s)| *b *= s);
            fwht(buf);
            out.iter_mut()
                .zip(buf.iter())
                .for_each(|(o, &v)| *o = v * self.scale);
        }
    }
}

impl FeatureMap for StructuredOrthogonalFeatures {
    fn memory_bytes(&self) -> usize {
        StructuredOrthogonalFeatures::memory_bytes(self)
    }

    /// The padded input and the block being transformed.
    type Scratch = (Vec<f64>, Vec<f64>);

    fn input_dim(&self) -> usize {
        self.input_dim
    }

    fn output_dim(&self) -> usize {
        self.params.n_components
    }

    fn new_scratch(&self) -> Self::Scratch {
        (vec![0.0; self.padded], vec![0.0; self.padded])
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64], scratch: &mut Self::Scratch) {
        scratch.0.iter_mut().for_each(|v| *v = 0.0);
        row.for_each_nonzero(|i, v| scratch.0[i] = v);
        let m = self.output.n_frequencies();
        self.project(&mut out[..m], scratch);
        self.output.finish_in_place(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::test_support::{assert_gram_close, gaussian_data, measured_kappa};
    use crate::RandomFourierParams;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Variance inflations over i.i.d. frequencies allowed in the fixed-seed Gram tests, measured
    /// by `variance_over_seeds`.
    const ORF_KAPPA: f64 = 1.0;
    const SORF_KAPPA: f64 = 1.0;

    /// Q is orthogonal, and each ORF block's rows are orthogonal with the drawn lengths.
    #[test]
    fn blocks_are_orthogonal() {
        let d = 8;
        let map = OrthogonalRandomFeaturesParams::new(
            ShiftInvariantKernel::gaussian(2.0).unwrap(),
            2 * 20,
        )
        .fit(d)
        .unwrap();
        let w = map.frequencies(); // d x 20: blocks of 8, 8, 4
        for (a, b) in [(0, 8), (8, 16), (16, 20)] {
            let block = w.slice(ndarray::s![.., a..b]);
            let gram = block.t().dot(&block);
            for i in 0..b - a {
                for j in 0..b - a {
                    if i != j {
                        assert!(gram[[i, j]].abs() < 1e-12 * gram[[i, i]]);
                    }
                }
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let q = haar_orthogonal(13, &mut rng).unwrap();
        let eye = q.dot(&q.t());
        for i in 0..13 {
            for j in 0..13 {
                assert!((eye[[i, j]] - if i == j { 1.0 } else { 0.0 }).abs() < 1e-13);
            }
        }
    }

    /// SORF rows are orthogonal within a block, of norm sqrt(p) / sigma (restricted to the first
    /// d coordinates when p > d: here d = p = 16).
    #[test]
    fn sorf_rows_orthogonal_with_fixed_norm() {
        let map = StructuredOrthogonalParams::new(2.0, 64).fit(16).unwrap();
        let w = map.frequencies(); // 16 x 32: two blocks
        for (a, b) in [(0, 16), (16, 32)] {
            let block = w.slice(ndarray::s![.., a..b]);
            let gram = block.t().dot(&block);
            for i in 0..16 {
                assert!((gram[[i, i]] - 16.0 / 4.0).abs() < 1e-12);
                for j in 0..16 {
                    if i != j {
                        assert!(gram[[i, j]].abs() < 1e-12);
                    }
                }
            }
        }
    }

    /// ORF (Gaussian, Matern) and SORF against the exact Gram matrix, both forms, with the
    /// tolerances of i.i.d. frequencies (kappa = 1): Yu et al.'s Theorem 1 says the orthogonal
    /// estimator's variance is smaller for the Gaussian kernel, and `variance_over_seeds` measures
    /// kappa between 0.1 and 0.85 here for ORF (Gaussian and Matern) and SORF.
    #[test]
    fn approximates_the_kernel() {
        let d = 16;
        let x = gaussian_data(50, d, 21);
        for form in [FourierForm::Paired, FourierForm::Phase] {
            let n_components = 4096;
            for kernel in [
                ShiftInvariantKernel::gaussian(5.0).unwrap(),
                ShiftInvariantKernel::matern(2.5, 5.0).unwrap(),
            ] {
                let map = OrthogonalRandomFeaturesParams::new(kernel, n_components)
                    .form(form)
                    .seed(4)
                    .fit(d)
                    .unwrap();
                let z = map.transform(&x).unwrap();
                assert_gram_close(
                    &kernel,
                    &x,
                    &z,
                    form,
                    ORF_KAPPA,
                    &format!("ORF {kernel:?} {form:?}"),
                );
            }
            let kernel = ShiftInvariantKernel::gaussian(5.0).unwrap();
            let map = StructuredOrthogonalParams::new(5.0, n_components)
                .form(form)
                .seed(4)
                .fit(d)
                .unwrap();
            let z = map.transform(&x).unwrap();
            assert_gram_close(&kernel, &x, &z, form, SORF_KAPPA, &format!("SORF {form:?}"));
        }
    }

    /// The measured variance inflation `kappa` behind the tolerances above: over 100 seeds, the
    /// Gram MSE divided by the i.i.d. variance `mean(v) / m` (m = 64 frequencies, 4 blocks of
    /// d = 16), both forms. SORF's bias is in the MSE too.
    #[test]
    fn variance_over_seeds() {
        let d = 16;
        let x = gaussian_data(30, d, 22);
        for form in [FourierForm::Paired, FourierForm::Phase] {
            for kernel in [
                ShiftInvariantKernel::gaussian(5.0).unwrap(),
                ShiftInvariantKernel::matern(2.5, 5.0).unwrap(),
            ] {
                let orf = measured_kappa(&kernel, &x, form, 100, &|s| {
                    OrthogonalRandomFeaturesParams::new(kernel, 128)
                        .form(form)
                        .seed(s)
                        .fit(d)
                        .unwrap()
                        .transform(&x)
                        .unwrap()
                });
                assert!(orf < ORF_KAPPA, "ORF {kernel:?} {form:?}: kappa {orf}");
            }
            let kernel = ShiftInvariantKernel::gaussian(5.0).unwrap();
            let sorf = measured_kappa(&kernel, &x, form, 100, &|s| {
                StructuredOrthogonalParams::new(5.0, 128)
                    .form(form)
                    .seed(s)
                    .fit(d)
                    .unwrap()
                    .transform(&x)
                    .unwrap()
            });
            assert!(sorf < SORF_KAPPA, "SORF {form:?}: kappa {sorf}");
        }
    }

    /// Yu et al.'s headline: at D = d (here m = d = 16 frequencies, paired form), orthogonal
    /// frequencies give a lower Gram error than i.i.d. ones on Gaussian data, averaged over 200
    /// seeds (the difference is many standard errors; printed on failure).
    #[test]
    fn orf_beats_rff_at_d_frequencies() {
        let d = 16;
        let x = gaussian_data(40, d, 23);
        let sigma = 2.0 * (d as f64).sqrt(); // sigma of the order of the typical distance sqrt(2d)
        let kernel = ShiftInvariantKernel::gaussian(sigma).unwrap();
        let exact = kernel.gram(&x);
        let mse = |z: ndarray::Array2<f64>| {
            let diff = z.dot(&z.t()) - &exact;
            diff.iter().map(|v| v * v).sum::<f64>() / diff.len() as f64
        };
        let (mut orf, mut sorf, mut rff) = (0.0, 0.0, 0.0);
        let seeds = 200;
        for s in 0..seeds {
            orf += mse(OrthogonalRandomFeaturesParams::new(kernel, 2 * d)
                .seed(s)
                .fit(d)
                .unwrap()
                .transform(&x)
                .unwrap());
            sorf += mse(StructuredOrthogonalParams::new(sigma, 2 * d)
                .seed(s)
                .fit(d)
                .unwrap()
                .transform(&x)
                .unwrap());
            rff += mse(RandomFourierParams::new(kernel, 2 * d)
                .seed(s)
                .fit(d)
                .unwrap()
                .transform(&x)
                .unwrap());
        }
        assert!(
            orf < 0.8 * rff && sorf < 0.8 * rff,
            "Gram MSE: ORF {orf}, SORF {sorf}, RFF {rff}"
        );
    }

    #[test]
    fn dense_sparse_and_threads_agree() {
        let x = crate::test_support::sparse_data(600, 12, 0.4, 8);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let sorf = StructuredOrthogonalParams::new(2.0, 100)
            .form(FourierForm::Phase)
            .fit(12)
            .unwrap();
        let reference = sorf.transform(&x).unwrap();
        assert_eq!(sorf.transform(&csr).unwrap(), reference);
        assert_eq!(
            crate::test_support::on_threads(3, || sorf.transform(&x).unwrap()),
            reference
        );
        let orf =
            OrthogonalRandomFeaturesParams::new(ShiftInvariantKernel::gaussian(2.0).unwrap(), 30)
                .fit(12)
                .unwrap();
        let dense = orf.transform(&x).unwrap();
        let sparse = orf.transform(&csr).unwrap();
        assert!(dense
            .iter()
            .zip(&sparse)
            .all(|(a, b)| (a - b).abs() < 1e-12));
        assert_eq!(
            crate::test_support::on_threads(1, || orf.transform(&x).unwrap()),
            dense
        );
        assert_eq!(
            crate::test_support::on_threads(3, || orf.transform(&csr).unwrap()),
            sparse
        );
    }

    #[test]
    fn invalid_parameters_are_errors() {
        assert_eq!(
            OrthogonalRandomFeaturesParams::new(ShiftInvariantKernel::laplacian(1.0).unwrap(), 8)
                .check(),
            Err(MapError::UnsupportedKernel {
                map: "OrthogonalRandomFeatures",
                kernel: "laplacian"
            })
        );
        assert_eq!(
            OrthogonalRandomFeaturesParams::new(ShiftInvariantKernel::gaussian(1.0).unwrap(), 0)
                .check(),
            Err(MapError::ZeroComponents(0))
        );
        assert_eq!(
            StructuredOrthogonalParams::new(-1.0, 8).check(),
            Err(MapError::InvalidKernelParameter {
                kernel: "gaussian",
                parameter: "sigma",
                value: -1.0,
                valid: "finite and > 0"
            })
        );
        assert_eq!(
            StructuredOrthogonalParams::new(1.0, 9).check(),
            Err(MapError::OddComponents(9))
        );
        assert_eq!(
            StructuredOrthogonalParams::new(1.0, 8).fit(0),
            Err(MapError::ZeroInputDim(0))
        );
        let map = StructuredOrthogonalParams::new(1.0, 8).fit(5).unwrap();
        assert_eq!(
            map.transform(&Array2::zeros((1, 6))),
            Err(MapError::DimensionMismatch {
                expected: 5,
                got: 6
            })
        );
        let mut x = Array2::zeros((1, 5));
        x[[0, 0]] = f64::INFINITY;
        assert!(matches!(map.transform(&x), Err(MapError::NonFinite { .. })));
    }
}
