//! `kernel-error`: how far a map's kernel estimates are from the exact kernel.
//!
//! **Which pairs.** Each repetition draws `pairs` ordered pairs `(i, j)`, `i != j`, uniformly with
//! replacement from all rows of the dataset (for Adult, the 48,842 rows of a9a + a9a.t), with the
//! cell's `pair_seed`. By default that seed is scoped to the dataset and the repetition, so every
//! map, kernel and `D` of a repetition is compared on the same pairs.
//!
//! **Which statistic.** `relative_error` is the mean over the pairs of `|k_hat(x, y) - k(x, y)| /
//! |k(x, y)|`, pairs with `k = 0` left out of it (and counted in `pairs_excluded`). Pham & Pagh do
//! not define their Fig. 1 statistic; of the readings we tried on Adult (mean relative error, ratio
//! of mean absolute error to mean kernel, relative Frobenius error, median relative error) the
//! mean relative error is the one whose range matches the figure's axes. The others are written
//! too: `median_relative_error`, `mean_absolute_error`, `bias`.
//!
//! Only the rows that occur in pairs are mapped, one chunk at a time, so memory stays at a few
//! chunks of `D` features whatever the dataset size. A map fitted on data (Nystroem, PRFF) is
//! fitted on the training rows.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_maps::{CsrMatrix, DynFeatureMap, Rows};

use super::{CellContext, CellOutcome};
use crate::error::{Error, Result};

/// Pairs mapped at once: bounds memory to `2 x CHUNK x D` features per running cell.
const CHUNK: usize = 1024;

/// `count` pairs `(i, j)`, `i != j`, uniform over `0..n`.
pub fn sample_pairs(n: usize, count: usize, seed: u64) -> Result<Vec<(usize, usize)>> {
    if n < 2 {
        return Err(Error::Experiment(format!(
            "need at least 2 rows to draw pairs, the data has {n}"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Ok((0..count)
        .map(|_| {
            let i = rng.random_range(0..n);
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            (i, j)
        })
        .collect())
}

/// Kernel estimates `<z(x_i), z(x_j)>` for every pair, and the time spent mapping.
fn estimates(
    map: &dyn DynFeatureMap,
    x: &CsrMatrix,
    pairs: &[(usize, usize)],
) -> Result<(Vec<f64>, f64)> {
    let mut out = Vec::with_capacity(pairs.len());
    let mut seconds = 0.0;
    for chunk in pairs.chunks(CHUNK) {
        let left = x.select_rows(&chunk.iter().map(|p| p.0).collect::<Vec<_>>());
        let right = x.select_rows(&chunk.iter().map(|p| p.1).collect::<Vec<_>>());
        let start = Instant::now();
        let (zl, zr) = (
            map.transform(Rows::Sparse(&left))?,
            map.transform(Rows::Sparse(&right))?,
        );
        seconds += start.elapsed().as_secs_f64();
        out.extend(
            zl.rows()
                .into_iter()
                .zip(zr.rows())
                .map(|(a, b)| plain_dot(a, b)),
        );
    }
    Ok((out, seconds))
}

/// `<a, b>` summed left to right. Not BLAS: OpenBLAS picks its `ddot` kernel by processor
/// (Haswell, SkylakeX, ...) and the kernels round differently, so the same seeds would give
/// different last bits on different machines, and the exact check could not be exact.
fn plain_dot(a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>) -> f64 {
    a.iter().zip(b.iter()).fold(0.0, |acc, (x, y)| acc + x * y)
}

pub(super) fn run(ctx: &CellContext<'_>) -> Result<CellOutcome> {
    let x = &ctx.data.x;
    let pairs = sample_pairs(
        x.n_rows(),
        ctx.cell.kind_params.usize("pairs"),
        ctx.seed("pair_seed"),
    )?;
    let kernel = ctx.kernel()?;
    let map = if ctx.cell.map.fits_on_data {
        ctx.build_map(Rows::Sparse(&super::train_rows(ctx.data)))?
    } else {
        ctx.build_map(Rows::Sparse(x))?
    };
    let (estimates, map_seconds) = estimates(map.as_ref(), x, &pairs)?;
    let errors = ErrorSummary::new(
        pairs
            .iter()
            .map(|&(i, j)| kernel.eval(&x.row(i), &x.row(j))),
        estimates.iter().copied(),
    );
    let mut metrics = ctx.metrics()?;
    metrics.extend([
        ("pairs_excluded", errors.excluded as f64),
        ("relative_error", errors.mean_relative),
        ("median_relative_error", errors.median_relative),
        ("mean_absolute_error", errors.mean_absolute),
        ("bias", errors.bias),
        ("map_seconds", map_seconds),
    ])?;
    Ok(CellOutcome::Done(metrics.finish()))
}

/// Error statistics of estimates against exact values.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorSummary {
    pub mean_relative: f64,
    pub median_relative: f64,
    pub mean_absolute: f64,
    pub bias: f64,
    /// Pairs with an exact value of 0, left out of the relative errors.
    pub excluded: usize,
}

impl ErrorSummary {
    pub fn new(exact: impl Iterator<Item = f64>, estimate: impl Iterator<Item = f64>) -> Self {
        let (mut relative, mut abs_sum, mut signed_sum, mut n, mut excluded) =
            (Vec::new(), 0.0, 0.0, 0usize, 0);
        for (k, e) in exact.zip(estimate) {
            abs_sum += (e - k).abs();
            signed_sum += e - k;
            n += 1;
            if k == 0.0 {
                excluded += 1;
            } else {
                relative.push((e - k).abs() / k.abs());
            }
        }
        let median_relative = if relative.is_empty() {
            f64::NAN
        } else {
            super::median(&mut relative)
        };
        let mean_relative = relative.iter().sum::<f64>() / relative.len() as f64;
        Self {
            mean_relative,
            median_relative,
            mean_absolute: abs_sum / n as f64,
            bias: signed_sum / n as f64,
            excluded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_distinct_uniform_and_seeded() {
        let pairs = sample_pairs(5, 20_000, 3).unwrap();
        assert!(pairs.iter().all(|&(i, j)| i != j && i < 5 && j < 5));
        assert_eq!(pairs, sample_pairs(5, 20_000, 3).unwrap());
        // Each of the 20 ordered pairs has probability 1/20; 5 binomial standard deviations.
        for a in 0..5 {
            for b in (0..5).filter(|&b| b != a) {
                let share = pairs.iter().filter(|&&p| p == (a, b)).count() as f64 / 20_000.0;
                assert!(
                    (share - 0.05).abs() < 5.0 * (0.05f64 * 0.95 / 20_000.0).sqrt(),
                    "({a},{b}): {share}"
                );
            }
        }
        assert!(sample_pairs(1, 3, 0).is_err());
    }

    #[test]
    fn error_summary_statistics() {
        let s = ErrorSummary::new(
            [1.0, 2.0, 0.0, 4.0].into_iter(),
            [1.5, 1.0, 0.5, 4.0].into_iter(),
        );
        assert_eq!(s.excluded, 1);
        assert!((s.mean_relative - (0.5 + 0.5 + 0.0) / 3.0).abs() < 1e-15);
        assert_eq!(s.median_relative, 0.5);
        assert!((s.mean_absolute - 2.0 / 4.0).abs() < 1e-15);
        assert!((s.bias - (0.5 - 1.0 + 0.5) / 4.0).abs() < 1e-15);
    }
}
