//! The cached SMO's working-set selection (LIBSVM's WSS 2, Fan, Chen & Lin 2005): the first
//! index, the most violating variable of `I_up`; the second, the partner of largest second-order
//! decrease in `I_low`; and the maximal violations that stop the solver and drive shrinking.
//!
//! Each loop has three forms that pick the same variable bit for bit: the scalar loop (LIBSVM's),
//! eight lanes in AVX-512F (module `avx512`, where the processor has it) and fixed chunks in
//! parallel for long active sets; all combine partial results by value, ties to the larger index.
//!
//! The loops read what they compare and nothing else: the signed gradient `y_t G_t` (which the
//! solver keeps instead of `G`: with `y = ±1` it is exactly LIBSVM's product) and one byte of
//! working-set membership per variable ([`sets`]), not the label, gradient and status of each.
//! On the polynomial kernel on Adult, SMO takes millions of cheap steps over ~32,000 variables,
//! and these loops are most of its time.

use rayon::prelude::*;

use crate::svm_dual::Bound;

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
use avx512 as vector;

/// LIBSVM's `TAU`: the curvature used when `K_ii + K_jj - 2 K_ij <= 0`.
pub(crate) const TAU: f64 = 1e-12;

/// Variables per chunk of the parallel selection and gradient update. Chunks are fixed by
/// position, never by the thread count, and combine exactly (max, argmax with ties to the last
/// index), so the result is the sequential loop's whatever the thread count.
pub(crate) const CHUNK: usize = 8192;

/// The shortest active set on which the selection and gradient update run in parallel. Each is
/// ~10 us per 32k variables, so a hand-off per step must be cheap: on full a9a (32,561 rows),
/// on a two-core machine shared by other jobs (load ~3), training with parallel steps from
/// 16,384 variables took 354 s with 2 threads against 330 s with 1, hence this larger threshold.
/// On a quiet machine two threads are faster than one (the row fills and prediction are
/// parallel; docs/performance.md).
pub(crate) const PARALLEL_MIN: usize = 4 * CHUNK;

/// [`sets`]' bit for `I_up`.
pub(crate) const UP: u8 = 1;
/// [`sets`]' bit for `I_low`.
pub(crate) const LOW: u8 = 2;

/// The working sets a variable with label `y` and status `s` is in: [`UP`], [`LOW`] or both (a
/// free variable). The solver keeps one per variable, updated when its status changes.
pub(crate) fn sets(y: f64, s: Bound) -> u8 {
    (u8::from(in_up(y, s)) * UP) | (u8::from(in_low(y, s)) * LOW)
}

/// In `I_up`: `y = +1` below `C`, or `y = -1` above 0.
fn in_up(y: f64, s: Bound) -> bool {
    if y > 0.0 {
        s != Bound::Upper
    } else {
        s != Bound::Lower
    }
}

/// In `I_low`: `y = +1` above 0, or `y = -1` below `C`.
fn in_low(y: f64, s: Bound) -> bool {
    if y > 0.0 {
        s != Bound::Lower
    } else {
        s != Bound::Upper
    }
}

/// `(max_{I_up} -y_t G_t, argmax)` from the signed gradient `yg` and the [`sets`]; ties go to
/// the last index, as in LIBSVM. In AVX-512F where the processor has it (all but the last
/// `len % 8` variables), else the scalar loop.
pub(crate) fn most_violating_up(yg: &[f64], sets: &[u8]) -> (f64, Option<usize>) {
    #[cfg(target_arch = "x86_64")]
    if yg.len() >= vector::LANES && vector::available() {
        let whole = yg.len() - yg.len() % vector::LANES;
        // SAFETY: AVX-512F is available (checked) and both slices hold `whole` values.
        let head = unsafe { vector::most_violating_up(&yg[..whole], &sets[..whole], UP) };
        let (v, p) = most_violating_up_scalar(&yg[whole..], &sets[whole..]);
        return later_max(head, (v, p.map(|p| p + whole)));
    }
    most_violating_up_scalar(yg, sets)
}

/// [`most_violating_up`] one variable at a time: LIBSVM's loop.
fn most_violating_up_scalar(yg: &[f64], sets: &[u8]) -> (f64, Option<usize>) {
    let mut gmax = f64::NEG_INFINITY;
    let mut pick = None;
    for t in 0..yg.len() {
        let v = -yg[t];
        if sets[t] & UP != 0 && v >= gmax {
            gmax = v;
            pick = Some(t);
        }
    }
    (gmax, pick)
}

