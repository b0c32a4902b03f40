//! The cached SMO's two working-set selection loops (module `smo_select`) in AVX-512F: eight
//! variables per instruction and no branch per variable. On the polynomial kernel on Adult, SMO
//! takes millions of cheap steps, and the scalar loops (a data-dependent branch per variable)
//! were 62 % of the training time under `perf`.
//!
//! **Same picks, same bits.** Every lane does the scalar loop's arithmetic on its variables in
//! the same order of operations (IEEE per lane; Rust fuses no multiply-add), keeps its own running
//! maximum with ties to its latest index, and the lanes combine by value, ties to the larger
//! index: exactly the sequential loop's pick (tests in `smo_select`). The callers run the last
//! `len % 8` variables through the scalar loops and combine the two parts the same way.

use std::arch::x86_64::*;

use crate::svm_dual::Bound;

/// Variables per vector.
pub(crate) const LANES: usize = 8;

/// Whether this processor runs the functions below (a cached flag after the first call).
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx512f")
}

/// `smo_select::most_violating_up` on `y.len()`, a multiple of [`LANES`], variables.
///
/// # Safety
/// The processor must support AVX-512F ([`available`]); `grad` and `status` at least as long
/// as `y`.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn most_violating_up(
    y: &[f64],
    grad: &[f64],
    status: &[Bound],
) -> (f64, Option<usize>) {
    debug_assert!(
        y.len().is_multiple_of(LANES) && grad.len() >= y.len() && status.len() >= y.len()
    );
    let mut best = _mm512_set1_pd(f64::NEG_INFINITY);
    let mut pick = _mm512_set1_epi64(-1);
    let mut index = first_indices();
    for t in (0..y.len()).step_by(LANES) {
        // SAFETY: t + 8 <= len of each slice (asserted by the caller's contract).
        let (yv, g, s) = unsafe {
            (
                _mm512_loadu_pd(y.as_ptr().add(t)),
                _mm512_loadu_pd(grad.as_ptr().add(t)),
                status_lanes(status, t),
            )
        };
        // -y_t * G_t: the sign flipped exactly, then the product.
        let v = _mm512_mul_pd(negate(yv), g);
        let (up, _) = up_and_low(yv, s);
        let take = up & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(v, best);
        best = _mm512_mask_blend_pd(take, best, v);
        pick = _mm512_mask_blend_epi64(take, pick, index);
        index = _mm512_add_epi64(index, _mm512_set1_epi64(LANES as i64));
    }
    combined(best, pick)
}

