//! What every Fourier-type map shares: drawing frequencies from a kernel's spectral density, the
//! two output forms, the cosine loops, and a dense `d x m` frequency matrix applied as one
//! matrix product (random Fourier features and orthogonal random features).
//!
//! **Bochner.** A continuous shift-invariant kernel with `k(0) = 1` is the characteristic function
//! of a probability density `p(w)`: `k(x - y) = E_w[cos(w'(x - y))]`. With `m` frequencies
//! `w_1..w_m` drawn from `p`, two feature maps estimate it without bias:
//!
//! * [`FourierForm::Paired`]: `z(x) = [cos(w_j'x)]_j ++ [sin(w_j'x)]_j / sqrt(m)`, `D = 2m`
//!   features (an odd `D` is an error). `z(x)'z(y) = (1/m) sum_j cos(w_j'(x - y))`. One frequency's
//!   term has variance `(1 + k(2 delta))/2 - k(delta)²` (`delta = x - y`), at most 1; for the
//!   Gaussian it is `(1 - k²)²/2 <= 1/2`.
//! * [`FourierForm::Phase`]: `z_j(x) = sqrt(2/D) cos(w_j'x + b_j)`, `b_j ~ U[0, 2 pi)`, `D = m`
//!   features (Rahimi & Recht 2007's form, scikit-learn's `RBFSampler`). One feature's term
//!   `2 cos(w'x + b) cos(w'y + b) = cos(w'delta) + cos(w'(x + y) + 2b)` has variance
//!   `1 + k(2 delta)/2 - k(delta)²`, at most 3/2: the phase form is noisier per feature, and
//!   per frequency.
//!
//! Both terms are bounded (`[-1, 1]` and `[-2, 2]`), so Hoeffding's inequality bounds the error of
//! a single entry, which is what the tests use for the maximum error.

use ndarray::linalg::general_mat_vec_mul;
use ndarray::{s, ArrayView2, ArrayViewMut2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Cauchy, ChiSquared, Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::block_product::tiled_product_then;
use crate::blocks::Matrix;
use crate::csr::{Row, Rows};
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::kernels::shift_invariant::ShiftInvariantKernel;
use crate::projections::ProjectionWatch;
use crate::simd::{vector_builds, Isa};

/// Rows per parallel task of the cosine pass and the row loops (as in [`FeatureMap::transform_into`]).
pub(crate) const ROWS_PER_TASK: usize = 256;

/// Batches with fewer rows are projected row by row (BLAS dgemv, which streams `W` once) instead
/// of by one matrix product (dgemm packs `W` first: 4 GB at d = 8192, m = 65,536).
const GEMV_ROWS: usize = 4;

/// How `m` frequencies become features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FourierForm {
    /// `[cos(w_j'x)]_j ++ [sin(w_j'x)]_j / sqrt(D/2)`: `D/2` frequencies, `D` must be even.
    #[default]
    Paired,
    /// `sqrt(2/D) cos(w_j'x + b_j)`, `b_j ~ U[0, 2 pi)`: `D` frequencies.
    Phase,
}

impl FourierForm {
    /// Every form by the name specs and the Python package give it.
    pub const NAMES: [(&'static str, FourierForm); 2] = [
        ("paired", FourierForm::Paired),
        ("phase", FourierForm::Phase),
    ];

    /// The form named `name` (`"paired"` or `"phase"`), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|&(_, form)| form)
    }

    /// The number of frequencies behind `n_components` features, or an error for `D = 0` and for
    /// an odd `D` in the paired form.
    pub fn n_frequencies(self, n_components: usize) -> Result<usize> {
        if n_components == 0 {
            return Err(MapError::ZeroComponents(n_components));
        }
        match self {
            FourierForm::Paired if n_components % 2 == 1 => {
                Err(MapError::OddComponents(n_components))
            }
            FourierForm::Paired => Ok(n_components / 2),
            FourierForm::Phase => Ok(n_components),
        }
    }
}

