//! The cached SMO's two working-set selection loops (module `smo_select`) in AVX-512F: eight
//! variables per instruction and no branch per variable. On the polynomial kernel on Adult, SMO
//! takes millions of cheap steps, and the scalar loops (a data-dependent branch per variable)
//! were 62 % of the training time under `perf`.
//!
//! Each reads the signed gradients `y_t G_t` and the set bytes of `smo_select::sets`: two
//! streams (four with the kernel row and `K_tt`), the membership masks from one byte each. Two
//! running maxima per lane, over alternate vectors, so that the compare-and-blend chain of one
//! does not wait for the other's.
//!
//! **Same picks, same bits.** Every lane does the scalar loop's arithmetic on its variables in
//! the same order of operations (IEEE per lane; Rust fuses no multiply-add), each running maximum
//! keeps ties to its latest index, and all combine by value, ties to the larger index: exactly
//! the sequential loop's pick (tests in `smo_select`). The callers run the last `len % 8`
//! variables through the scalar loops and combine the two parts the same way.

use std::arch::x86_64::*;

/// Variables per vector.
pub(crate) const LANES: usize = 8;

/// Whether this processor runs the functions below (a cached flag after the first call).
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx512f")
}

/// `smo_select::most_violating_up` on `yg.len()`, a multiple of [`LANES`], variables; `up` is
/// the set byte's bit for `I_up`.
///
/// # Safety
/// The processor must support AVX-512F ([`available`]); `sets` at least as long as `yg`.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn most_violating_up(yg: &[f64], sets: &[u8], up: u8) -> (f64, Option<usize>) {
    let n = yg.len();
    debug_assert!(n.is_multiple_of(LANES) && sets.len() >= n);
    let up = _mm512_set1_epi64(i64::from(up));
    let step = |best: &mut LaneMax, t: usize| {
        // SAFETY: t + 8 <= len of each slice (the caller's contract).
        let (g, s) = unsafe { (_mm512_loadu_pd(yg.as_ptr().add(t)), set_lanes(sets, t)) };
        // -y_t G_t, the sign flipped exactly.
        best.offer(_mm512_test_epi64_mask(s, up), negate(g), t);
    };
    let (mut even, mut odd) = (LaneMax::new(), LaneMax::new());
    alternate(n, &mut even, &mut odd, step);
    combined(&[even, odd])
}

/// `smo_select::second_order_partner` on `yg.len()`, a multiple of [`LANES`], variables:
/// `(max_{I_low} y_t G_t, the least decrease, its index)`; `low` is the set byte's bit for
/// `I_low`. Every variable's decrease is computed (a vector division costs less than a branch
/// per candidate).
///
/// # Safety
/// The processor must support AVX-512F ([`available`]); `ki`, `sets` and `qd` at least as long
/// as `yg`.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn second_order_partner(
    gmax: f64,
    qd_i: f64,
    ki: &[f64],
    yg: &[f64],
    sets: &[u8],
    qd: &[f64],
    tau: f64,
    low: u8,
) -> (f64, f64, Option<usize>) {
    let n = yg.len();
    debug_assert!(n.is_multiple_of(LANES));
    debug_assert!(ki.len() >= n && sets.len() >= n && qd.len() >= n);
    let low_bit = _mm512_set1_epi64(i64::from(low));
    let (zero, gmax_v, qd_i_v) = (
        _mm512_setzero_pd(),
        _mm512_set1_pd(gmax),
        _mm512_set1_pd(qd_i),
    );
    let (two, tau_v) = (_mm512_set1_pd(2.0), _mm512_set1_pd(tau));
    // `max y_t G_t` over I_low, and the decrease negated (so that lanes combine as maxima).
    let step = |(gmax2, gain): &mut (__m512d, LaneMax), t: usize| {
        // SAFETY: t + 8 <= len of each slice (the caller's contract).
        let (v, s, k, q) = unsafe {
            (
                _mm512_loadu_pd(yg.as_ptr().add(t)),
                set_lanes(sets, t),
                _mm512_loadu_pd(ki.as_ptr().add(t)),
                _mm512_loadu_pd(qd.as_ptr().add(t)),
            )
        };
        let low = _mm512_test_epi64_mask(s, low_bit);
        *gmax2 = _mm512_mask_blend_pd(low & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(v, *gmax2), *gmax2, v);
        let grad_diff = _mm512_add_pd(gmax_v, v);
        // qd_i + qd_t - 2 K_it, in that order; TAU where it is not positive.
        let quad = _mm512_sub_pd(_mm512_add_pd(qd_i_v, q), _mm512_mul_pd(two, k));
        let quad = _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_GT_OQ>(quad, zero), tau_v, quad);
        // -(grad_diff) * grad_diff / quad, negated exactly.
        let decrease = _mm512_div_pd(_mm512_mul_pd(negate(grad_diff), grad_diff), quad);
        let candidates = low & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(grad_diff, zero);
        gain.offer(candidates, negate(decrease), t);
    };
    let start = || (_mm512_set1_pd(f64::NEG_INFINITY), LaneMax::new());
    let (mut even, mut odd) = (start(), start());
    alternate(n, &mut even, &mut odd, step);
    let mut lanes = [0.0; 2 * LANES];
    // SAFETY: `lanes` holds two vectors; the stores are unaligned.
    unsafe {
        _mm512_storeu_pd(lanes.as_mut_ptr(), even.0);
        _mm512_storeu_pd(lanes.as_mut_ptr().add(LANES), odd.0);
    }
    let gmax2 = lanes
        .iter()
        .fold(f64::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    let (gain, pick) = combined(&[even.1, odd.1]);
    (gmax2, -gain, pick)
}

