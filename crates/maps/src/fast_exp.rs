//! `exp` over a slice in place, branch-free so that it vectorises (AVX2 / AVX-512F builds chosen
//! at run time), for the Gaussian kernel blocks of [`crate::Nystroem`].
//!
//! **Why.** The standard library's `exp` is a call per value; a `10,000 x 1000` kernel block is
//! ten million of them between two matrix products, a pass during which BLAS's own threads
//! spin. Vectorised, the pass takes a fraction of the time.
//!
//! **Method.** `exp(x) = 2^k exp(r)` with `k = round(x / ln 2)` (the `1.5 * 2^52` rounding
//! trick), `r = x - k ln 2` by a two-part Cody-Waite reduction (fdlibm's `ln2_hi` has trailing
//! zero bits so that `k * ln2_hi` is exact), `|r| <= ln 2 / 2`, and `exp(r)` by its Taylor
//! polynomial to degree 13 (truncation below `5e-18`). `2^k` is built from its bits. Valid for
//! `-708 <= x <= 709` (normal results); chunks with any other value (or NaN) go through the
//! standard library.

use crate::simd::{vector_builds, Isa};

/// Values per range check.
const CHUNK: usize = 64;
const LOWER: f64 = -708.0;
const UPPER: f64 = 709.0;

#[inline(always)]
#[allow(clippy::excessive_precision)] // fdlibm's constants as published
fn exp_fast(x: f64) -> f64 {
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
    let shifted = x * std::f64::consts::LOG2_E + SHIFT;
    let k = shifted.to_bits().wrapping_sub(SHIFT.to_bits()) as i64;
    let kf = shifted - SHIFT;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    // Taylor coefficients 1/j!, j = 13 down to 2.
    let mut p = 1.0 / 6_227_020_800.0;
    for c in [
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ] {
        p = p * r + c;
    }
    let exp_r = 1.0 + r * (1.0 + r * p);
    exp_r * f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x[j] <- exp(x[j])` for every `j`, in the processor's widest build ([`crate::simd`]).
pub(crate) fn exp_in_place(x: &mut [f64]) {
    exp_with(Isa::widest(), x)
}

vector_builds!(
    /// [`exp_in_place`] built for `isa`.
    fn exp_with(x: &mut [f64]) => exp_portable
);

#[inline(always)]
fn exp_portable(x: &mut [f64]) {
    for chunk in x.chunks_mut(CHUNK) {
        // Written so that NaN goes to the slow path.
        let in_range = chunk
            .iter()
            .fold(true, |ok, &v| ok & (LOWER..=UPPER).contains(&v));
        if in_range {
            chunk.iter_mut().for_each(|v| *v = exp_fast(*v));
        } else {
            chunk.iter_mut().for_each(|v| *v = v.exp());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Against the standard library over 10^6 arguments on the whole fast range and the
    /// reduction's boundaries: within 3e-16 relative (under 1.5 ulp; the standard library's own
    /// result is within one half). Out-of-range values (underflow, overflow, infinities, NaN)
    /// give exactly the standard library's result.
    #[test]
    fn matches_std_exp() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut xs: Vec<f64> = (0..1_000_000)
            .map(|_| LOWER + rng.random::<f64>() * (UPPER - LOWER))
            .collect();
        xs.extend((0..200_000).map(|_| (rng.random::<f64>() - 0.5) * 4.0));
        for k in -1021..=1022 {
            let x = k as f64 * std::f64::consts::LN_2 * 0.5;
            xs.extend([x, x.next_up(), x.next_down()]);
        }
        xs.extend([0.0, -0.0, LOWER, UPPER, 1e-300]);
        let mut got = xs.clone();
        exp_in_place(&mut got);
        let worst = xs
            .iter()
            .zip(&got)
            .map(|(x, g)| ((g - x.exp()) / x.exp()).abs())
            .fold(0.0f64, f64::max);
        assert!(worst <= 3e-16, "worst relative error {worst:e}");

        let odd = [
            -745.0,
            -800.0,
            710.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -708.5,
        ];
        let mut got = odd.to_vec();
        exp_in_place(&mut got);
        for (x, g) in odd.iter().zip(&got) {
            assert_eq!(g.to_bits(), x.exp().to_bits(), "{x}");
        }
        let mut nan = [f64::NAN, 1.0];
        exp_in_place(&mut nan);
        assert!(nan[0].is_nan() && nan[1] == 1f64.exp());
    }

    /// The vector builds give the portable build's bits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_builds_equal_portable() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let xs: Vec<f64> = (0..5000)
            .map(|i| {
                if i == 700 {
                    -900.0
                } else {
                    (rng.random::<f64>() - 0.9) * 60.0
                }
            })
            .collect();
        let mut reference = xs.clone();
        exp_portable(&mut reference);
        for isa in Isa::supported() {
            let mut v = xs.clone();
            exp_with(isa, &mut v);
            assert_eq!(v, reference, "{isa:?}");
        }
    }
}