/// Draws one frequency vector `w ~ p(w)` of the kernel's spectral density into `w`.
///
/// * Gaussian: `w_i = g_i / sigma`, `g ~ N(0, I)`.
/// * Laplacian: `w_i ~ Cauchy(0, 1/sigma)` independently: `E[cos(w_i t)] = exp(-|t| / sigma)`, and
///   the product over coordinates is `exp(-‖t‖₁ / sigma)`.
/// * Matern(`nu`, `l`): the spectral density is proportional to `(2 nu / l² + ‖w‖²)^-(nu + d/2)`
///   (Rasmussen & Williams eq. 4.15 in angular frequency), which is the multivariate Student t
///   with `2 nu` degrees of freedom and scale matrix `I / l²`. Such a `t` is a Gaussian divided by
///   an independent `sqrt(u / (2 nu))`, `u ~ chi²(2 nu)`: `w = (g / l) sqrt(2 nu / u)`, one `u`
///   for the whole vector. (For `nu = 1/2`, `d = 1` this is Cauchy(0, 1/l), matching
///   `exp(-|t| / l)`.)
pub(crate) fn sample_frequency(kernel: &ShiftInvariantKernel, rng: &mut impl Rng, w: &mut [f64]) {
    match *kernel {
        ShiftInvariantKernel::Gaussian { sigma } => {
            for v in w.iter_mut() {
                *v = rng.sample::<f64, _>(StandardNormal) / sigma;
            }
        }
        ShiftInvariantKernel::Laplacian { sigma } => {
            let cauchy = Cauchy::new(0.0, 1.0 / sigma).expect("checked bandwidth");
            for v in w.iter_mut() {
                *v = cauchy.sample(rng);
            }
        }
        ShiftInvariantKernel::Matern { nu, length_scale } => {
            let u: f64 = ChiSquared::new(2.0 * nu).expect("nu > 0").sample(rng);
            let scale = (2.0 * nu / u).sqrt() / length_scale;
            for v in w.iter_mut() {
                *v = rng.sample::<f64, _>(StandardNormal) * scale;
            }
        }
    }
}

/// Draws `‖w‖` for a frequency `w ∈ R^p` of a radial spectral density (Gaussian, Matern): the
/// length that structured maps (orthogonal features, Fastfood) give to a direction that is
/// uniform on the sphere. Gaussian: `chi(p) / sigma`; Matern: `chi(p) sqrt(2 nu / u) / l`,
/// `u ~ chi²(2 nu)` (the norm of [`sample_frequency`]'s vector). The Laplacian (L1) kernel is not
/// radial: an error.
pub(crate) fn sample_radius(kernel: &ShiftInvariantKernel, p: usize, rng: &mut impl Rng) -> f64 {
    let chi = ChiSquared::new(p as f64)
        .expect("p >= 1")
        .sample(rng)
        .sqrt();
    match *kernel {
        ShiftInvariantKernel::Gaussian { sigma } => chi / sigma,
        ShiftInvariantKernel::Matern { nu, length_scale } => {
            let u: f64 = ChiSquared::new(2.0 * nu).expect("nu > 0").sample(rng);
            chi * (2.0 * nu / u).sqrt() / length_scale
        }
        ShiftInvariantKernel::Laplacian { .. } => unreachable!("checked: radial kernels only"),
    }
}

/// The start of every Fourier-type `fit`: the input dimension checked, the generator seeded, and
/// `m`, the number of frequencies to draw.
pub(crate) fn start_fit(
    input_dim: usize,
    seed: u64,
    form: FourierForm,
    n_components: usize,
) -> Result<(ChaCha8Rng, usize)> {
    if input_dim == 0 {
        return Err(MapError::ZeroInputDim(input_dim));
    }
    let rng = ChaCha8Rng::seed_from_u64(seed);
    Ok((rng, form.n_frequencies(n_components)?))
}

/// `n` independent random signs `+-1` (the diagonal `B` and `D_i` matrices of the structured
/// maps).
pub(crate) fn rademacher(n: usize, rng: &mut impl Rng) -> Vec<f64> {
    (0..n)
        .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
        .collect()
}

/// The error for a map that needs a radial spectral density.
pub(crate) fn require_radial(map: &'static str, kernel: &ShiftInvariantKernel) -> Result<()> {
    kernel.check()?;
    match kernel {
        ShiftInvariantKernel::Laplacian { .. } => Err(MapError::UnsupportedKernel {
            map,
            kernel: kernel.name(),
        }),
        _ => Ok(()),
    }
}

/// The output stage: projections `w_j'x` in, features out. Serialised without its scale, which
/// is recomputed from the form and `m` (the same expression, so the same bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "FourierOutputData")]
pub(crate) struct FourierOutput {
    form: FourierForm,
    n_frequencies: usize,
    #[serde(skip_serializing)]
    scale: f64,
    /// The phases `b_j` of the phase form (empty for the paired form).
    #[serde(with = "crate::packed::vec")]
    offsets: Vec<f64>,
}

