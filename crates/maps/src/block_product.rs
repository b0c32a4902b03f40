//! The dense matrix products of the Fourier maps (`X W`, random Fourier and orthogonal features)
//! and of Nystroem, computed by fixed blocks of rows (Fourier maps: tiles of rows and frequencies)
//! with the `gemm` crate, one block per rayon task on one thread.
//!
//! **Why not BLAS.** The system OpenBLAS (0.3.21) selects its Haswell (256-bit) kernels on the
//! AVX-512 processors we run on, and so does NumPy's bundled copy (0.3.31). The `gemm` crate picks
//! its kernels at run time (AVX-512F where the processor has it, AVX2/FMA or SSE otherwise). With
//! OpenBLAS, `perf` put 68-73% of the `f32` random Fourier transform's time in sgemm; the README's
//! interleaved comparison with scikit-learn (`scripts/perf/compare_rff_sklearn.py --interleaved`)
//! measures the whole transform before and after.
//!
//! **Why by blocks.** The product of a block and the cosines (or exponentials) that follow it run
//! back to back on one thread while the block's outputs are still in cache, instead of one pass
//! over the whole output for the product and a second for the cosines. And a row's bits depend
//! only on its block, whose boundaries are fixed ([`PRODUCT_ROWS`], [`PRODUCT_COLS`]), never on
//! the number of threads.

use std::ops::Range;

