//! Single precision for the dense Fourier maps ([`crate::RandomFourierFeatures`],
//! [`crate::OrthogonalRandomFeatures`]): `f32` records in, `f32` features out.
//!
//! **Why.** The transform is one matrix product `X W` (`2 n d m` flops) plus `n m` cosines. In
//! `f32` the product runs on single-precision kernels, twice the SIMD lanes of dgemm, and the
//! cosines on twice the lanes too; the output takes half the memory. The frequencies are drawn and
//! stored in `f64` (one fitted map serves both precisions) and rounded to `f32` once per call
//! (`d m` values, a few milliseconds at `d = 780, m = 4000`, against the product's hundreds).
//!
//! **Error.** Rounding the inputs and frequencies to `f32` perturbs a projection `w'x` by about
//! `2^-24 sum_i |w_i x_i|` (relative `6e-8` per term; the product's accumulation adds the same
//! order times `sqrt(d)`), and the cosine polynomial below is accurate to a few `f32` ulps. A
//! feature moves by about `1e-6 sqrt(2/D)` for the kernels' typical projections (`|w'x|` of order
//! 10): five orders of magnitude below the Monte Carlo error `1/sqrt(D)` of the estimate itself,
//! which is why the tests hold the `f32` features to the same Gram tolerances as the `f64` ones and
//! bound their distance to the `f64` features directly.

use ndarray::{Array2, ArrayView2, ArrayViewMut2};

use crate::block_product::tiled_product_then;
use crate::error::{MapError, Result};
use crate::fourier::{DenseFourier, FourierForm};
use crate::simd::{vector_builds, Isa};

/// [`sin_cos_fast_f32`] reduces with `q * PIO2_1` and `q * PIO2_2` exact while `|q| < 2^13`
/// (their constants have 8 and 11 significant bits): `|x| <= 2^13 pi/2 ≈ 12,868`. A round bound
/// below (Cephes' `sinf` uses the same limit); random Fourier projections are far smaller.
pub(crate) const FAST_TRIG_LIMIT_F32: f32 = 8192.0;

/// Arguments per range check (as the `f64` loops).
const TRIG_CHUNK: usize = 64;

/// `(sin x, cos x)` in `f32` for `|x| <= FAST_TRIG_LIMIT_F32`, branch-free so that it vectorises:
/// the `f64` routine's structure (quadrant by the `1.5 * 2^23` rounding trick, three-part
/// Cody-Waite reduction by `pi/2`, sign and swap by bit masks) with Cephes' `sinf`/`cosf`
/// minimax polynomials on `|r| <= pi/4`.
#[inline(always)]
#[allow(clippy::excessive_precision)] // the constants as published
pub(crate) fn sin_cos_fast_f32(x: f32) -> (f32, f32) {
    const SHIFT: f32 = 12_582_912.0; // 1.5 * 2^23
                                     // pi/2 = PIO2_1 + PIO2_2 + PIO2_3; PIO2_1 and PIO2_2 have few significant bits so that
                                     // q * PIO2_1 and q * PIO2_2 are exact.
    const PIO2_1: f32 = 1.570_312_5;
    const PIO2_2: f32 = 4.837_512_969_970_703_125e-4;
    const PIO2_3: f32 = 7.549_789_954_891_882_16e-8;
    const S1: f32 = -1.666_665_461_1e-1;
    const S2: f32 = 8.332_160_873_6e-3;
    const S3: f32 = -1.951_529_589_1e-4;
    const C1: f32 = 4.166_664_568_298_827e-2;
    const C2: f32 = -1.388_731_625_493_765e-3;
    const C3: f32 = 2.443_315_711_809_948e-5;

    let shifted = x * std::f32::consts::FRAC_2_PI + SHIFT;
    let quadrant = shifted.to_bits();
    let q = shifted - SHIFT;
    let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;

    let z = r * r;
    let sin_r = r + r * z * (S1 + z * (S2 + z * S3));
    let cos_r = 1.0 - 0.5 * z + z * z * (C1 + z * (C2 + z * C3));

    let swap = 0u32.wrapping_sub(quadrant & 1);
    let (s_bits, c_bits) = (sin_r.to_bits(), cos_r.to_bits());
    let sin_bits = (s_bits & !swap) | (c_bits & swap);
    let cos_bits = (c_bits & !swap) | (s_bits & swap);
    let sin_sign = (quadrant & 2) << 30;
    let cos_sign = (quadrant.wrapping_add(1) & 2) << 30;
    (
        f32::from_bits(sin_bits ^ sin_sign),
        f32::from_bits(cos_bits ^ cos_sign),
    )
}