/// The serialised form of [`FourierOutput`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FourierOutputData {
    form: FourierForm,
    n_frequencies: usize,
    #[serde(with = "crate::packed::vec")]
    offsets: Vec<f64>,
}

impl TryFrom<FourierOutputData> for FourierOutput {
    type Error = MapError;

    fn try_from(data: FourierOutputData) -> Result<Self> {
        let FourierOutputData {
            form,
            n_frequencies,
            offsets,
        } = data;
        let name = "Fourier output stage";
        ensure(n_frequencies >= 1, name, || "no frequencies".into())?;
        let n_offsets = match form {
            FourierForm::Paired => 0,
            FourierForm::Phase => n_frequencies,
        };
        ensure(offsets.len() == n_offsets, name, || {
            format!(
                "{} phases for {form:?} with m = {n_frequencies}",
                offsets.len()
            )
        })?;
        ensure(crate::packed::slice_finite(&offsets), name, || {
            "non-finite phase".into()
        })?;
        Ok(Self {
            form,
            n_frequencies,
            scale: output_scale(form, n_frequencies),
            offsets,
        })
    }
}

/// The features' common factor: `1/sqrt(m)` paired (`D = 2m`), `sqrt(2/D)` phase (`D = m`).
fn output_scale(form: FourierForm, n_frequencies: usize) -> f64 {
    match form {
        FourierForm::Paired => (1.0 / n_frequencies as f64).sqrt(),
        FourierForm::Phase => (2.0 / n_frequencies as f64).sqrt(),
    }
}

impl FourierOutput {
    /// Draws the phases (phase form) from `rng`; `n_components` already checked.
    pub(crate) fn new(form: FourierForm, n_components: usize, rng: &mut impl Rng) -> Self {
        let n_frequencies = form
            .n_frequencies(n_components)
            .expect("checked n_components");
        let offsets = match form {
            FourierForm::Paired => Vec::new(),
            FourierForm::Phase => (0..n_frequencies)
                .map(|_| rng.random::<f64>() * std::f64::consts::TAU)
                .collect(),
        };
        Self {
            form,
            n_frequencies,
            scale: output_scale(form, n_frequencies),
            offsets,
        }
    }

    /// The phase form with the given phases (learnt ones, PRFF's): `sqrt(2/m) cos(p + b_j)`.
    pub(crate) fn with_phases(offsets: Vec<f64>) -> Self {
        let n_frequencies = offsets.len();
        Self {
            form: FourierForm::Phase,
            n_frequencies,
            scale: output_scale(FourierForm::Phase, n_frequencies),
            offsets,
        }
    }

    pub(crate) fn form(&self) -> FourierForm {
        self.form
    }

    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }

    /// `Ok` if this output stage is the one the parameters describe (deserialised maps).
    pub(crate) fn check_matches(
        &self,
        map: &'static str,
        form: FourierForm,
        n_components: usize,
    ) -> Result<()> {
        ensure(
            self.form == form && self.n_components() == n_components,
            map,
            || {
                format!(
                    "output stage {:?} with D = {} for parameters {form:?} with D = {n_components}",
                    self.form,
                    self.n_components()
                )
            },
        )
    }

    /// `D`: `2m` (paired) or `m` (phase).
    pub(crate) fn n_components(&self) -> usize {
        match self.form {
            FourierForm::Paired => 2 * self.n_frequencies,
            FourierForm::Phase => self.n_frequencies,
        }
    }

    pub(crate) fn n_frequencies(&self) -> usize {
        self.n_frequencies
    }

    pub(crate) fn offsets(&self) -> &[f64] {
        &self.offsets
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.offsets.len() * std::mem::size_of::<f64>()
    }

    /// `row[..m]` holds the projections; on return `row` (length `D`) holds the features.
    #[inline]
    pub(crate) fn finish_in_place(&self, row: &mut [f64]) {
        let m = self.n_frequencies;
        match self.form {
            FourierForm::Paired => {
                let (cos, sin) = row.split_at_mut(m);
                cos_sin_in_place(cos, sin, self.scale);
            }
            FourierForm::Phase => cos_phase_in_place(row, &self.offsets, self.scale),
        }
    }
}

/// Paired form: `cos[j] <- scale cos(cos[j])`, `sin[j] <- scale sin(cos[j])` (the projections
/// come in through `cos`). Chunks whose arguments are all within [`FAST_TRIG_LIMIT`] go through
/// [`sin_cos_fast`] (vectorised by the compiler, in the processor's widest build: same bits),
/// others through the standard library.
#[inline]
pub(crate) fn cos_sin_in_place(cos: &mut [f64], sin: &mut [f64], scale: f64) {
    cos_sin_with(Isa::widest(), cos, sin, scale)
}

