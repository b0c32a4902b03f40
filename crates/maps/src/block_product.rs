//! The dense matrix product of the Fourier maps (`X W`, random Fourier and orthogonal features)
//! and of Nystroem, computed block of rows by block of rows with the `gemm` crate, one block per
//! rayon task on one thread.
//!
//! **Why not BLAS.** The system OpenBLAS (0.3.21) selects its Haswell (256-bit) kernels on the
//! AVX-512 processors we run on, and so does NumPy's bundled copy. The `gemm` crate picks its
//! kernels at run time (AVX-512F where the processor has it, AVX2/FMA or SSE otherwise). Measured on
//! the development machine (2 cores, `10,000 x 780` times `780 x 4000`): single precision
//! 0.150 s against about 0.25 s for OpenBLAS's sgemm, double precision 0.30 s against about 0.55 s.
//!
//! **Why by blocks.** The product of a block and the cosines (or exponentials) that follow it run
//! back to back on one thread while the block's outputs are still in cache, instead of one pass
//! over the whole output for the product and a second for the cosines. And a row's bits depend
//! only on its block, whose boundaries are fixed ([`PRODUCT_ROWS`]), never on the number of
//! threads.

use ndarray::{ArrayView2, ArrayViewMut2};

/// Rows per block of the blocked products. Each block packs the right-hand side again (12 MB of
/// `f32` at `d = 780, m = 4000`), so blocks should not be small; 256 and 512 rows measured within
/// 3 % of each other at that size, and 256 keeps the blocks' outputs (4 MB) cache-sized.
pub(crate) const PRODUCT_ROWS: usize = 256;

/// Element types of the products: `f32` and `f64`.
pub(crate) trait Real:
    Copy + Send + Sync + 'static + num_traits::Zero + num_traits::One
{
}
impl Real for f32 {}
impl Real for f64 {}

/// `out = a b` on the calling thread. Any strides (the output is typically the first `m` columns
/// of a wider output matrix).
///
/// # Panics
/// On inconsistent shapes: an internal error, the maps check the user's shapes first.
pub(crate) fn product_into<T: Real>(
    a: ArrayView2<'_, T>,
    b: ArrayView2<'_, T>,
    out: ArrayViewMut2<'_, T>,
) {
    let (n, k) = a.dim();
    let m = b.ncols();
    assert_eq!(b.nrows(), k, "product_into: inner dimensions");
    assert_eq!(out.dim(), (n, m), "product_into: output shape");
    if n == 0 || m == 0 {
        return;
    }
    let mut out = out;
    let (a_rs, a_cs) = (a.strides()[0], a.strides()[1]);
    let (b_rs, b_cs) = (b.strides()[0], b.strides()[1]);
    let (o_rs, o_cs) = (out.strides()[0], out.strides()[1]);
    // SAFETY: the pointers and strides come from live ndarray views whose shapes were checked
    // above to be (n, k), (k, m) and (n, m); `out` is borrowed mutably and cannot alias `a` or `b`.
    // With `read_dst = false` the output's old contents are never read (they may be anything).
    unsafe {
        gemm::gemm(
            n,
            m,
            k,
            out.as_mut_ptr(),
            o_cs,
            o_rs,
            false,
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            b_cs,
            b_rs,
            T::zero(),
            T::one(),
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array2};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn naive(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
        let mut out = Array2::zeros((a.nrows(), b.ncols()));
        for i in 0..a.nrows() {
            for j in 0..b.ncols() {
                out[[i, j]] = (0..a.ncols()).map(|l| a[[i, l]] * b[[l, j]]).sum();
            }
        }
        out
    }

    /// Against the triple loop, on shapes around the kernels' tile sizes, a strided output (the
    /// first columns of a wider matrix, whose other columns must not change), a transposed
    /// right-hand side, and in `f32`.
    #[test]
    fn product_matches_naive_triple_loop() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for (n, k, m) in [
            (1, 1, 1),
            (3, 5, 7),
            (17, 33, 65),
            (256, 780, 130),
            (64, 1, 48),
        ] {
            let a = Array2::from_shape_fn((n, k), |_| rng.random::<f64>() - 0.5);
            let b = Array2::from_shape_fn((k, m), |_| rng.random::<f64>() - 0.5);
            let expected = naive(&a, &b);
            let tolerance = 1e-14 * k as f64;

            let mut wide = Array2::from_elem((n, m + 3), 7.0);
            product_into(a.view(), b.view(), wide.slice_mut(s![.., ..m]));
            let worst = (&wide.slice(s![.., ..m]) - &expected)
                .iter()
                .fold(0.0f64, |w, v| w.max(v.abs()));
            assert!(worst <= tolerance, "({n}, {k}, {m}): {worst:e}");
            assert!(wide.slice(s![.., m..]).iter().all(|&v| v == 7.0));

            let bt = b.t().to_owned();
            let mut out = Array2::from_elem((n, m), f64::NAN);
            product_into(a.view(), bt.t(), out.view_mut());
            assert_eq!(
                out,
                wide.slice(s![.., ..m]).to_owned(),
                "transposed b, ({n}, {k}, {m})"
            );

            let (a32, b32) = (a.mapv(|v| v as f32), b.mapv(|v| v as f32));
            let mut out32 = Array2::from_elem((n, m), f32::NAN);
            product_into(a32.view(), b32.view(), out32.view_mut());
            let worst32 = out32
                .iter()
                .zip(naive(&a32.mapv(f64::from), &b32.mapv(f64::from)).iter())
                .fold(0.0f64, |w, (&o, &e)| w.max((f64::from(o) - e).abs()));
            assert!(
                worst32 <= 1.2e-7 * k as f64,
                "f32 ({n}, {k}, {m}): {worst32:e}"
            );
        }
    }
}