#[inline(always)]
fn within_fast_range(x: &[f32]) -> bool {
    // Written so that NaN goes to the slow path.
    x.iter().fold(0.0f32, |m, v| m.max(v.abs())) <= FAST_TRIG_LIMIT_F32
        && x.iter().all(|v| !v.is_nan())
}

/// Paired form in place: `cos[j] <- scale cos(cos[j])`, `sin[j] <- scale sin(cos[j])`; chunks
/// with a huge argument go through the standard library in `f64`. Runs the processor's widest
/// build of the loop ([`crate::simd`]: same operations, same bits).
pub(crate) fn cos_sin_in_place_f32(cos: &mut [f32], sin: &mut [f32], scale: f32) {
    cos_sin_with(Isa::widest(), cos, sin, scale)
}

/// Phase form in place: `x[j] <- scale cos(x[j] + b[j])`, builds as [`cos_sin_in_place_f32`].
pub(crate) fn cos_phase_in_place_f32(x: &mut [f32], offsets: &[f32], scale: f32) {
    cos_phase_with(Isa::widest(), x, offsets, scale)
}

vector_builds!(
    /// [`cos_sin_in_place_f32`] built for `isa` (AVX-512: 16 lanes instead of 8; the cosine pass
    /// over a `10,000 x 4000` output is otherwise a tenth of the `f32` transform).
    fn cos_sin_with(cos: &mut [f32], sin: &mut [f32], scale: f32) => cos_sin_portable
);

vector_builds!(
    /// [`cos_phase_in_place_f32`] built for `isa`.
    fn cos_phase_with(x: &mut [f32], offsets: &[f32], scale: f32) => cos_phase_portable
);

/// The loop of [`cos_sin_in_place_f32`], inlined into each instruction-set build.
#[inline(always)]
fn cos_sin_portable(cos: &mut [f32], sin: &mut [f32], scale: f32) {
    for (c, s) in cos.chunks_mut(TRIG_CHUNK).zip(sin.chunks_mut(TRIG_CHUNK)) {
        if within_fast_range(c) {
            for (c, s) in c.iter_mut().zip(s.iter_mut()) {
                let (sv, cv) = sin_cos_fast_f32(*c);
                *s = scale * sv;
                *c = scale * cv;
            }
        } else {
            crate::projections::note_chunk(c);
            for (c, s) in c.iter_mut().zip(s.iter_mut()) {
                let v = f64::from(*c);
                *s = scale * v.sin() as f32;
                *c = scale * v.cos() as f32;
            }
        }
    }
}

/// The loop of [`cos_phase_in_place_f32`], inlined into each instruction-set build.
#[inline(always)]
fn cos_phase_portable(x: &mut [f32], offsets: &[f32], scale: f32) {
    for (x, b) in x.chunks_mut(TRIG_CHUNK).zip(offsets.chunks(TRIG_CHUNK)) {
        x.iter_mut().zip(b).for_each(|(v, &b)| *v += b);
        if within_fast_range(x) {
            x.iter_mut()
                .for_each(|v| *v = scale * sin_cos_fast_f32(*v).1);
        } else {
            crate::projections::note_chunk(x);
            x.iter_mut()
                .for_each(|v| *v = scale * f64::from(*v).cos() as f32);
        }
    }
}

/// The input checks of [`crate::FeatureMap::transform_into`], for `f32` records.
pub(crate) fn check_batch_f32(
    input_dim: usize,
    output_dim: usize,
    x: &ArrayView2<'_, f32>,
    out: &ArrayViewMut2<'_, f32>,
) -> Result<()> {
    if x.ncols() != input_dim {
        return Err(MapError::DimensionMismatch {
            expected: input_dim,
            got: x.ncols(),
        });
    }
    let expected = (x.nrows(), output_dim);
    if out.dim() != expected {
        return Err(MapError::OutputShape {
            expected,
            got: out.dim(),
        });
    }
    for (row, r) in x.rows().into_iter().enumerate() {
        if let Some((col, &value)) = r.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(MapError::NonFinite {
                row,
                col,
                value: f64::from(value),
            });
        }
    }
    Ok(())
}