vector_builds!(
    /// [`cos_sin_in_place`] built for `isa`.
    fn cos_sin_with(cos: &mut [f64], sin: &mut [f64], scale: f64) => cos_sin_loop
);

#[inline(always)]
fn cos_sin_loop(cos: &mut [f64], sin: &mut [f64], scale: f64) {
    for (c, s) in cos.chunks_mut(TRIG_CHUNK).zip(sin.chunks_mut(TRIG_CHUNK)) {
        if within_fast_range(c) {
            for (c, s) in c.iter_mut().zip(s.iter_mut()) {
                let (sv, cv) = sin_cos_fast(*c);
                *s = scale * sv;
                *c = scale * cv;
            }
        } else {
            crate::projections::note_chunk(c);
            cos_sin_reference(c, s, scale);
        }
    }
}

/// Phase form: `x[j] <- scale cos(x[j] + b[j])`, fast path and builds as [`cos_sin_in_place`].
#[inline]
pub(crate) fn cos_phase_in_place(x: &mut [f64], offsets: &[f64], scale: f64) {
    cos_phase_with(Isa::widest(), x, offsets, scale)
}

vector_builds!(
    /// [`cos_phase_in_place`] built for `isa`.
    fn cos_phase_with(x: &mut [f64], offsets: &[f64], scale: f64) => cos_phase_loop
);

#[inline(always)]
fn cos_phase_loop(x: &mut [f64], offsets: &[f64], scale: f64) {
    for (x, b) in x.chunks_mut(TRIG_CHUNK).zip(offsets.chunks(TRIG_CHUNK)) {
        x.iter_mut().zip(b).for_each(|(v, &b)| *v += b);
        if within_fast_range(x) {
            for v in x.iter_mut() {
                *v = scale * sin_cos_fast(*v).1;
            }
        } else {
            crate::projections::note_chunk(x);
            x.iter_mut().for_each(|v| *v = scale * v.cos());
        }
    }
}

/// The scalar reference of the paired form: the standard library's `sin` and `cos`.
pub(crate) fn cos_sin_reference(cos: &mut [f64], sin: &mut [f64], scale: f64) {
    for (c, s) in cos.iter_mut().zip(sin.iter_mut()) {
        *s = scale * c.sin();
        *c = scale * c.cos();
    }
}

/// The scalar reference of the phase form.
#[cfg(test)]
pub(crate) fn cos_phase_reference(x: &mut [f64], offsets: &[f64], scale: f64) {
    for (v, &b) in x.iter_mut().zip(offsets) {
        *v = scale * (*v + b).cos();
    }
}

/// Arguments per range check: long enough for the vector loop, short enough that one huge
/// argument sends few others to the slow path.
const TRIG_CHUNK: usize = 64;

/// [`sin_cos_fast`] is accurate for `|x| <= 2^20 pi/2` (the quadrant times the 33-bit parts of
/// `pi/2` stay exact); a round bound below that.
pub(crate) const FAST_TRIG_LIMIT: f64 = 1.0e6;

#[inline(always)]
fn within_fast_range(x: &[f64]) -> bool {
    // `!(a > b)` is also true for NaN: written so that NaN goes to the slow path.
    x.iter().fold(0.0f64, |m, v| m.max(v.abs())) <= FAST_TRIG_LIMIT && x.iter().all(|v| !v.is_nan())
}

