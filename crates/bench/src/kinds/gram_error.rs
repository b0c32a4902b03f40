//! `gram-error`: the approximate Gram matrix `Z Z'` of a sample of rows against the exact
//! `K`, as in PRFF's Figs. 1-2 (mean squared error over all `N^2` entries) and scikit-learn's
//! kernel-approximation tests (bias, max error).
//!
//! Block-wise: the `N x N` matrices are never held. Blocks of `BLOCK` rows are compared pairwise
//! (upper triangle, off-diagonal blocks counted twice), each block's sums computed on its own and
//! added in a fixed order, so the numbers do not depend on the thread count. Memory: the `N x D`
//! features plus a few `BLOCK x BLOCK` blocks (N = 10,000, D = 1,000: 80 MB + 16 MB).
//!
//! The sample is `n_samples` training rows drawn with the cell's `sample_seed` (scoped to the
//! dataset and the repetition: the same rows for every map). Maps fitted on data (Nystroem,
//! PRFF) are fitted on the sample itself: the papers approximate the Gram matrix of the points
//! they are given.

use std::time::Instant;

use ndarray::{s, Array2};
use rayon::prelude::*;
use rfbench_maps::{CsrMatrix, Kernel, Rows};

use super::{CellContext, CellOutcome};
use crate::error::Result;
use rfbench_data::subsample_indices;

const BLOCK: usize = 1024;

/// Sums over the entries of `Z Z' - K` (with weights: off-diagonal blocks count twice).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GramSums {
    pub squared_error: f64,
    pub squared_exact: f64,
    pub signed_error: f64,
    pub max_abs_error: f64,
    pub entries: f64,
}

impl GramSums {
    fn add(&mut self, other: &GramSums) {
        self.squared_error += other.squared_error;
        self.squared_exact += other.squared_exact;
        self.signed_error += other.signed_error;
        self.max_abs_error = self.max_abs_error.max(other.max_abs_error);
        self.entries += other.entries;
    }
}

/// The largest sample made dense once for all its blocks (bytes); a larger one is made dense
/// block by block, as the exact kernel needs it.
const DENSE_SAMPLE_BYTES: usize = 512 << 20;

/// The error sums of `features` (`N x D`, row `i` the map of `x_i`) against `kernel` on `x`.
///
/// The exact blocks read the sample as dense rows. Made dense once (when it fits in
/// [`DENSE_SAMPLE_BYTES`]) rather than selected and made dense again for every block: on
/// 10,000 Fashion-MNIST rows the per-block copies were most of a run's page faults and system
/// time. Either way each block's kernel values are computed from the same dense rows.
pub fn gram_error(features: &Array2<f64>, x: &CsrMatrix, kernel: &Kernel) -> GramSums {
    let fits = x.n_rows().saturating_mul(x.n_cols()).saturating_mul(8) <= DENSE_SAMPLE_BYTES;
    blockwise(features, x, fits.then(|| x.to_dense()).as_ref(), kernel)
}

/// [`gram_error`] with the exact blocks read from `dense` (`x` made dense) when given, else
/// from `x`'s rows selected and made dense block by block.
fn blockwise(
    features: &Array2<f64>,
    x: &CsrMatrix,
    dense: Option<&Array2<f64>>,
    kernel: &Kernel,
) -> GramSums {
    let n = x.n_rows();
    let blocks: Vec<(usize, usize)> = (0..n)
        .step_by(BLOCK)
        .flat_map(|i| (i..n).step_by(BLOCK).map(move |j| (i, j)))
        .collect();
    let partial: Vec<GramSums> = blocks
        .par_iter()
        .map(|&(i, j)| {
            let (ie, je) = ((i + BLOCK).min(n), (j + BLOCK).min(n));
            let approx = features
                .slice(s![i..ie, ..])
                .dot(&features.slice(s![j..je, ..]).t());
            let exact = match dense {
                Some(d) => kernel.cross_gram(
                    Rows::Dense(d.slice(s![i..ie, ..])),
                    Rows::Dense(d.slice(s![j..je, ..])),
                ),
                None => {
                    let a = x.select_rows(&(i..ie).collect::<Vec<_>>());
                    let b = x.select_rows(&(j..je).collect::<Vec<_>>());
                    kernel.cross_gram(Rows::Sparse(&a), Rows::Sparse(&b))
                }
            };
            let weight = if i == j { 1.0 } else { 2.0 };
            let mut sums = GramSums::default();
            for (e, k) in approx.iter().zip(exact.iter()) {
                let d = e - k;
                sums.squared_error += d * d;
                sums.squared_exact += k * k;
                sums.signed_error += d;
                sums.max_abs_error = sums.max_abs_error.max(d.abs());
            }
            sums.squared_error *= weight;
            sums.squared_exact *= weight;
            sums.signed_error *= weight;
            sums.entries = weight * approx.len() as f64;
            sums
        })
        .collect();
    let mut total = GramSums::default();
    for p in &partial {
        total.add(p);
    }
    total
}

