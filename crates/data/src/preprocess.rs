//! Preprocessing applied to a loaded dataset before any feature map sees it.
//!
//! The polynomial-kernel papers (Pham-Pagh, Kar-Karnick) normalise every row to unit L2 norm, so
//! that `<x, y>` lies in [-1, 1] and the kernel values of different degrees stay comparable.
//! The regression papers (Fastfood, Random Features) standardise or min-max scale each column;
//! the statistics come from the training rows only and are applied unchanged to the test rows,
//! so no information about the test set leaks into training. PRFF sets the Gaussian bandwidth
//! to the 5th percentile of pairwise distances, estimated here on a seeded sample of pairs.
//! Every random choice takes an explicit seed (ChaCha8), never OS entropy.

use std::ops::{Range, RangeInclusive};

use ndarray::Array2;
use rand::seq::index;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_maps::CsrMatrix;
use rfbench_registry_data::Norm;

use super::error::{DataError, Result};

/// Scales every row to unit Euclidean norm; rows that are entirely zero stay zero.
///
/// The norm is computed relative to the row's largest magnitude, so rows with very large or
/// very small values are normalised without overflow or underflow of the squares.
pub fn unit_norm(x: &mut CsrMatrix) {
    let factors: Vec<f64> = (0..x.n_rows())
        .map(|i| {
            let norm = scaled_norm(x.row_parts(i).1);
            if norm > 0.0 {
                1.0 / norm
            } else {
                1.0
            }
        })
        .collect();
    x.scale_rows(&factors);
}

/// Divides every row by the largest Euclidean norm among the first `n_train` rows.
pub fn max_row_norm(x: &mut CsrMatrix, n_train: usize) -> Result<()> {
    let largest = (0..n_train.min(x.n_rows()))
        .map(|i| scaled_norm(x.row_parts(i).1))
        .fold(0.0f64, f64::max);
    if !(largest > 0.0 && largest.is_finite()) {
        return Err(DataError::Preprocess {
            step: "max-row-norm",
            problem: format!(
                "the largest training row norm is {largest}: no row to scale by (every \
                 training row zero, none, or a value too large)"
            ),
        });
    }
    x.scale_rows(&vec![1.0 / largest; x.n_rows()]);
    Ok(())
}

/// Euclidean norm as `max |v| * sqrt(sum (v / max |v|)^2)`.
fn scaled_norm(values: &[f64]) -> f64 {
    let largest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if largest == 0.0 {
        return 0.0;
    }
    let sum: f64 = values.iter().map(|v| (v / largest) * (v / largest)).sum();
    largest * sum.sqrt()
}

/// The mean and population standard deviation (1 where it is 0) of each column of `columns`
/// over `rows`, summed as `v / max |v|` and scaled back: finite for values near the float
/// range, whose plain sums (or their squares') overflow. Only such columns take this path, so
/// ordinary data is standardised bit for bit as before.
fn scaled_moments(
    x: &CsrMatrix,
    rows: Range<usize>,
    columns: &[usize],
) -> Vec<(usize, (f64, f64))> {
    let count = rows.len() as f64;
    let at: std::collections::HashMap<usize, usize> =
        columns.iter().enumerate().map(|(k, &j)| (j, k)).collect();
    let entries = |f: &mut dyn FnMut(usize, f64)| {
        for i in rows.clone() {
            let (idx, val) = x.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                if let Some(&k) = at.get(&(j as usize)) {
                    f(k, v);
                }
            }
        }
    };
    let (mut largest, mut sum, mut sum_sq, mut nonzeros) = (
        vec![0.0f64; columns.len()],
        vec![0.0; columns.len()],
        vec![0.0; columns.len()],
        vec![0usize; columns.len()],
    );
    entries(&mut |k, v| largest[k] = largest[k].max(v.abs()));
    entries(&mut |k, v| sum[k] += v / largest[k]);
    let mean: Vec<f64> = sum.iter().map(|s| s / count).collect();
    entries(&mut |k, v| {
        sum_sq[k] += (v / largest[k] - mean[k]).powi(2);
        nonzeros[k] += 1;
    });
    (0..columns.len())
        .map(|k| {
            let zeros = count - nonzeros[k] as f64;
            let sd = ((sum_sq[k] + zeros * mean[k] * mean[k]) / count).sqrt() * largest[k];
            let sd = if sd > 0.0 { sd } else { 1.0 };
            (columns[k], (mean[k] * largest[k], sd))
        })
        .collect()
}

/// Per-column affine scaling `(v - shift) / scale`, fitted on training rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnScaler {
    pub shift: Vec<f64>,
    pub scale: Vec<f64>,
}