/// `(sin x, cos x)` for `|x| <= FAST_TRIG_LIMIT`, branch-free so that loops over it vectorise
/// (SSE2 has no packed rounding or float-to-integer conversion, hence the tricks):
///
/// 1. quadrant `q = round(x 2/pi)` by adding and subtracting `1.5 * 2^52`, whose low mantissa bits
///    then hold `q mod 4`;
/// 2. Cody-Waite reduction `r = x - q pi/2` with fdlibm's three-part `pi/2` (the first two parts
///    have 33 significant bits, so `q * part` is exact for `|q| < 2^20`), `|r| <= pi/4` (a hair
///    more at rounding ties);
/// 3. fdlibm's `__kernel_sin` and `__kernel_cos` minimax polynomials on `r` (errors below one ulp);
/// 4. `(sin x, cos x)` is `(s, c)`, `(c, -s)`, `(-s, -c)` or `(-c, s)` for `q mod 4 = 0..3`, chosen
///    with bit masks.
///
/// Agrees with the standard library's `sin`/`cos` to `3e-16` absolute (tested on 10^6 arguments).
#[inline(always)]
#[allow(clippy::excessive_precision)] // fdlibm's constants as published
pub(crate) fn sin_cos_fast(x: f64) -> (f64, f64) {
    const SHIFT: f64 = 6755399441055744.0; // 1.5 * 2^52
    const PIO2_1: f64 = 1.570_796_326_734_125_614_17e0;
    const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
    const PIO2_3: f64 = 2.022_266_248_795_950_631_54e-21;
    const S1: f64 = -1.666_666_666_666_663_243_48e-1;
    const S2: f64 = 8.333_333_333_322_489_461_24e-3;
    const S3: f64 = -1.984_126_982_985_794_931_34e-4;
    const S4: f64 = 2.755_731_370_707_006_767_89e-6;
    const S5: f64 = -2.505_076_025_340_686_341_95e-8;
    const S6: f64 = 1.589_690_995_211_550_102_21e-10;
    const C1: f64 = 4.166_666_666_666_660_190_37e-2;
    const C2: f64 = -1.388_888_888_887_410_957_49e-3;
    const C3: f64 = 2.480_158_728_947_672_941_78e-5;
    const C4: f64 = -2.755_731_435_139_066_330_35e-7;
    const C5: f64 = 2.087_572_321_298_174_827_90e-9;
    const C6: f64 = -1.135_964_755_778_819_482_65e-11;

    let shifted = x * std::f64::consts::FRAC_2_PI + SHIFT;
    let quadrant = shifted.to_bits();
    let q = shifted - SHIFT;
    let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;

    let z = r * r;
    let sin_r = r + z * r * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    let poly = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    let half = 0.5 * z;
    let w = 1.0 - half;
    let cos_r = w + (((1.0 - w) - half) + z * poly);

    // Odd quadrants swap sin and cos; the signs follow the quadrant.
    let swap = 0u64.wrapping_sub(quadrant & 1);
    let (s_bits, c_bits) = (sin_r.to_bits(), cos_r.to_bits());
    let sin_bits = (s_bits & !swap) | (c_bits & swap);
    let cos_bits = (c_bits & !swap) | (s_bits & swap);
    let sin_sign = (quadrant & 2) << 62;
    let cos_sign = (quadrant.wrapping_add(1) & 2) << 62;
    (
        f64::from_bits(sin_bits ^ sin_sign),
        f64::from_bits(cos_bits ^ cos_sign),
    )
}

/// Checks a batch against a map, as [`FeatureMap::transform_into`] does.
pub(crate) fn check_batch<M: FeatureMap>(
    map: &M,
    rows: &Rows<'_>,
    out: &ArrayViewMut2<'_, f64>,
) -> Result<()> {
    if rows.n_cols() != map.input_dim() {
        return Err(MapError::DimensionMismatch {
            expected: map.input_dim(),
            got: rows.n_cols(),
        });
    }
    let expected = (rows.n_rows(), map.output_dim());
    if out.dim() != expected {
        return Err(MapError::OutputShape {
            expected,
            got: out.dim(),
        });
    }
    rows.check_finite()
}

/// Frequencies stored as the columns of a `d x m` matrix: `projections = x W`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "DenseFourierData")]
pub(crate) struct DenseFourier {
    /// `weights[[i, j]] = (w_j)_i`: row `i` is what a non-zero `x_i` adds to the projections.
    #[serde(with = "crate::packed::matrix")]
    weights: Matrix,
    output: FourierOutput,
}

/// The serialised form of [`DenseFourier`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DenseFourierData {
    #[serde(with = "crate::packed::matrix")]
    weights: Matrix,
    output: FourierOutput,
}

impl TryFrom<DenseFourierData> for DenseFourier {
    type Error = MapError;

    fn try_from(data: DenseFourierData) -> Result<Self> {
        let name = "frequency matrix";
        let (d, m) = data.weights.view().dim();
        ensure(d >= 1, name, || "no input dimension".into())?;
        ensure(m == data.output.n_frequencies(), name, || {
            format!("{m} columns for m = {}", data.output.n_frequencies())
        })?;
        ensure(
            crate::packed::all_finite([data.weights.view()]),
            name,
            || "non-finite frequency".into(),
        )?;
        // A matrix is in standard layout, which `map_row` relies on.
        Ok(Self::from_matrix(data.weights, data.output))
    }
}

impl DenseFourier {
    pub(crate) fn new(weights: ndarray::Array2<f64>, output: FourierOutput) -> Self {
        Self::from_matrix(Matrix::owned(weights), output)
    }