/// WSS 2's second index: over `I_low`, the largest second-order decrease of the objective with
/// `i` (`-(Gmax + y_t G_t)^2 / (K_ii + K_tt - 2 K_it)`, ties to the last index), and
/// `max_{I_low} y_t G_t`: `(max, decrease, index)`, from the signed gradient `yg` and the
/// [`sets`]. In AVX-512F where the processor has it (all but the last `len % 8` variables), else
/// the scalar loop.
pub(crate) fn second_order_partner(
    gmax: f64,
    qd_i: f64,
    ki: &[f64],
    yg: &[f64],
    sets: &[u8],
    qd: &[f64],
) -> (f64, f64, Option<usize>) {
    #[cfg(target_arch = "x86_64")]
    if yg.len() >= vector::LANES && vector::available() {
        let w = yg.len() - yg.len() % vector::LANES;
        // SAFETY: AVX-512F is available (checked) and every slice holds at least `w` values.
        let head = unsafe {
            vector::second_order_partner(
                gmax,
                qd_i,
                &ki[..w],
                &yg[..w],
                &sets[..w],
                &qd[..w],
                TAU,
                LOW,
            )
        };
        let (g2, best, pick) =
            second_order_partner_scalar(gmax, qd_i, &ki[w..], &yg[w..], &sets[w..], &qd[w..]);
        return partner_max(head, (g2, best, pick.map(|p| p + w)));
    }
    second_order_partner_scalar(gmax, qd_i, ki, yg, sets, qd)
}

/// Two parts' [`second_order_partner`] results combined: the larger maximum, the smaller
/// decrease with ties to the larger index (the sequential loop's pick).
fn partner_max(
    a: (f64, f64, Option<usize>),
    b: (f64, f64, Option<usize>),
) -> (f64, f64, Option<usize>) {
    let (gain, pick) = later_max((-a.1, a.2), (-b.1, b.2));
    (if b.0 > a.0 { b.0 } else { a.0 }, -gain, pick)
}

/// [`second_order_partner`] one variable at a time: LIBSVM's loop, with a filter that skips a
/// division where it cannot change the pick.
fn second_order_partner_scalar(
    gmax: f64,
    qd_i: f64,
    ki: &[f64],
    yg: &[f64],
    sets: &[u8],
    qd: &[f64],
) -> (f64, f64, Option<usize>) {
    let mut gmax2 = f64::NEG_INFINITY;
    let mut best = f64::INFINITY;
    let mut pick = None;
    for t in 0..yg.len() {
        if sets[t] & LOW == 0 {
            continue;
        }
        let v = yg[t];
        gmax2 = gmax2.max(v);
        let grad_diff = gmax + v;
        if grad_diff > 0.0 {
            let quad = qd_i + qd[t] - 2.0 * ki[t];
            let quad = if quad > 0.0 { quad } else { TAU };
            // A multiplication first: most candidates cannot beat `best`, and a division's
            // latency on every one of them dominated this loop. The margin (far above the
            // product's rounding) never skips a candidate the division below would take, so
            // the pick is exactly the plain loop's.
            if grad_diff * grad_diff < -best * quad * (1.0 - 1e-12) {
                continue;
            }
            let decrease = -grad_diff * grad_diff / quad;
            if decrease <= best {
                best = decrease;
                pick = Some(t);
            }
        }
    }
    (gmax2, best, pick)
}

/// Of two `(value, index)` candidates from disjoint ranges, the larger value, ties to the larger
/// index: the sequential loops' `>=` choice, so chunked results combine to the same pick.
fn later_max(a: (f64, Option<usize>), b: (f64, Option<usize>)) -> (f64, Option<usize>) {
    match (a.1, b.1) {
        (_, None) => a,
        (None, _) => b,
        (Some(ia), Some(ib)) => {
            if b.0 > a.0 || (b.0 == a.0 && ib > ia) {
                b
            } else {
                a
            }
        }
    }
}

/// [`most_violating_up`] over fixed chunks in parallel; the same pick.
pub(crate) fn par_most_violating_up(yg: &[f64], sets: &[u8]) -> (f64, Option<usize>) {
    if yg.len() < PARALLEL_MIN {
        return most_violating_up(yg, sets);
    }
    yg.par_chunks(CHUNK)
        .zip(sets.par_chunks(CHUNK))
        .enumerate()
        .map(|(c, (g, s))| {
            let (v, p) = most_violating_up(g, s);
            (v, p.map(|p| p + c * CHUNK))
        })
        .reduce(|| (f64::NEG_INFINITY, None), later_max)
}