impl DenseFourier {
    /// `f32` records (checked): the tiled product `X W` in single precision (module
    /// `block_product`), each tile's cosines in place while it is in cache, as
    /// [`DenseFourier::transform_dense`].
    pub(crate) fn transform_dense_f32(&self, x: ArrayView2<'_, f32>, out: ArrayViewMut2<'_, f32>) {
        let output = self.output();
        let weights: Array2<f32> = self.weights().mapv(|w| w as f32);
        let offsets: Vec<f32> = output.offsets().iter().map(|&b| b as f32).collect();
        let scale = output.scale() as f32;
        let paired = output.form() == FourierForm::Paired;
        tiled_product_then(
            x,
            weights.view(),
            out,
            paired,
            |cols, proj, sin| match sin {
                Some(sin) => cos_sin_in_place_f32(proj, sin, scale),
                None => cos_phase_in_place_f32(proj, &offsets[cols], scale),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Against the standard library's `f64` sine and cosine of the same `f32` argument, over
    /// 10^6 arguments on every scale up to the limit, plus quadrant boundaries: within
    /// `1.5e-7` absolute (two ulps of 1 in `f32`; the result's own rounding is half of one).
    #[test]
    fn fast_sin_cos_f32_matches_f64_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut worst = 0.0f64;
        let mut check = |x: f32| {
            let (s, c) = sin_cos_fast_f32(x);
            let v = f64::from(x);
            worst = worst
                .max((f64::from(s) - v.sin()).abs())
                .max((f64::from(c) - v.cos()).abs());
        };
        for _ in 0..1_000_000 {
            let magnitude = 10f32.powf(rng.random::<f32>() * 9.0 - 5.0) * 0.8; // 8e-6 .. 8e3
            check(if rng.random::<bool>() {
                magnitude
            } else {
                -magnitude
            });
        }
        for k in -2000..2000 {
            let x = k as f32 * std::f32::consts::FRAC_PI_4;
            for t in [x, x.next_up(), x.next_down()] {
                check(t);
            }
        }
        for x in [0.0, -0.0, FAST_TRIG_LIMIT_F32, -FAST_TRIG_LIMIT_F32, 1e-30] {
            check(x);
        }
        assert!(worst <= 1.5e-7, "worst absolute difference {worst:e}");
    }

    /// Every vector build of the loops the processor can run against the portable loop, bit for
    /// bit (one chunk of 64 on the slow path when longer than 64).
    #[test]
    fn every_vector_build_equals_portable() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for m in [1, 7, 16, 64, 100, 1000, 4000] {
            let mut proj: Vec<f32> = (0..m)
                .map(|_| (rng.random::<f32>() - 0.5) * 200.0)
                .collect();
            if m > 64 {
                proj[70] = 1e6; // one chunk on the slow path
            }
            let offsets: Vec<f32> = (0..m).map(|_| rng.random::<f32>() * 6.0).collect();
            let (mut c1, mut s1) = (proj.clone(), vec![0.0; m]);
            cos_sin_portable(&mut c1, &mut s1, 0.3);
            let mut p1 = proj.clone();
            cos_phase_portable(&mut p1, &offsets, 0.3);
            for isa in Isa::supported() {
                let (mut c2, mut s2) = (proj.clone(), vec![0.0; m]);
                cos_sin_with(isa, &mut c2, &mut s2, 0.3);
                assert_eq!((&c1, &s1), (&c2, &s2), "{isa:?}, m = {m}");
                let mut p2 = proj.clone();
                cos_phase_with(isa, &mut p2, &offsets, 0.3);
                assert_eq!(p1, p2, "{isa:?}, m = {m}");
            }
        }
    }

    /// The in-place loops, fast and slow chunks (huge and infinite arguments), against `f64`.
    #[test]
    fn loops_match_f64_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for m in [1, 3, 64, 65, 300] {
            let mut proj: Vec<f32> = (0..m).map(|_| (rng.random::<f32>() - 0.5) * 80.0).collect();
            proj[m / 2] = 3e7;
            let offsets: Vec<f32> = (0..m).map(|_| rng.random::<f32>() * 6.0).collect();
            let scale = 0.25f32;
            let (mut cos, mut sin) = (proj.clone(), vec![f32::NAN; m]);
            cos_sin_in_place_f32(&mut cos, &mut sin, scale);
            let mut phase = proj.clone();
            cos_phase_in_place_f32(&mut phase, &offsets, scale);
            for j in 0..m {
                let v = f64::from(proj[j]);
                let shifted = f64::from(proj[j] + offsets[j]);
                let tol = 2e-7 * f64::from(scale);
                assert!(
                    (f64::from(cos[j]) - 0.25 * v.cos()).abs() <= tol,
                    "m {m} j {j}"
                );
                assert!(
                    (f64::from(sin[j]) - 0.25 * v.sin()).abs() <= tol,
                    "m {m} j {j}"
                );
                assert!(
                    (f64::from(phase[j]) - 0.25 * shifted.cos()).abs() <= tol,
                    "m {m} j {j}"
                );
            }
        }
    }
}