    pub(crate) fn from_matrix(weights: Matrix, output: FourierOutput) -> Self {
        assert_eq!(weights.view().ncols(), output.n_frequencies());
        Self { weights, output }
    }

    pub(crate) fn matrix(&self) -> &Matrix {
        &self.weights
    }

    pub(crate) fn weights(&self) -> ArrayView2<'_, f64> {
        self.weights.view()
    }

    pub(crate) fn output(&self) -> &FourierOutput {
        &self.output
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.weights().len() * std::mem::size_of::<f64>() + self.output.memory_bytes()
    }

    /// One row: `out[..m] = sum over non-zeros x_i W[i, ..]` (in increasing `i`, so the dense and
    /// sparse forms of a row give the same bits), then the output stage.
    pub(crate) fn map_row(&self, row: &Row<'_>, out: &mut [f64]) {
        let m = self.output.n_frequencies();
        let proj = &mut out[..m];
        proj.iter_mut().for_each(|v| *v = 0.0);
        let weights = self.weights();
        row.for_each_nonzero(|i, x| {
            let w = weights.row(i);
            let w = w.as_slice().expect("standard layout");
            proj.iter_mut().zip(w).for_each(|(p, &wi)| *p += x * wi);
        });
        self.output.finish_in_place(out);
    }

    /// Dense rows: by tiles of rows and frequencies in parallel (module `block_product`, one
    /// thread per tile), each tile's product `X W` written straight into its part of the output's
    /// first `m` columns, then its cosines in place while the tile is in cache; dgemv per row when
    /// there are fewer than [`GEMV_ROWS`] rows. A row's features do not depend on the other rows
    /// beyond the rounding of the product (the tests check `1e-12` against [`Self::map_row`]),
    /// nor on the number of rayon threads (the tiles are fixed).
    pub(crate) fn transform_dense(&self, x: ArrayView2<'_, f64>, mut out: ArrayViewMut2<'_, f64>) {
        let m = self.output.n_frequencies();
        if x.nrows() < GEMV_ROWS {
            // A matrix product would pack (copy) all of W for a row or two.
            let mut buffer = Vec::new();
            for (x_row, mut out_row) in x.rows().into_iter().zip(out.rows_mut()) {
                let mut proj = out_row.slice_mut(s![..m]);
                general_mat_vec_mul(1.0, &self.weights().t(), &x_row, 0.0, &mut proj);
                match out_row.as_slice_mut() {
                    Some(slice) => self.output.finish_in_place(slice),
                    None => {
                        buffer.clear();
                        buffer.extend(out_row.iter());
                        self.output.finish_in_place(&mut buffer);
                        out_row.iter_mut().zip(&buffer).for_each(|(o, &b)| *o = b);
                    }
                }
            }
            return;
        }
        let (scale, offsets) = (self.output.scale, &self.output.offsets);
        let paired = self.output.form == FourierForm::Paired;
        tiled_product_then(
            x,
            self.weights(),
            out,
            paired,
            |cols, proj, sin| match sin {
                Some(sin) => cos_sin_in_place(proj, sin, scale),
                None => cos_phase_in_place(proj, &offsets[cols], scale),
            },
        );
    }
}

/// CSR batches at least this dense go through [`DenseFourier::transform_sparse_by_blocks`]. One
/// axpy per non-zero streams a row of `W` per non-zero at vector speed, the blocked matrix product
/// runs about ten times faster per multiply-add (measured at d = 780, m = 4000: CSR rows of
/// density 0.19 row by row took 2.5 times the dense time), so the break-even density is near 1/10.
pub(crate) const DENSIFY_DENSITY: f64 = 0.1;

/// Rows per densified block of a CSR batch (6 MB of `f64` at d = 780).
const SPARSE_BLOCK_ROWS: usize = 1024;

impl DenseFourier {
    /// A CSR batch (checked) densified block by block into [`Self::transform_dense`]: the speed
    /// of the matrix product for inputs that are not very sparse, memory bounded by one block.
    pub(crate) fn transform_sparse_by_blocks(
        &self,
        x: &crate::csr::CsrMatrix,
        mut out: ArrayViewMut2<'_, f64>,
    ) {
        let d = x.n_cols();
        let mut dense = ndarray::Array2::zeros((SPARSE_BLOCK_ROWS.min(x.n_rows()), d));
        for (b, out_block) in out
            .axis_chunks_iter_mut(Axis(0), SPARSE_BLOCK_ROWS)
            .enumerate()
        {
            let n = out_block.nrows();
            let mut block = dense.slice_mut(s![..n, ..]);
            block.fill(0.0);
            for (k, mut row) in block.rows_mut().into_iter().enumerate() {
                x.row(b * SPARSE_BLOCK_ROWS + k)
                    .for_each_nonzero(|i, v| row[i] = v);
            }
            self.transform_dense(block.view(), out_block);
        }
    }
}