impl ColumnScaler {
    /// Zero mean and unit (population) standard deviation on `rows`; a constant column is
    /// only centred (scale 1), since dividing by zero would make it NaN.
    pub fn standardize(x: &CsrMatrix, rows: Range<usize>) -> Result<ColumnScaler> {
        let count = check_rows(x, &rows, "standardize")? as f64;
        let d = x.n_cols();
        let (mut sum, mut sum_sq) = (vec![0.0; d], vec![0.0; d]);
        for i in rows.clone() {
            let (idx, val) = x.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                sum[j as usize] += v;
            }
        }
        let mean: Vec<f64> = sum.iter().map(|s| s / count).collect();
        let rows_again = rows.clone();
        // Two-pass variance: sum (v - mean)^2 over non-zeros, plus mean^2 for each zero.
        let mut nonzeros = vec![0usize; d];
        for i in rows {
            let (idx, val) = x.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                let j = j as usize;
                sum_sq[j] += (v - mean[j]) * (v - mean[j]);
                nonzeros[j] += 1;
            }
        }
        let mut mean = mean;
        let mut scale: Vec<f64> = (0..d)
            .map(|j| {
                let zeros = count - nonzeros[j] as f64;
                let var = (sum_sq[j] + zeros * mean[j] * mean[j]) / count;
                if var > 0.0 {
                    var.sqrt()
                } else {
                    1.0
                }
            })
            .collect();
        let overflowed: Vec<usize> = (0..d)
            .filter(|&j| !(mean[j].is_finite() && scale[j].is_finite()))
            .collect();
        if !overflowed.is_empty() {
            for (j, (m, s)) in scaled_moments(x, rows_again, &overflowed) {
                (mean[j], scale[j]) = (m, s);
            }
        }
        Ok(ColumnScaler { shift: mean, scale })
    }

    /// Maps each column's training range to `to` ([0, 1], or LIBSVM's `svm-scale` [-1, 1]); a
    /// constant column maps to 0 (`svm-scale` leaves it out). On [0, 1] the shift is the
    /// minimum and the scale the range, exactly.
    pub fn min_max(
        x: &CsrMatrix,
        rows: Range<usize>,
        to: RangeInclusive<f64>,
    ) -> Result<ColumnScaler> {
        let count = check_rows(x, &rows, "min-max")?;
        let d = x.n_cols();
        let (mut lo, mut hi) = (vec![f64::INFINITY; d], vec![f64::NEG_INFINITY; d]);
        let mut nonzeros = vec![0usize; d];
        for i in rows {
            let (idx, val) = x.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                let j = j as usize;
                lo[j] = lo[j].min(v);
                hi[j] = hi[j].max(v);
                nonzeros[j] += 1;
            }
        }
        for j in 0..d {
            if nonzeros[j] < count {
                lo[j] = lo[j].min(0.0);
                hi[j] = hi[j].max(0.0);
            }
        }
        // v' = lower + (upper - lower) (v - lo) / (hi - lo) = (v - shift) / scale.
        let width = to.end() - to.start();
        let (shift, scale) = lo
            .iter()
            .zip(&hi)
            .map(|(&l, &h)| match h > l {
                true => (l - to.start() * ((h - l) / width), (h - l) / width),
                false => (l, 1.0),
            })
            .unzip();
        Ok(ColumnScaler { shift, scale })
    }

    /// The scaled matrix, dense: centring makes every zero non-zero.
    pub fn transform(&self, x: &CsrMatrix) -> Result<Array2<f64>> {
        if x.n_cols() != self.shift.len() {
            return Err(DataError::Preprocess {
                step: "scaling",
                problem: format!(
                    "fitted on {} columns, applied to {}",
                    self.shift.len(),
                    x.n_cols()
                ),
            });
        }
        let mut out = Array2::zeros((x.n_rows(), x.n_cols()));
        for (i, mut row) in out.rows_mut().into_iter().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = -self.shift[j] / self.scale[j];
            }
            let (idx, val) = x.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                let j = j as usize;
                row[j] = (v - self.shift[j]) / self.scale[j];
            }
        }
        Ok(out)
    }
}

fn check_rows(x: &CsrMatrix, rows: &Range<usize>, step: &'static str) -> Result<usize> {
    if rows.is_empty() || rows.end > x.n_rows() {
        return Err(DataError::Preprocess {
            step,
            problem: format!(
                "the fitting rows {rows:?} are empty or beyond the {} rows",
                x.n_rows()
            ),
        });
    }
    Ok(rows.len())
}