/// [`second_order_partner`] over fixed chunks in parallel: `(max_{I_low} y_t G_t, pick)`, the
/// same as the sequential loop (the decrease is minimised, i.e. its negation maximised).
#[allow(clippy::too_many_arguments)]
pub(crate) fn par_second_order_partner(
    gmax: f64,
    qd_i: f64,
    ki: &[f64],
    yg: &[f64],
    sets: &[u8],
    qd: &[f64],
) -> (f64, Option<usize>) {
    if yg.len() < PARALLEL_MIN {
        let (gmax2, _, pick) = second_order_partner(gmax, qd_i, ki, yg, sets, qd);
        return (gmax2, pick);
    }
    let (gmax2, _, pick) = (0..yg.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let r = c * CHUNK..((c + 1) * CHUNK).min(yg.len());
            let (g2, best, pick) = second_order_partner(
                gmax,
                qd_i,
                &ki[r.clone()],
                &yg[r.clone()],
                &sets[r.clone()],
                &qd[r.clone()],
            );
            (g2, best, pick.map(|p| p + r.start))
        })
        .reduce(|| (f64::NEG_INFINITY, f64::INFINITY, None), partner_max);
    (gmax2, pick)
}

/// `(max_{I_up} -y_t G_t, max_{I_low} y_t G_t)`: LIBSVM's `Gmax1`, `Gmax2` of `do_shrinking`.
pub(crate) fn violations(yg: &[f64], sets: &[u8]) -> (f64, f64) {
    let (mut g1, mut g2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (&v, &s) in yg.iter().zip(sets) {
        if s & UP != 0 {
            g1 = g1.max(-v);
        }
        if s & LOW != 0 {
            g2 = g2.max(v);
        }
    }
    (g1, g2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The selection loops' inputs: labels, gradients, statuses, curvatures `K_tt`, the first
    /// index's kernel row, `Gmax` and `K_ii`.
    struct Case {
        y: Vec<f64>,
        grad: Vec<f64>,
        status: Vec<Bound>,
        qd: Vec<f64>,
        ki: Vec<f64>,
        gmax: f64,
        qd_i: f64,
    }

    impl Case {
        /// `n` variables of every status. Values on a grid of `steps` points each side of 0
        /// (ties, signed zeros; curvatures at or below zero when `qd_floor` is 0) or uniform.
        fn random(rng: &mut ChaCha8Rng, n: usize, steps: Option<i32>, qd_floor: f64) -> Self {
            let value = |rng: &mut ChaCha8Rng, scale: f64| match steps {
                Some(k) => f64::from(rng.random_range(-k..k)) * scale / 3.0,
                None => rng.random_range(-scale..scale),
            };
            let y = (0..n)
                .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
                .collect();
            let grad = (0..n).map(|_| value(rng, 2.0)).collect();
            let status = (0..n)
                .map(|_| [Bound::Lower, Bound::Upper, Bound::Free][rng.random_range(0..3)])
                .collect();
            let qd = (0..n).map(|_| value(rng, 1.0).abs() + qd_floor).collect();
            let ki = (0..n).map(|_| value(rng, 1.5)).collect();
            let (gmax, qd_i) = (value(rng, 1.0), value(rng, 1.0).abs());
            Self {
                y,
                grad,
                status,
                qd,
                ki,
                gmax,
                qd_i,
            }
        }

        /// What the loops read: the signed gradients `y_t G_t` and the set bytes.
        fn signed(&self) -> (Vec<f64>, Vec<u8>) {
            let yg = self.y.iter().zip(&self.grad).map(|(y, g)| y * g).collect();
            let sets = self
                .y
                .iter()
                .zip(&self.status)
                .map(|(&y, &s)| sets(y, s))
                .collect();
            (yg, sets)
        }
    }

    /// The loops as dispatched, on signed gradients and set bytes, against LIBSVM's loops on
    /// labels, gradients and statuses (a division per candidate, no filter): the same maxima,
    /// decrease and picks, on random values, values on a coarse grid (ties), and curvatures at or
    /// below zero (TAU).
    #[test]
    fn the_selection_loops_pick_what_libsvms_loops_pick() {
        fn plain_up(y: &[f64], grad: &[f64], status: &[Bound]) -> (f64, Option<usize>) {
            let (mut gmax, mut pick) = (f64::NEG_INFINITY, None);
            for t in 0..y.len() {
                let v = -y[t] * grad[t];
                if in_up(y[t], status[t]) && v >= gmax {
                    (gmax, pick) = (v, Some(t));
                }
            }
            (gmax, pick)
        }
        fn plain(
            gmax: f64,
            qd_i: f64,
            ki: &[f64],
            y: &[f64],
            grad: &[f64],
            status: &[Bound],
            qd: &[f64],
        ) -> (f64, f64, Option<usize>) {
            let (mut gmax2, mut best, mut pick) = (f64::NEG_INFINITY, f64::INFINITY, None);
            for t in 0..y.len() {
                if !in_low(y[t], status[t]) {
                    continue;
                }
                let v = y[t] * grad[t];
                gmax2 = gmax2.max(v);
                let grad_diff = gmax + v;
                if grad_diff > 0.0 {
                    let quad = qd_i + qd[t] - 2.0 * ki[t];
                    let decrease = -grad_diff * grad_diff / if quad > 0.0 { quad } else { TAU };
                    if decrease <= best {
                        best = decrease;
                        pick = Some(t);
                    }
                }
            }
            (gmax2, best, pick)
        }
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        for round in 0..400 {
            let n = rng.random_range(1..300);
            let c = Case::random(&mut rng, n, (round % 2 == 0).then_some(6), 0.5);
            let (yg, sets) = c.signed();
            let up = most_violating_up(&yg, &sets);
            let reference = plain_up(&c.y, &c.grad, &c.status);
            assert_eq!(
                (up.0.to_bits(), up.1),
                (reference.0.to_bits(), reference.1),
                "round {round}"
            );
            let ours = second_order_partner(c.gmax, c.qd_i, &c.ki, &yg, &sets, &c.qd);
            let reference = plain(c.gmax, c.qd_i, &c.ki, &c.y, &c.grad, &c.status, &c.qd);
            assert_eq!(
                (ours.0.to_bits(), ours.1.to_bits(), ours.2),
                (reference.0.to_bits(), reference.1.to_bits(), reference.2),
                "round {round}"
            );
        }
    }

    /// The selection loops as dispatched (AVX-512F on a processor that has it: eight lanes and a
    /// scalar tail) against the scalar loops, bit for bit: values on a coarse grid (ties within
    /// and across lanes, signed zeros), curvatures at or below zero, every length up to 300.
    #[test]
    fn the_vector_selection_loops_pick_what_the_scalar_loops_pick() {
        let mut rng = ChaCha8Rng::seed_from_u64(47);
        for round in 0..600 {
            let n = rng.random_range(1..300);
            let c = Case::random(&mut rng, n, (round % 3 != 0).then_some(3), 0.0);
            let (yg, sets) = c.signed();
            let bits = |r: (f64, Option<usize>)| (r.0.to_bits(), r.1);
            assert_eq!(
                bits(most_violating_up(&yg, &sets)),
                bits(most_violating_up_scalar(&yg, &sets)),
                "round {round}"
            );
            let ours = second_order_partner(c.gmax, c.qd_i, &c.ki, &yg, &sets, &c.qd);
            let scalar = second_order_partner_scalar(c.gmax, c.qd_i, &c.ki, &yg, &sets, &c.qd);
            // The maximum by value: which of +0 and -0 a maximum keeps is unspecified.
            assert_eq!(
                (ours.0, ours.1.to_bits(), ours.2),
                (scalar.0, scalar.1.to_bits(), scalar.2),
                "round {round}"
            );
        }
    }

    /// The chunked parallel selection loops against the sequential ones, on sizes around the
    /// chunk boundaries, with many ties (values on a coarse grid) and all three kinds of
    /// variables.
    #[test]
    fn parallel_selection_equals_the_sequential_loops() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for n in [
            10,
            PARALLEL_MIN - 1,
            PARALLEL_MIN,
            PARALLEL_MIN + CHUNK + 17,
        ] {
            let c = Case::random(&mut rng, n, Some(8), 0.0);
            let (yg, sets) = c.signed();
            let up = most_violating_up(&yg, &sets);
            assert_eq!(par_most_violating_up(&yg, &sets), up, "n {n}");
            let (g2, _, pick) = second_order_partner(up.0, c.qd_i, &c.ki, &yg, &sets, &c.qd);
            let par = par_second_order_partner(up.0, c.qd_i, &c.ki, &yg, &sets, &c.qd);
            assert_eq!(par, (g2, pick), "n {n}");
        }
    }
}
