//! The cached SMO's gradient arithmetic (module `smo_cached`) on the signed gradient
//! `g_t = y_t G_t` that the solver keeps instead of LIBSVM's `G`.
//!
//! **Why signed, and why it changes no bit.** The selection loops compare `y_t G_t`, so keeping
//! it spares them a label and a product per variable, and the update a product: with `y = ±1`,
//! `y_t (G_t + y_t u) = y_t G_t + u` exactly, because rounding to nearest is symmetric under a
//! change of sign. Each function says which LIBSVM update it equals.

use rayon::prelude::*;

use crate::smo_select::{CHUNK, PARALLEL_MIN};
use crate::svm_dual::Bound;

/// `sum_{free s} a_s y_s k_s`.
pub(crate) fn free_dot(k: &[f64], alpha: &[f64], y: &[f64], status: &[Bound]) -> f64 {
    let mut sum = 0.0;
    for (((&ks, &a), &ys), &st) in k.iter().zip(alpha).zip(y).zip(status) {
        if st == Bound::Free {
            sum += a * ys * ks;
        }
    }
    sum
}

/// `out_t += step * y_t * k_t` (`Q_ts = y_t y_s K_ts`, `step = y_s` times the change): LIBSVM's
/// update of the unsigned `G_bar`.
pub(crate) fn add_scaled_row(out: &mut [f64], y: &[f64], k: &[f64], step: f64) {
    for ((o, &yt), &kt) in out.iter_mut().zip(y).zip(k) {
        *o += step * yt * kt;
    }
}

/// `g_t += step * k_t` on signed gradients: [`add_scaled_row`] on `G`, signed (`y_t` times
/// `(step y_t) k_t` is `step k_t` exactly).
pub(crate) fn add_scaled_signed(out: &mut [f64], k: &[f64], step: f64) {
    for (o, &kt) in out.iter_mut().zip(k) {
        *o += step * kt;
    }
}

/// `g_t += s_i K_it + s_j K_jt`: LIBSVM's `G_t += y_t (s_i K_it + s_j K_jt)` after a step on
/// `(i, j)` (`s = y da`), signed. Compiled for AVX-512F too, used where the processor has it: the
/// same operations per element (Rust fuses no multiply-add), eight at a time.
pub(crate) fn update_gradient(g: &mut [f64], ki: &[f64], kj: &[f64], si: f64, sj: f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the processor supports AVX-512F (checked just above).
        return unsafe { update_gradient_avx512(g, ki, kj, si, sj) };
    }
    update_gradient_portable(g, ki, kj, si, sj)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn update_gradient_avx512(g: &mut [f64], ki: &[f64], kj: &[f64], si: f64, sj: f64) {
    update_gradient_portable(g, ki, kj, si, sj)
}

#[inline(always)]
fn update_gradient_portable(g: &mut [f64], ki: &[f64], kj: &[f64], si: f64, sj: f64) {
    for ((g, &a), &b) in g.iter_mut().zip(ki).zip(kj) {
        *g += si * a + sj * b;
    }
}

/// [`update_gradient`] over fixed chunks in parallel: element-wise, so the same values.
pub(crate) fn par_update_gradient(g: &mut [f64], ki: &[f64], kj: &[f64], si: f64, sj: f64) {
    if g.len() < PARALLEL_MIN {
        return update_gradient(g, ki, kj, si, sj);
    }
    g.par_chunks_mut(CHUNK)
        .zip(ki.par_chunks(CHUNK).zip(kj.par_chunks(CHUNK)))
        .for_each(|(g, (a, b))| update_gradient(g, a, b, si, sj));
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The signed updates against LIBSVM's on `G`, signed afterwards, bit for bit: random
    /// values over several magnitudes (so that sums round), both labels, and lengths around the
    /// parallel threshold.
    #[test]
    fn signed_updates_equal_libsvms_updates_signed() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for n in [1, 9, PARALLEL_MIN - 1, PARALLEL_MIN + CHUNK + 17] {
            let mut value = || rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-3..4));
            let y: Vec<f64> = (0..n)
                .map(|t| if t % 3 == 0 { 1.0 } else { -1.0 })
                .collect();
            let grad: Vec<f64> = (0..n).map(|_| value()).collect();
            let (ki, kj): (Vec<f64>, Vec<f64>) = (0..n).map(|_| (value(), value())).unzip();
            let (si, sj) = (value(), value());
            let signed = |g: &[f64]| -> Vec<f64> { y.iter().zip(g).map(|(y, g)| y * g).collect() };

            let mut libsvm = grad.clone();
            for t in 0..n {
                libsvm[t] += y[t] * (si * ki[t] + sj * kj[t]);
            }
            let mut ours = signed(&grad);
            par_update_gradient(&mut ours, &ki, &kj, si, sj);
            assert_eq!(ours, signed(&libsvm), "update, n {n}");

            let mut libsvm = grad.clone();
            add_scaled_row(&mut libsvm, &y, &ki, si);
            let mut ours = signed(&grad);
            add_scaled_signed(&mut ours, &ki, si);
            assert_eq!(ours, signed(&libsvm), "scaled row, n {n}");
        }
    }

    /// The slice kernels against the obvious formulas.
    #[test]
    fn gradient_updates_match_the_q_matrix_formulas() {
        let y = [1.0, -1.0, 1.0];
        let (ki, kj) = ([0.5, 0.25, -2.0], [1.0, 3.0, 0.125]);
        let mut g = [0.0, 1.0, -1.0];
        update_gradient(&mut g, &ki, &kj, 0.5, -2.0);
        assert_eq!(g, [0.0 + 0.25 - 2.0, 1.0 + 0.125 - 6.0, -1.0 - 1.0 - 0.25]);
        let mut out = [1.0; 3];
        add_scaled_row(&mut out, &y, &ki, 2.0);
        assert_eq!(out, [2.0, 0.5, -3.0]);
        let alpha = [0.5, 2.0, 1.0];
        let status = [Bound::Free, Bound::Upper, Bound::Free];
        assert_eq!(free_dot(&ki, &alpha, &y, &status), 0.5 * 0.5 - 2.0);
    }
}