/// `smo_select::second_order_partner` on `y.len()`, a multiple of [`LANES`], variables:
/// `(max_{I_low} y_t G_t, the least decrease, its index)`. Every variable's decrease is computed
/// (a vector division costs less than a branch per candidate).
///
/// # Safety
/// The processor must support AVX-512F ([`available`]); `ki`, `grad`, `status` and `qd` at least
/// as long as `y`.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn second_order_partner(
    gmax: f64,
    qd_i: f64,
    ki: &[f64],
    y: &[f64],
    grad: &[f64],
    status: &[Bound],
    qd: &[f64],
    tau: f64,
) -> (f64, f64, Option<usize>) {
    let n = y.len();
    debug_assert!(n.is_multiple_of(LANES));
    debug_assert!(ki.len() >= n && grad.len() >= n && status.len() >= n && qd.len() >= n);
    let (zero, gmax_v, qd_i_v) = (
        _mm512_setzero_pd(),
        _mm512_set1_pd(gmax),
        _mm512_set1_pd(qd_i),
    );
    let (two, tau_v) = (_mm512_set1_pd(2.0), _mm512_set1_pd(tau));
    let mut gmax2 = _mm512_set1_pd(f64::NEG_INFINITY);
    // The decrease negated, so that lanes combine as maxima.
    let mut gain = _mm512_set1_pd(f64::NEG_INFINITY);
    let mut pick = _mm512_set1_epi64(-1);
    let mut index = first_indices();
    for t in (0..n).step_by(LANES) {
        // SAFETY: t + 8 <= len of each slice (the caller's contract).
        let (yv, g, s, k, q) = unsafe {
            (
                _mm512_loadu_pd(y.as_ptr().add(t)),
                _mm512_loadu_pd(grad.as_ptr().add(t)),
                status_lanes(status, t),
                _mm512_loadu_pd(ki.as_ptr().add(t)),
                _mm512_loadu_pd(qd.as_ptr().add(t)),
            )
        };
        let (_, low) = up_and_low(yv, s);
        let v = _mm512_mul_pd(yv, g);
        gmax2 = _mm512_mask_blend_pd(low & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(v, gmax2), gmax2, v);
        let grad_diff = _mm512_add_pd(gmax_v, v);
        // qd_i + qd_t - 2 K_it, in that order; TAU where it is not positive.
        let quad = _mm512_sub_pd(_mm512_add_pd(qd_i_v, q), _mm512_mul_pd(two, k));
        let quad = _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_GT_OQ>(quad, zero), tau_v, quad);
        // -(grad_diff) * grad_diff / quad, negated exactly.
        let decrease = _mm512_div_pd(_mm512_mul_pd(negate(grad_diff), grad_diff), quad);
        let candidate_gain = negate(decrease);
        let take = low
            & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(grad_diff, zero)
            & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(candidate_gain, gain);
        gain = _mm512_mask_blend_pd(take, gain, candidate_gain);
        pick = _mm512_mask_blend_epi64(take, pick, index);
        index = _mm512_add_epi64(index, _mm512_set1_epi64(LANES as i64));
    }
    let mut lanes = [0.0; LANES];
    // SAFETY: `lanes` holds one vector; the store is unaligned.
    unsafe { _mm512_storeu_pd(lanes.as_mut_ptr(), gmax2) };
    let gmax2 = lanes
        .iter()
        .fold(f64::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    let (gain, pick) = combined(gain, pick);
    (gmax2, -gain, pick)
}

/// `0, 1, ..., 7`: each lane's first variable.
#[target_feature(enable = "avx512f")]
#[inline]
fn first_indices() -> __m512i {
    _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)
}

/// The eight status bytes from `t` widened to one per 64-bit lane.
///
/// # Safety
/// AVX-512F; `status[t..t + 8]` in bounds.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn status_lanes(status: &[Bound], t: usize) -> __m512i {
    // SAFETY: `Bound` is one byte (`repr(u8)`) and t + 8 <= status.len() (the caller's contract).
    unsafe {
        let bytes = (status.as_ptr().add(t) as *const u64).read_unaligned();
        _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(bytes as i64))
    }
}

/// The masks of `I_up` and `I_low`: `y = +1` below `C` (above 0), `y = -1` above 0 (below `C`).
#[target_feature(enable = "avx512f")]
#[inline]
fn up_and_low(y: __m512d, status: __m512i) -> (__mmask8, __mmask8) {
    let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(y, _mm512_setzero_pd());
    let not_upper = _mm512_cmpneq_epi64_mask(status, _mm512_set1_epi64(Bound::Upper as i64));
    let not_lower = _mm512_cmpneq_epi64_mask(status, _mm512_set1_epi64(Bound::Lower as i64));
    let up = (positive & not_upper) | (!positive & not_lower);
    let low = (positive & not_lower) | (!positive & not_upper);
    (up, low)
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

/// The lanes' running maxima combined: the largest value, ties to the larger index; `None`
/// when no lane picked (index -1).
#[target_feature(enable = "avx512f")]
#[inline]
fn combined(value: __m512d, pick: __m512i) -> (f64, Option<usize>) {
    let (mut values, mut picks) = ([0.0; LANES], [0i64; LANES]);
    // SAFETY: each array holds exactly one vector; the stores are unaligned.
    unsafe {
        _mm512_storeu_pd(values.as_mut_ptr(), value);
        _mm512_storeu_si512(picks.as_mut_ptr().cast(), pick);
    }
    let mut best: (f64, Option<usize>) = (f64::NEG_INFINITY, None);
    for (&v, &p) in values.iter().zip(&picks) {
        if p >= 0 && (best.1.is_none() || v > best.0 || (v == best.0 && Some(p as usize) > best.1))
        {
            best = (v, Some(p as usize));
        }
    }
    best
}
