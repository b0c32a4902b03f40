//! The fast Walsh-Hadamard transform (FWHT): `x <- H x` for the unnormalised Sylvester-Hadamard
//! matrix `H_ij = (-1)^popcount(i & j)` of order `n = 2^k` (`H H' = n I`), in place, in
//! `n log2 n` additions. Fastfood and structured orthogonal random features apply it per block.
//!
//! [`fwht`] is iterative radix-2: level `h = 1, 2, 4, ...` replaces each pair `(x_a, x_{a+h})` of
//! a chunk of `2h` by `(x_a + x_{a+h}, x_a - x_{a+h})`. The first two levels are fused into one
//! pass over chunks of 4 (a radix-4 butterfly) and every later level runs over the two halves of a
//! chunk as two slices, which the compiler vectorises. Both perform the same additions in the
//! same order as the plain radix-2 loop [`fwht_radix2`], so all three agree bit for bit; the tests
//! check them against the explicit matrix product [`fwht_reference`] (exact on integer data,
//! `1e-12` relative on random data).

use crate::simd::{vector_builds, Isa};

/// `x <- H x` in place, in the processor's widest vector build ([`crate::simd`]: the same
/// additions, the same bits). Panics unless `x.len()` is a power of two (1 is `2^0`: the
/// identity).
pub fn fwht(x: &mut [f64]) {
    fwht_with(Isa::widest(), x)
}

vector_builds!(
    /// [`fwht`] built for `isa`.
    fn fwht_with(x: &mut [f64]) => fwht_loops
);

/// The loops of [`fwht`], compiled into each build.
#[inline(always)]
fn fwht_loops(x: &mut [f64]) {
    let n = x.len();
    assert!(
        n.is_power_of_two(),
        "FWHT size must be a power of two, got {n}"
    );
    let mut h = 1;
    if n >= 4 {
        for c in x.chunks_exact_mut(4) {
            let (s0, d0) = (c[0] + c[1], c[0] - c[1]);
            let (s1, d1) = (c[2] + c[3], c[2] - c[3]);
            c[0] = s0 + s1;
            c[1] = d0 + d1;
            c[2] = s0 - s1;
            c[3] = d0 - d1;
        }
        h = 4;
    }
    while h < n {
        for chunk in x.chunks_exact_mut(2 * h) {
            let (a, b) = chunk.split_at_mut(h);
            for (u, v) in a.iter_mut().zip(b.iter_mut()) {
                let (s, t) = (*u + *v, *u - *v);
                *u = s;
                *v = t;
            }
        }
        h *= 2;
    }
}

/// The textbook radix-2 loop, one level at a time with index arithmetic.
pub fn fwht_radix2(x: &mut [f64]) {
    let n = x.len();
    assert!(
        n.is_power_of_two(),
        "FWHT size must be a power of two, got {n}"
    );
    let mut h = 1;
    while h < n {
        for start in (0..n).step_by(2 * h) {
            for a in start..start + h {
                let (u, v) = (x[a], x[a + h]);
                x[a] = u + v;
                x[a + h] = u - v;
            }
        }
        h *= 2;
    }
}

/// `H x` by the explicit `O(n²)` matrix product: the obviously-correct reference.
pub fn fwht_reference(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    assert!(
        n.is_power_of_two(),
        "FWHT size must be a power of two, got {n}"
    );
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if (i & j).count_ones() % 2 == 0 {
                        x[j]
                    } else {
                        -x[j]
                    }
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every power of two from 1 to 1024. Integer data keeps every partial sum exact, so the
    /// reference's different summation order gives the same bits; on random data the results
    /// agree to `1e-12` of the input's norm times sqrt(n) (the size of `H x`).
    #[test]
    fn fast_transform_equals_explicit_hadamard() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for k in 0..=10 {
            let n = 1usize << k;
            let ints: Vec<f64> = (0..n)
                .map(|_| rng.random_range(-1000i32..1000) as f64)
                .collect();
            let mut fast = ints.clone();
            fwht(&mut fast);
            assert_eq!(fast, fwht_reference(&ints), "n = {n}");

            let floats: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
            let mut fast = floats.clone();
            fwht(&mut fast);
            let mut plain = floats.clone();
            fwht_radix2(&mut plain);
            assert_eq!(fast, plain, "n = {n}: fused and plain radix-2 differ");
            let scale = (n as f64).sqrt() * floats.iter().map(|v| v * v).sum::<f64>().sqrt();
            for (a, b) in fast.iter().zip(fwht_reference(&floats)) {
                assert!(
                    (a - b).abs() <= 1e-12 * scale.max(1.0),
                    "n = {n}: {a} vs {b}"
                );
            }
        }
    }

    /// Every vector build the processor can run gives the plain loop's bits.
    #[test]
    fn every_vector_build_equals_radix2() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for k in 0..=12 {
            let x: Vec<f64> = (0..1usize << k)
                .map(|_| rng.random::<f64>() - 0.5)
                .collect();
            let mut plain = x.clone();
            fwht_radix2(&mut plain);
            for isa in Isa::supported() {
                let mut fast = x.clone();
                fwht_with(isa, &mut fast);
                assert_eq!(fast, plain, "{isa:?}, n = 2^{k}");
            }
        }
    }

    /// `H H = n I`: transforming twice gives `n x`.
    #[test]
    fn involution_up_to_n() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let n = 4096;
        let x: Vec<f64> = (0..n)
            .map(|_| rng.random_range(-50i32..50) as f64)
            .collect();
        let mut y = x.clone();
        fwht(&mut y);
        fwht(&mut y);
        assert!(y.iter().zip(&x).all(|(a, b)| *a == b * n as f64));
    }

    #[test]
    #[should_panic(expected = "power of two")]
    fn rejects_other_sizes() {
        fwht(&mut [1.0, 2.0, 3.0]);
    }
}