/// `step` on the vectors at `0, 8, ..., n - 8`, alternately into `even` and `odd`.
#[inline(always)]
fn alternate<S>(n: usize, even: &mut S, odd: &mut S, mut step: impl FnMut(&mut S, usize)) {
    let mut t = 0;
    while t + 2 * LANES <= n {
        step(even, t);
        step(odd, t + LANES);
        t += 2 * LANES;
    }
    if t < n {
        step(even, t);
    }
}

/// A running maximum in each lane and the variable it came from, ties to the latest offer.
#[derive(Clone, Copy)]
struct LaneMax {
    value: __m512d,
    /// Variable index, -1 while the lane has taken nothing.
    pick: __m512i,
}

impl LaneMax {
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn new() -> Self {
        Self {
            value: _mm512_set1_pd(f64::NEG_INFINITY),
            pick: _mm512_set1_epi64(-1),
        }
    }

    /// Takes `v` in the lanes of `eligible` where it is at least the running maximum; the lanes
    /// hold variables `t, t + 1, ..., t + 7`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn offer(&mut self, eligible: __mmask8, v: __m512d, t: usize) {
        let take = eligible & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(v, self.value);
        let index = _mm512_add_epi64(
            _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi64(t as i64),
        );
        self.value = _mm512_mask_blend_pd(take, self.value, v);
        self.pick = _mm512_mask_blend_epi64(take, self.pick, index);
    }
}

/// The eight set bytes from `t` widened to one per 64-bit lane.
///
/// # Safety
/// AVX-512F; `sets[t..t + 8]` in bounds.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn set_lanes(sets: &[u8], t: usize) -> __m512i {
    // SAFETY: t + 8 <= sets.len() (the caller's contract).
    unsafe {
        let bytes = (sets.as_ptr().add(t) as *const u64).read_unaligned();
        _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(bytes as i64))
    }
}

/// `-x`, by flipping the sign bit (exact, as scalar negation).
#[target_feature(enable = "avx512f")]
#[inline]
fn negate(x: __m512d) -> __m512d {
    _mm512_castsi512_pd(_mm512_xor_si512(
        _mm512_castpd_si512(x),
        _mm512_set1_epi64(i64::MIN),
    ))
}

/// Running maxima combined: the largest value, ties to the larger index; `None` when no lane
/// took anything (index -1).
#[target_feature(enable = "avx512f")]
#[inline]
fn combined(parts: &[LaneMax]) -> (f64, Option<usize>) {
    let mut best: (f64, Option<usize>) = (f64::NEG_INFINITY, None);
    for part in parts {
        let (mut values, mut picks) = ([0.0; LANES], [0i64; LANES]);
        // SAFETY: each array holds exactly one vector; the stores are unaligned.
        unsafe {
            _mm512_storeu_pd(values.as_mut_ptr(), part.value);
            _mm512_storeu_si512(picks.as_mut_ptr().cast(), part.pick);
        }
        for (&v, &p) in values.iter().zip(&picks) {
            let later = best.1.is_none_or(|b| p as usize > b);
            if p >= 0 && (best.1.is_none() || v > best.0 || (v == best.0 && later)) {
                best = (v, Some(p as usize));
            }
        }
    }
    best
}