use ndarray::{s, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

/// Rows per block of the blocked products. Each block packs the right-hand side again (12 MB of
/// `f32` at `d = 780, m = 4000`), so blocks should not be small; 256 and 512 rows measured within
/// 3 % of each other at that size, and 256 keeps the blocks' outputs (4 MB) cache-sized.
pub(crate) const PRODUCT_ROWS: usize = 256;

/// Columns per tile of [`tiled_product_then`]: a batch of few rows still splits into
/// `m / PRODUCT_COLS` tasks (64 rows against `m = 65,536` frequencies: 64 tiles rather than one
/// block on one thread). A multiple of the cosine loops' chunk of 64.
pub(crate) const PRODUCT_COLS: usize = 1024;

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

/// `f(rows, block)` for the fixed blocks of [`PRODUCT_ROWS`] rows of `out`, in parallel: `rows`
/// is the block's range of row indices (to take the matching input rows).
pub(crate) fn for_each_row_block<T: Real>(
    mut out: ArrayViewMut2<'_, T>,
    f: impl Fn(Range<usize>, ArrayViewMut2<'_, T>) + Sync,
) {
    out.axis_chunks_iter_mut(Axis(0), PRODUCT_ROWS)
        .into_par_iter()
        .enumerate()
        .for_each(|(b, block)| {
            let start = b * PRODUCT_ROWS;
            f(start..start + block.nrows(), block)
        });
}

/// `out[.., ..m] = x w` (`m = w.ncols()`) by fixed tiles of at most [`PRODUCT_ROWS`] rows and
/// [`PRODUCT_COLS`] columns, in parallel, one thread per tile, each tile's rows then handed to
/// `finish(cols, row, paired)` while the tile is in cache: `row` is the tile's part of an output
/// row (columns `cols`), `paired` the same columns shifted by `m` (`out[i, m + cols]`) when
/// `paired` is set (the `[cos, sin]` form), else `None`. The tiles do not depend on the number of
/// threads, so neither do the results.
///
/// # Panics
/// On inconsistent shapes (an internal error): `x` is `n x k`, `w` is `k x m`, `out` has `n` rows
/// and `2m` columns when `paired`, at least `m` otherwise.
pub(crate) fn tiled_product_then<T: Real>(
    x: ArrayView2<'_, T>,
    w: ArrayView2<'_, T>,
    mut out: ArrayViewMut2<'_, T>,
    paired: bool,
    finish: impl Fn(Range<usize>, &mut [T], Option<&mut [T]>) + Sync,
) {
    let m = w.ncols();
    assert_eq!(out.nrows(), x.nrows(), "tiled_product_then: rows");
    assert!(
        out.ncols() >= if paired { 2 * m } else { m },
        "tiled_product_then: columns"
    );
    // Disjoint views of every tile, made up front (the split consumes the views).
    let mut tiles = Vec::new();
    for (b, block) in out.axis_chunks_iter_mut(Axis(0), PRODUCT_ROWS).enumerate() {
        let rows = b * PRODUCT_ROWS..b * PRODUCT_ROWS + block.nrows();
        let (mut first, rest) = block.split_at(Axis(1), m);
        let mut second = paired.then(|| rest.split_at(Axis(1), m).0);
        let mut start = 0;
        while start < m {
            let width = PRODUCT_COLS.min(m - start);
            let (tile, after) = first.split_at(Axis(1), width);
            first = after;
            let paired_tile = second.take().map(|view| {
                let (tile, after) = view.split_at(Axis(1), width);
                second = Some(after);
                tile
            });
            tiles.push((rows.clone(), start..start + width, tile, paired_tile));
            start += width;
        }
    }
    tiles
        .into_par_iter()
        .for_each(|(rows, cols, mut tile, mut paired_tile)| {
            product_into(
                x.slice(s![rows, ..]),
                w.slice(s![.., cols.clone()]),
                tile.view_mut(),
            );
            let (mut buffer, mut paired_buffer) = (Vec::new(), Vec::new());
            for (i, mut row) in tile.rows_mut().into_iter().enumerate() {
                let mut paired_row = paired_tile.as_mut().map(|t| t.row_mut(i));
                let contiguous = row.as_slice_mut().is_some()
                    && paired_row
                        .as_mut()
                        .is_none_or(|r| r.as_slice_mut().is_some());
                if contiguous {
                    let paired_slice = paired_row.as_mut().and_then(|r| r.as_slice_mut());
                    finish(
                        cols.clone(),
                        row.as_slice_mut().expect("checked"),
                        paired_slice,
                    );
                } else {
                    buffer.clear();
                    buffer.extend(row.iter().copied());
                    paired_buffer.clear();
                    paired_buffer.resize(buffer.len(), T::zero());
                    let paired_slice = paired_row.is_some().then_some(&mut paired_buffer[..]);
                    finish(cols.clone(), &mut buffer, paired_slice);
                    row.iter_mut().zip(&buffer).for_each(|(o, &v)| *o = v);
                    if let Some(r) = paired_row.as_mut() {
                        r.iter_mut().zip(&paired_buffer).for_each(|(o, &v)| *o = v);
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array2, ShapeBuilder};
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

    /// The tiled driver over several row blocks and column tiles (the last ones partial), in both
    /// forms and on a row-major and a column-major output (the buffered path): every entry is
    /// the product's, and `finish` sees each output column exactly once with the right indices.
    #[test]
    fn tiles_cover_the_output_once_with_the_right_columns() {
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let (n, k, m) = (PRODUCT_ROWS + 45, 13, 2 * PRODUCT_COLS + 52);
        let x = Array2::from_shape_fn((n, k), |_| rng.random::<f64>() - 0.5);
        let w = Array2::from_shape_fn((k, m), |_| rng.random::<f64>() - 0.5);
        let product = naive(&x, &w);
        // Marks each entry: the projection negated, its partner column set to projection + column.
        let finish = |cols: Range<usize>, row: &mut [f64], paired: Option<&mut [f64]>| {
            assert_eq!(row.len(), cols.len());
            if let Some(paired) = paired {
                assert_eq!(paired.len(), cols.len());
                for ((p, v), j) in paired.iter_mut().zip(row.iter()).zip(cols.clone()) {
                    *p = *v + j as f64;
                }
            }
            row.iter_mut().for_each(|v| *v = -*v);
        };
        for paired in [false, true] {
            let width = if paired { 2 * m } else { m + 5 };
            for column_major in [false, true] {
                let mut out = if column_major {
                    Array2::from_elem((n, width).f(), f64::NAN)
                } else {
                    Array2::from_elem((n, width), f64::NAN)
                };
                tiled_product_then(x.view(), w.view(), out.view_mut(), paired, finish);
                for ((i, j), &p) in product.indexed_iter() {
                    let context =
                        format!("paired {paired}, column-major {column_major}, ({i}, {j})");
                    assert!((out[[i, j]] + p).abs() < 1e-13, "{context}");
                    if paired {
                        assert!(
                            (out[[i, m + j]] - (p + j as f64)).abs() < 1e-12,
                            "{context}"
                        );
                    }
                }
                if !paired {
                    assert!(
                        out.slice(s![.., m..]).iter().all(|v| v.is_nan()),
                        "untouched"
                    );
                }
            }
        }
    }
}
