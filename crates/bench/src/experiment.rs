//! The "kernel-error" experiment: how far a map's kernel estimates are from the exact kernel.
//!
//! **Which pairs.** Each repetition draws `pairs` ordered pairs `(i, j)`, `i != j`, uniformly with
//! replacement from all rows of the dataset (for Adult, the 48,842 rows of a9a + a9a.t), with a
//! seed derived from the master seed and the repetition. All cells of a repetition share its pairs,
//! so maps and `D` are compared on the same pairs.
//!
//! **Which statistic.** `relative_error` is the mean over the pairs of `|k_hat(x, y) - k(x, y)| /
//! |k(x, y)|`, pairs with `k = 0` left out of it (and counted in `pairs_excluded`). Pham & Pagh do
//! not define their Fig. 1 statistic; of the readings we tried on Adult (mean relative error, ratio
//! of mean absolute error to mean kernel, relative Frobenius error, median relative error) the
//! mean relative error is the one whose range matches the figure's axes (about 0.9, 5 and 12 at
//! the top of the p = 2, 3, 4 panels, reached by Random Maclaurin on the homogeneous kernels at
//! D = 500). The others are written too: `median_relative_error`, `mean_absolute_error`, `bias`.
//!
//! Only the rows that occur in pairs are mapped, one chunk at a time, so memory stays at a few
//! chunks of `D` features whatever the dataset size.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rfbench_maps::{
    CsrMatrix, FeatureMap, PolynomialKernel, RandomMaclaurinParams, TensorSketchParams,
};

use crate::error::{Error, Result};
use crate::seeds::derive_seed;
use crate::spec::{MapKind, Plan};

/// The metric columns an experiment writes (and a check may compare).
pub const METRIC_COLUMNS: [&str; 4] = [
    "relative_error",
    "median_relative_error",
    "mean_absolute_error",
    "bias",
];

/// Pairs mapped at once: bounds memory to `2 x CHUNK x D` features per running cell.
const CHUNK: usize = 1024;

/// One grid cell at one repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub map: MapKind,
    pub degree: u32,
    pub offset: f64,
    pub n_components: usize,
    pub repetition: usize,
    pub seed: u64,
    pub pair_seed: u64,
}

/// A cell's measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct CellResult {
    pub cell: Cell,
    pub pairs_used: usize,
    pub pairs_excluded: usize,
    pub relative_error: f64,
    pub median_relative_error: f64,
    pub mean_absolute_error: f64,
    pub bias: f64,
    /// Wall time of mapping the cell's rows (cells run concurrently: indicative only).
    pub map_seconds: f64,
}

impl CellResult {
    pub fn metric(&self, column: &str) -> Option<f64> {
        match column {
            "relative_error" => Some(self.relative_error),
            "median_relative_error" => Some(self.median_relative_error),
            "mean_absolute_error" => Some(self.mean_absolute_error),
            "bias" => Some(self.bias),
            _ => None,
        }
    }
}

/// The pairs' seed of a repetition.
pub fn pair_seed(master: u64, repetition: usize) -> u64 {
    derive_seed(master, &format!("pairs|rep={repetition}"))
}

/// Every cell of the plan, in a fixed order (repetition, map, degree, offset, D).
pub fn cells(plan: &Plan) -> Vec<Cell> {
    let mut out = Vec::new();
    for repetition in 0..plan.repetitions {
        for &map in &plan.maps {
            for &degree in &plan.degrees {
                for &offset in &plan.offsets {
                    for &n_components in &plan.n_components {
                        let key = format!(
                            "map={}|degree={degree}|offset={offset}|D={n_components}|rep={repetition}",
                            map.name()
                        );
                        out.push(Cell {
                            map,
                            degree,
                            offset,
                            n_components,
                            repetition,
                            seed: derive_seed(plan.master_seed, &key),
                            pair_seed: pair_seed(plan.master_seed, repetition),
                        });
                    }
                }
            }
        }
    }
    out
}

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
fn estimates<M: FeatureMap>(
    map: &M,
    x: &CsrMatrix,
    pairs: &[(usize, usize)],
) -> Result<(Vec<f64>, f64)> {
    let mut out = Vec::with_capacity(pairs.len());
    let mut seconds = 0.0;
    for chunk in pairs.chunks(CHUNK) {
        let left = x.select_rows(&chunk.iter().map(|p| p.0).collect::<Vec<_>>());
        let right = x.select_rows(&chunk.iter().map(|p| p.1).collect::<Vec<_>>());
        let start = Instant::now();
        let (zl, zr) = (map.transform(&left)?, map.transform(&right)?);
        seconds += start.elapsed().as_secs_f64();
        out.extend(zl.rows().into_iter().zip(zr.rows()).map(|(a, b)| a.dot(&b)));
    }
    Ok((out, seconds))
}

/// Runs one cell: fit the map with the cell's seed, estimate every pair, summarise the errors.
pub fn run_cell(
    cell: &Cell,
    x: &CsrMatrix,
    pairs: &[(usize, usize)],
    dots: &[f64],
) -> Result<CellResult> {
    let kernel = PolynomialKernel::new(cell.degree, cell.offset)?;
    let d = x.n_cols();
    let (estimates, map_seconds) = match cell.map {
        MapKind::TensorSketch => {
            let map = TensorSketchParams::new(cell.degree, cell.n_components)
                .offset(cell.offset)
                .seed(cell.seed)
                .fit(d)?;
            estimates(&map, x, pairs)?
        }
        MapKind::RandomMaclaurin => {
            let map = RandomMaclaurinParams::new(cell.degree, cell.n_components)
                .offset(cell.offset)
                .seed(cell.seed)
                .fit(d)?;
            estimates(&map, x, pairs)?
        }
    };
    let errors = ErrorSummary::new(
        dots.iter().map(|&t| kernel.from_dot(t)),
        estimates.iter().copied(),
    );
    Ok(CellResult {
        cell: cell.clone(),
        pairs_used: pairs.len(),
        pairs_excluded: errors.excluded,
        relative_error: errors.mean_relative,
        median_relative_error: errors.median_relative,
        mean_absolute_error: errors.mean_absolute,
        bias: errors.bias,
        map_seconds,
    })
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
        relative.sort_by(f64::total_cmp);
        let median_relative = match relative.len() {
            0 => f64::NAN,
            m if m % 2 == 1 => relative[m / 2],
            m => 0.5 * (relative[m / 2 - 1] + relative[m / 2]),
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

/// Runs every cell of the plan on `x` (rows already preprocessed), in parallel across cells;
/// `tick` is called once per finished cell. Results come back in [`cells`] order.
pub fn run(plan: &Plan, x: &CsrMatrix, tick: impl Fn() + Sync) -> Result<Vec<CellResult>> {
    let mut per_repetition = Vec::with_capacity(plan.repetitions);
    for repetition in 0..plan.repetitions {
        let pairs = sample_pairs(
            x.n_rows(),
            plan.pairs,
            pair_seed(plan.master_seed, repetition),
        )?;
        let dots: Vec<f64> = pairs
            .iter()
            .map(|&(i, j)| x.row(i).dot(&x.row(j)))
            .collect();
        per_repetition.push((pairs, dots));
    }
    cells(plan)
        .par_iter()
        .map(|cell| {
            let (pairs, dots) = &per_repetition[cell.repetition];
            let result = run_cell(cell, x, pairs, dots);
            tick();
            result
        })
        .collect()
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