pub(super) fn run(ctx: &CellContext<'_>) -> Result<CellOutcome> {
    let n_train = ctx.data.n_train;
    let n_samples = ctx.cell.kind_params.usize("n_samples");
    if n_samples > n_train {
        return Ok(CellOutcome::Skipped(format!(
            "n_samples = {n_samples} but the dataset has {n_train} training rows"
        )));
    }
    let rows = subsample_indices(n_train, n_samples, ctx.seed("sample_seed"))?;
    let x = ctx.data.x.select_rows(&rows);
    let kernel = ctx.kernel()?;
    let start = Instant::now();
    let map = ctx.build_map(Rows::Sparse(&x))?;
    let features = map.transform(Rows::Sparse(&x))?;
    let map_seconds = start.elapsed().as_secs_f64();
    let sums = gram_error(&features, &x, &kernel);
    let mut metrics = ctx.metrics()?;
    metrics.extend([
        ("gram_mse", sums.squared_error / sums.entries),
        (
            "relative_frobenius",
            (sums.squared_error / sums.squared_exact).sqrt(),
        ),
        ("max_abs_error", sums.max_abs_error),
        ("bias", sums.signed_error / sums.entries),
        ("map_seconds", map_seconds),
    ])?;
    Ok(CellOutcome::Done(metrics.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The block-wise sums against the two dense N x N matrices, with N spanning several
    /// blocks (the last one partial) so the weighting of off-diagonal blocks is exercised.
    #[test]
    fn blockwise_sums_equal_the_dense_computation() {
        let (n, d, big_d) = (2 * BLOCK + 77, 5, 7);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let dense = Array2::from_shape_fn((n, d), |_| rng.random::<f64>() - 0.5);
        let x = CsrMatrix::from_dense(dense.view()).unwrap();
        let z = Array2::from_shape_fn((n, big_d), |_| rng.random::<f64>() - 0.5);
        let kernel = Kernel::gaussian(0.7).unwrap();
        let sums = gram_error(&z, &x, &kernel);
        let approx = z.dot(&z.t());
        let exact = kernel.cross_gram(Rows::Sparse(&x), Rows::Sparse(&x));
        let diff = &approx - &exact;
        let sq: f64 = diff.iter().map(|v| v * v).sum();
        let ex: f64 = exact.iter().map(|v| v * v).sum();
        let signed: f64 = diff.iter().sum();
        let max = diff.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert_eq!(sums.entries, (n * n) as f64);
        assert!(
            (sums.squared_error - sq).abs() <= 1e-9 * sq,
            "{} vs {sq}",
            sums.squared_error
        );
        assert!((sums.squared_exact - ex).abs() <= 1e-9 * ex);
        assert!((sums.signed_error - signed).abs() <= 1e-9 * sq.sqrt() * n as f64);
        assert_eq!(sums.max_abs_error, max);
        // The sample made dense once gives the per-block path's sums to the last bit.
        assert_eq!(blockwise(&z, &x, Some(&dense), &kernel), sums);
        assert_eq!(blockwise(&z, &x, None, &kernel), sums);
    }
}