/// Standardises with the statistics of the first `n_train` rows (the training set).
pub fn standardize(x: &CsrMatrix, n_train: usize) -> Result<Array2<f64>> {
    ColumnScaler::standardize(x, 0..n_train)?.transform(x)
}

/// Min-max scales with the range of the first `n_train` rows (the training set).
pub fn min_max(x: &CsrMatrix, n_train: usize) -> Result<Array2<f64>> {
    ColumnScaler::min_max(x, 0..n_train, 0.0..=1.0)?.transform(x)
}

/// The distance between two sparse rows (increasing column order) in `norm`, by merging.
fn row_distance(norm: Norm, a: (&[u32], &[f64]), b: (&[u32], &[f64])) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a.0.len() || j < b.0.len() {
        let diff = match (a.0.get(i), b.0.get(j)) {
            (Some(&ca), Some(&cb)) if ca == cb => {
                i += 1;
                j += 1;
                a.1[i - 1] - b.1[j - 1]
            }
            (Some(&ca), Some(&cb)) if ca < cb => {
                i += 1;
                a.1[i - 1]
            }
            (Some(_), None) => {
                i += 1;
                a.1[i - 1]
            }
            _ => {
                j += 1;
                -b.1[j - 1]
            }
        };
        sum += match norm {
            Norm::L1 => diff.abs(),
            Norm::L2 => diff * diff,
        };
    }
    match norm {
        Norm::L1 => sum,
        Norm::L2 => sum.sqrt(),
    }
}

/// The `percentile`-th percentile (0-100, linear interpolation between order statistics) of
/// the distances in `norm` of `n_pairs` random pairs of distinct rows, drawn with `seed` (the
/// same pairs whatever the norm). PRFF's bandwidth rule is `percentile = 5`; the median
/// heuristic `percentile = 50`.
pub fn distance_percentile(
    x: &CsrMatrix,
    norm: Norm,
    percentile: f64,
    n_pairs: usize,
    seed: u64,
) -> Result<f64> {
    distance_percentile_among(x, x.n_rows(), norm, percentile, n_pairs, seed)
}