/// A batch of rows through a map whose features are `inner`'s: dense input by blocked matrix
/// products ([`DenseFourier::transform_dense`]); CSR input densified by blocks into the same
/// product unless sparser than [`DENSIFY_DENSITY`], then row by row.
pub(crate) fn transform_batch<M: FeatureMap>(
    map: &M,
    inner: &DenseFourier,
    rows: Rows<'_>,
    mut out: ArrayViewMut2<'_, f64>,
) -> Result<()> {
    check_batch(map, &rows, &out)?;
    let watch = ProjectionWatch::start();
    match rows {
        Rows::Dense(x) => inner.transform_dense(x, out.view_mut()),
        Rows::Sparse(x) if x.nnz() as f64 >= DENSIFY_DENSITY * (x.n_rows() * x.n_cols()) as f64 => {
            inner.transform_sparse_by_blocks(x, out.view_mut())
        }
        Rows::Sparse(_) => transform_rows(map, rows, out.view_mut()),
    }
    watch.finish(out.view())
}

/// The default per-row parallel loop (as [`FeatureMap::transform_into`]), for maps that override
/// `transform_into` for dense input only. Input already checked.
pub(crate) fn transform_rows<M: FeatureMap>(
    map: &M,
    rows: Rows<'_>,
    mut out: ArrayViewMut2<'_, f64>,
) {
    out.axis_chunks_iter_mut(Axis(0), ROWS_PER_TASK)
        .into_par_iter()
        .enumerate()
        .for_each(|(chunk, mut block)| {
            let mut scratch = map.new_scratch();
            let mut buffer = vec![0.0; map.output_dim()];
            for (k, mut out_row) in block.rows_mut().into_iter().enumerate() {
                let row = rows.row(chunk * ROWS_PER_TASK + k);
                match out_row.as_slice_mut() {
                    Some(slice) => map.map_row(&row, slice, &mut scratch),
                    None => {
                        map.map_row(&row, &mut buffer, &mut scratch);
                        out_row.iter_mut().zip(&buffer).for_each(|(o, &b)| *o = b);
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn forms_are_found_by_name_and_nothing_else_is() {
        assert_eq!(FourierForm::from_name("paired"), Some(FourierForm::Paired));
        assert_eq!(FourierForm::from_name("phase"), Some(FourierForm::Phase));
        assert_eq!(FourierForm::from_name("Phase"), None);
        assert_eq!(FourierForm::from_name(""), None);
    }

    /// The fast sine/cosine against the standard library on 10^6 arguments spread over every
    /// scale up to the fast path's limit, plus quadrant boundaries and zeros.
    #[test]
    fn fast_sin_cos_matches_std() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut worst = 0.0f64;
        let mut check = |x: f64| {
            let (s, c) = sin_cos_fast(x);
            worst = worst.max((s - x.sin()).abs()).max((c - x.cos()).abs());
        };
        for _ in 0..1_000_000 {
            let magnitude = 10f64.powf(rng.random::<f64>() * 12.0 - 6.0); // 1e-6 .. 1e6
            check(if rng.random::<bool>() {
                magnitude
            } else {
                -magnitude
            });
        }
        for k in -1000..1000 {
            let x = k as f64 * std::f64::consts::FRAC_PI_4;
            for t in [x, x.next_up(), x.next_down()] {
                check(t);
            }
        }
        for x in [0.0, -0.0, FAST_TRIG_LIMIT, -FAST_TRIG_LIMIT, 1e-300] {
            check(x);
        }
        assert!(worst <= 3e-16, "worst absolute difference {worst:e}");
    }

    /// The in-place loops (fast path, and the slow path for huge or infinite arguments) against
    /// the scalar references.
    #[test]
    fn cosine_loops_match_scalar_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for m in [0, 1, 3, 8, 37, 64, 65, 256, 1000] {
            for huge in [false, true] {
                let mut proj: Vec<f64> =
                    (0..m).map(|_| (rng.random::<f64>() - 0.5) * 40.0).collect();
                if huge && m > 0 {
                    proj[m / 2] = 3e9;
                    proj[m - 1] = f64::INFINITY;
                }
                let offsets: Vec<f64> = (0..m).map(|_| rng.random::<f64>() * 6.0).collect();
                let scale = 0.3;
                let (mut cos, mut sin) = (proj.clone(), vec![f64::NAN; m]);
                cos_sin_in_place(&mut cos, &mut sin, scale);
                let (mut cos_ref, mut sin_ref) = (proj.clone(), vec![f64::NAN; m]);
                cos_sin_reference(&mut cos_ref, &mut sin_ref, scale);
                let mut phase = proj.clone();
                cos_phase_in_place(&mut phase, &offsets, scale);
                let mut phase_ref = proj.clone();
                cos_phase_reference(&mut phase_ref, &offsets, scale);
                let close = |a: &[f64], b: &[f64]| {
                    a.iter()
                        .zip(b)
                        .all(|(x, y)| (x - y).abs() <= 3e-16 * scale || (x.is_nan() && y.is_nan()))
                };
                assert!(
                    close(&cos, &cos_ref) && close(&sin, &sin_ref) && close(&phase, &phase_ref),
                    "m = {m}"
                );
                if huge && m > 1 {
                    // Chunks holding a huge argument take the standard library's path: same bits.
                    let j = m / 2;
                    assert_eq!(cos[j], cos_ref[j]);
                    assert!(cos[m - 1].is_nan() && sin[m - 1].is_nan());
                }
            }
        }
    }

    /// Every vector build of the loops the processor can run gives the baseline build's bits,
    /// on both paths (one chunk of 64 with a huge argument, one with a NaN).
    #[test]
    fn every_vector_build_gives_the_baseline_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for m in [1, 7, 64, 100, 1000, 4000] {
            let mut proj: Vec<f64> = (0..m)
                .map(|_| (rng.random::<f64>() - 0.5) * 200.0)
                .collect();
            if m > 200 {
                proj[70] = 3e9;
                proj[150] = f64::NAN;
            }
            let offsets: Vec<f64> = (0..m).map(|_| rng.random::<f64>() * 6.0).collect();
            let run = |isa: Isa| {
                let (mut cos, mut sin, mut phase) = (proj.clone(), vec![0.0; m], proj.clone());
                cos_sin_with(isa, &mut cos, &mut sin, 0.3);
                cos_phase_with(isa, &mut phase, &offsets, 0.3);
                [cos, sin, phase].map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
            };
            let baseline = run(Isa::Baseline);
            for isa in Isa::supported() {
                assert_eq!(run(isa), baseline, "{isa:?}, m = {m}");
            }
        }
    }

    #[test]
    fn frequencies_per_form() {
        assert_eq!(FourierForm::Paired.n_frequencies(10), Ok(5));
        assert_eq!(FourierForm::Phase.n_frequencies(11), Ok(11));
        assert_eq!(
            FourierForm::Paired.n_frequencies(11),
            Err(MapError::OddComponents(11))
        );
        assert_eq!(
            FourierForm::Phase.n_frequencies(0),
            Err(MapError::ZeroComponents(0))
        );
    }

    /// The sampled frequencies have the spectral density's moments: `E[cos(w t)]` over many draws
    /// is the kernel at `t` (one coordinate). 20,000 draws: standard error <= 1/sqrt(20,000) =
    /// 0.007; tolerance 0.03 (4 standard errors).
    #[test]
    fn spectral_samples_reproduce_the_kernel() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let d = 3;
        let t = [0.4, -0.7, 1.1];
        for kernel in [
            ShiftInvariantKernel::gaussian(1.3).unwrap(),
            ShiftInvariantKernel::laplacian(2.0).unwrap(),
            ShiftInvariantKernel::matern(0.5, 1.5).unwrap(),
            ShiftInvariantKernel::matern(1.5, 1.5).unwrap(),
            ShiftInvariantKernel::matern(2.5, 0.8).unwrap(),
        ] {
            let n = 20_000;
            let mut w = vec![0.0; d];
            let mut mean = 0.0;
            for _ in 0..n {
                sample_frequency(&kernel, &mut rng, &mut w);
                mean += w.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>().cos();
            }
            mean /= n as f64;
            let x = ndarray::Array1::from(t.to_vec());
            let zero = ndarray::Array1::zeros(d);
            let exact = kernel.eval(&Row::Dense(x.view()), &Row::Dense(zero.view()));
            assert!((mean - exact).abs() < 0.03, "{kernel:?}: {mean} vs {exact}");
        }
    }
}