/// [`distance_percentile`] of the first `rows` rows of `x` (a prepared dataset's training rows,
/// which come first), without copying them out.
pub fn distance_percentile_among(
    x: &CsrMatrix,
    rows: usize,
    norm: Norm,
    percentile: f64,
    n_pairs: usize,
    seed: u64,
) -> Result<f64> {
    let fail = |problem: String| DataError::Preprocess {
        step: "distance percentile",
        problem,
    };
    if !(0.0..=100.0).contains(&percentile) {
        return Err(fail(format!("percentile {percentile} is not in [0, 100]")));
    }
    let n = rows.min(x.n_rows());
    if n < 2 || n_pairs == 0 {
        return Err(fail(format!(
            "needs at least 2 rows and 1 pair, got {n} rows and {n_pairs} pairs"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut distances: Vec<f64> = (0..n_pairs)
        .map(|_| {
            let i = rng.random_range(0..n);
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            row_distance(norm, x.row_parts(i), x.row_parts(j))
        })
        .collect();
    distances.sort_by(f64::total_cmp);
    let pos = percentile / 100.0 * (distances.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Ok(distances[lo] + (pos - lo as f64) * (distances[hi] - distances[lo]))
}

/// `k` distinct indices of `0..n`, drawn with `seed`, in increasing order.
pub fn subsample_indices(n: usize, k: usize, seed: u64) -> Result<Vec<usize>> {
    if k > n {
        return Err(DataError::Preprocess {
            step: "subsample",
            problem: format!("cannot draw {k} rows out of {n}"),
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = index::sample(&mut rng, n, k).into_vec();
    rows.sort_unstable();
    Ok(rows)
}

/// The rows the `split` step sends to training and to testing, each in increasing order: a
/// `test_fraction` share, stratified by the labels `y` or not, drawn from `seed`. One function
/// for the step and for whoever writes a split down (`rfbench compare`'s `splits.json`).
pub fn split_rows(
    y: &[f64],
    test_fraction: f64,
    stratify: bool,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    if stratify {
        return stratified_split(y, test_fraction, seed);
    }
    let n = y.len();
    let test_size = ((n as f64) * test_fraction).round() as usize;
    random_split(n, test_size.clamp(1, n.saturating_sub(1)), seed)
}

/// A seeded random split of `0..n`: (train rows, test rows), each in increasing order.
pub fn random_split(n: usize, test_size: usize, seed: u64) -> Result<(Vec<usize>, Vec<usize>)> {
    let test = subsample_indices(n, test_size, seed)?;
    let mut is_test = vec![false; n];
    test.iter().for_each(|&i| is_test[i] = true);
    let train = (0..n).filter(|&i| !is_test[i]).collect();
    Ok((train, test))
}

/// A seeded split of the rows by their labels `y`: in each class (label value), a
/// `test_fraction` share of its rows, rounded, at least one when the class has two or more rows
/// and never all of them, goes to the test set. (train rows, test rows), each in increasing
/// order. Classes are visited in increasing label order, each with its own draw from `seed`.
pub fn stratified_split(
    y: &[f64],
    test_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let mut classes: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
    for (i, &label) in y.iter().enumerate() {
        // Label values as ordered keys: -0.0 and 0.0 are one class.
        let key = if label == 0.0 { 0.0f64 } else { label };
        let bits = key.to_bits();
        let ordered = if key < 0.0 { !bits } else { bits | (1 << 63) };
        classes.entry(ordered).or_default().push(i);
    }
    let mut is_test = vec![false; y.len()];
    for (k, rows) in classes.values().enumerate() {
        let m = rows.len();
        let wanted = ((m as f64) * test_fraction).round() as usize;
        let take = if m < 2 { 0 } else { wanted.clamp(1, m - 1) };
        let picked = subsample_indices(m, take, seed.wrapping_add(k as u64))?;
        picked.iter().for_each(|&j| is_test[rows[j]] = true);
    }
    let train = (0..y.len()).filter(|&i| !is_test[i]).collect();
    let test = (0..y.len()).filter(|&i| is_test[i]).collect();
    Ok((train, test))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rows_get_unit_norm_and_zero_rows_stay_zero() {
        let dense = array![
            [3.0, 0.0, -4.0],
            [0.0, 0.0, 0.0],
            [1e200, 1e200, 0.0],
            [0.0, 2.0, 0.0]
        ];
        let mut x = CsrMatrix::from_dense(dense.view()).unwrap();
        unit_norm(&mut x);
        let norms = x.row_norms();
        for (i, expected) in [1.0, 0.0, 1.0, 1.0].into_iter().enumerate() {
            assert!((norms[i] - expected).abs() < 1e-15, "row {i}: {}", norms[i]);
        }
        let row0 = x.row_parts(0).1;
        assert!(
            (row0[0] - 0.6).abs() < 1e-15 && (row0[1] + 0.8).abs() < 1e-15,
            "{row0:?}"
        );
        assert_eq!(x.row_parts(3).1, &[1.0]);
    }

    /// A column near the float range: its squares overflow, yet its mean and deviation are
    /// finite and its values standardise to finite numbers; the ordinary column beside it gets
    /// exactly the plain sums' statistics.
    #[test]
    fn a_column_near_the_float_range_standardises_to_finite_values() {
        let dense = array![[1e308, 1.0], [-1e308, 2.0], [1e308, 4.0], [0.0, 5.0]];
        let x = CsrMatrix::from_dense(dense.view()).unwrap();
        let scaler = ColumnScaler::standardize(&x, 0..4).unwrap();
        assert!(
            (scaler.shift[0] - 2.5e307).abs() <= 1e293,
            "{:?}",
            scaler.shift
        );
        // sd of [1, -1, 1, 0] x 1e308 around 0.25e308: sqrt(0.6875) x 1e308.
        let sd = 0.6875f64.sqrt() * 1e308;
        assert!(
            (scaler.scale[0] - sd).abs() <= 1e-12 * sd,
            "{:?}",
            scaler.scale
        );
        assert_eq!((scaler.shift[1], scaler.scale[1]), (3.0, 2.5f64.sqrt()));
        let z = scaler.transform(&x).unwrap();
        assert!(z.iter().all(|v| v.is_finite()), "{z:?}");
        assert!((z[[0, 0]] - 0.75e308 / sd).abs() < 1e-12, "{z:?}");
    }

    fn sample() -> CsrMatrix {
        let dense = array![
            [1.0, 0.0, 5.0],
            [3.0, 0.0, 5.0],
            [0.0, 4.0, 5.0],
            [10.0, -8.0, 0.0]
        ];
        CsrMatrix::from_dense(dense.view()).unwrap()
    }

    #[test]
    fn standardize_uses_train_statistics_only() {
        let x = sample();
        let z = standardize(&x, 3).unwrap();
        // Train column 0: 1, 3, 0 -> mean 4/3, population variance 14/9.
        let (m, s) = (4.0 / 3.0, (14.0f64 / 9.0).sqrt());
        for (i, v) in [1.0, 3.0, 0.0, 10.0].into_iter().enumerate() {
            assert!((z[[i, 0]] - (v - m) / s).abs() < 1e-12, "row {i}");
        }
        let train_mean: f64 = (0..3).map(|i| z[[i, 1]]).sum::<f64>() / 3.0;
        assert!(train_mean.abs() < 1e-12);
        // Column 2 is constant on the train rows: centred, not divided by zero.
        assert_eq!([z[[0, 2]], z[[3, 2]]], [0.0, -5.0]);
    }

    #[test]
    fn min_max_maps_the_train_range_to_unit_interval() {
        let z = min_max(&sample(), 3).unwrap();
        assert_eq!([z[[0, 0]], z[[1, 0]], z[[2, 0]]], [1.0 / 3.0, 1.0, 0.0]);
        assert_eq!(z[[3, 0]], 10.0 / 3.0, "test rows may leave [0, 1]");
        assert_eq!([z[[2, 1]], z[[3, 1]]], [1.0, -2.0]);
        assert!(min_max(&sample(), 0).is_err());
        assert!(ColumnScaler::min_max(&sample(), 0..9, 0.0..=1.0).is_err());
    }

    #[test]
    fn sparse_distance_matches_dense_in_both_norms() {
        let x = sample();
        let d = x.to_dense();
        for i in 0..4 {
            for j in 0..4 {
                let diff = &d.row(i) - &d.row(j);
                let l2 = diff.mapv(|v| v * v).sum().sqrt();
                let l1 = diff.mapv(f64::abs).sum();
                let sparse_l2 = row_distance(Norm::L2, x.row_parts(i), x.row_parts(j));
                let sparse_l1 = row_distance(Norm::L1, x.row_parts(i), x.row_parts(j));
                assert!((l2 - sparse_l2).abs() < 1e-12, "{i} {j}");
                assert!((l1 - sparse_l1).abs() < 1e-12, "{i} {j}");
            }
        }
    }

    #[test]
    fn distance_percentile_on_known_distances() {
        // Points 0, 1, 3 on a line: distances 1, 2, 3. Many pairs cover all three.
        let x = CsrMatrix::from_dense(array![[0.0], [1.0], [3.0]].view()).unwrap();
        assert_eq!(distance_percentile(&x, Norm::L2, 0.0, 500, 7).unwrap(), 1.0);
        assert_eq!(
            distance_percentile(&x, Norm::L2, 100.0, 500, 7).unwrap(),
            3.0
        );
        let p5 = distance_percentile(&x, Norm::L2, 5.0, 500, 7).unwrap();
        // Among the first rows: the same pairs as on those rows copied out (the largest
        // distance among rows 0 and 1 is 1, among all three 3).
        let first: Vec<usize> = (0..x.n_rows() - 1).collect();
        for percentile in [5.0, 100.0] {
            assert_eq!(
                distance_percentile_among(&x, first.len(), Norm::L2, percentile, 500, 7).unwrap(),
                distance_percentile(&x.select_rows(&first), Norm::L2, percentile, 500, 7).unwrap()
            );
        }
        assert_eq!(
            distance_percentile_among(&x, 2, Norm::L2, 100.0, 500, 7).unwrap(),
            1.0
        );
        assert_eq!(p5, 1.0, "a third of 500 pairs have distance 1");
        assert_eq!(p5, distance_percentile(&x, Norm::L2, 5.0, 500, 7).unwrap());
        assert!(distance_percentile(&x, Norm::L2, 101.0, 5, 7).is_err());
        // Points (0, 0), (1, 1): distance sqrt(2) in L2, 2 in L1, whatever the pair drawn.
        let y = CsrMatrix::from_dense(array![[0.0, 0.0], [1.0, 1.0]].view()).unwrap();
        assert_eq!(distance_percentile(&y, Norm::L1, 50.0, 9, 7).unwrap(), 2.0);
        let l2 = distance_percentile(&y, Norm::L2, 50.0, 9, 7).unwrap();
        assert!((l2 - 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn subsample_and_split_are_seeded_partitions() {
        let a = subsample_indices(1000, 100, 3).unwrap();
        assert_eq!(a, subsample_indices(1000, 100, 3).unwrap());
        assert_ne!(a, subsample_indices(1000, 100, 4).unwrap());
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a.len() == 100);
        assert!(subsample_indices(5, 6, 0).is_err());
        let (train, test) = random_split(50, 10, 1).unwrap();
        assert_eq!((train.len(), test.len()), (40, 10));
        let mut all: Vec<_> = train.iter().chain(&test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..50).collect::<Vec<_>>());
    }
}
