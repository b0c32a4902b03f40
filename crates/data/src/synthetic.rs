//! Synthetic data sources: generated, not downloaded, so they need no registry entry.
//!
//! - [`gaussian`]: i.i.d. N(0, 1) coordinates. PRFF's Fig. 1 measures kernel approximation error
//!   on such data, and Pham & Pagh's Fig. 2b uses it as "synthetic, d = D"; the kernel values
//!   depend only on pairwise distances, whose distribution is known in closed form for this data.
//! - [`make_classification`]: scikit-learn's `make_classification`, re-implemented from its
//!   documented algorithm (not its code), because the scikit-learn tutorial "Nystroem vs RFF"
//!   uses it (n = 100,000, d = 20, the defaults, a 75/25 split). The algorithm:
//!   1. `n_classes * n_clusters_per_class` clusters, each centred on a distinct vertex of the
//!      hypercube `{-class_sep, +class_sep}^n_informative`; cluster `k` has class `k % n_classes`
//!      and `n / n_clusters` rows, the remainder given one row each to the first clusters. The
//!      vertices are chosen, and ordered, as scikit-learn's `sample_without_replacement` does
//!      (see `distinct_codes`): with its defaults, cluster `k` is on vertex `k` in binary, so the
//!      two classes sit on opposite sides of the square, never on its diagonals.
//!   2. Each cluster's informative coordinates are N(0, I) times a random matrix `A_k` with
//!      entries uniform in [-1, 1] (a random covariance), plus the cluster's vertex.
//!   3. `n_redundant` columns are `X_informative B` with `B` uniform in [-1, 1].
//!   4. The remaining `d - n_informative - n_redundant` columns are N(0, 1) noise.
//!   5. Each label is, with probability `flip_y`, replaced by a uniformly random class (which
//!      may be the same class, as in scikit-learn).
//!   6. Rows are shuffled, then columns.
//!
//!   Scikit-learn's `n_repeated`, `weights`, `hypercube = False`, `shift` and `scale` are not
//!   offered: no experiment here uses them, and each would be one more path to test.
//!
//! Both take an explicit seed (ChaCha8) and give the same bits for the same seed. The test rows
//! are the last `n_test` rows; since rows are i.i.d. (gaussian) or shuffled (make_classification)
//! that is a random split.

use ndarray::{s, Array2, ArrayView2};
use rand::seq::{index, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};
use super::Dataset;

/// n rows of i.i.d. N(0, 1) coordinates in d dimensions (PRFF Fig. 1's data; Pham & Pagh Fig.
/// 2b's "synthetic, d = D"). Labels all 0.0. All rows are training rows unless n_test > 0 (the
/// last n_test rows are the test rows).
pub fn gaussian(n: usize, d: usize, n_test: usize, seed: u64) -> Result<Dataset> {
    const GENERATOR: &str = "gaussian";
    check_shape(GENERATOR, n, d, n_test)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = Array2::from_shape_simple_fn((n, d), || rng.sample::<f64, _>(StandardNormal));
    Ok(Dataset {
        name: GENERATOR.to_string(),
        x: to_csr(GENERATOR, x.view())?,
        y: vec![0.0; n],
        n_train: n - n_test,
    })
}

/// The parameters of [`make_classification`]; see the module doc for the algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct MakeClassification {
    /// Rows (train and test), at least 1.
    pub n: usize,
    /// Columns, at least `n_informative + n_redundant`.
    pub d: usize,
    /// Columns that carry the class structure, at least 1.
    pub n_informative: usize,
    /// Random linear combinations of the informative columns.
    pub n_redundant: usize,
    /// Classes, labelled 0..n_classes-1; at least 1.
    pub n_classes: usize,
    /// Gaussian clusters per class; `n_classes * n_clusters_per_class <= 2^n_informative`, since
    /// every cluster needs its own hypercube vertex.
    pub n_clusters_per_class: usize,
    /// Half the side of the hypercube; positive and finite.
    pub class_sep: f64,
    /// Fraction of labels replaced by a random class, in [0, 1].
    pub flip_y: f64,
    /// The last `n_test` rows are the test rows; less than `n`.
    pub n_test: usize,
}

impl Default for MakeClassification {
    /// Scikit-learn's defaults (`n_samples = 100`, `n_features = 20`, `n_informative = 2`,
    /// `n_redundant = 2`, `n_classes = 2`, `n_clusters_per_class = 2`, `class_sep = 1.0`,
    /// `flip_y = 0.01`), with no test rows.
    fn default() -> Self {
        MakeClassification {
            n: 100,
            d: 20,
            n_informative: 2,
            n_redundant: 2,
            n_classes: 2,
            n_clusters_per_class: 2,
            class_sep: 1.0,
            flip_y: 0.01,
            n_test: 0,
        }
    }
}

impl MakeClassification {
    const GENERATOR: &'static str = "make_classification";

    fn invalid(
        parameter: &'static str,
        value: impl ToString,
        problem: impl Into<String>,
    ) -> DataError {
        DataError::InvalidSynthetic {
            generator: Self::GENERATOR,
            parameter,
            value: value.to_string(),
            problem: problem.into(),
        }
    }

    /// Every rule of the field docs; the first one broken is the error.
    fn check(&self) -> Result<()> {
        check_shape(Self::GENERATOR, self.n, self.d, self.n_test)?;
        if self.n_informative == 0 {
            return Err(Self::invalid("n_informative", 0, "must be at least 1"));
        }
        if self.n_informative + self.n_redundant > self.d {
            return Err(Self::invalid(
                "n_redundant",
                self.n_redundant,
                format!(
                    "n_informative ({}) + n_redundant must be at most d ({})",
                    self.n_informative, self.d
                ),
            ));
        }
        if self.n_classes == 0 {
            return Err(Self::invalid("n_classes", 0, "must be at least 1"));
        }
        if self.n_clusters_per_class == 0 {
            return Err(Self::invalid(
                "n_clusters_per_class",
                0,
                "must be at least 1",
            ));
        }
        let clusters = self.n_classes.checked_mul(self.n_clusters_per_class);
        let vertices = 1usize
            .checked_shl(self.n_informative as u32)
            .filter(|&v| v > 0);
        let fits = match (clusters, vertices) {
            (Some(c), Some(v)) => c <= v,
            (Some(_), None) => true, // 2^n_informative exceeds usize: room for any count
            (None, _) => false,
        };
        if !fits {
            return Err(Self::invalid(
                "n_clusters_per_class",
                self.n_clusters_per_class,
                format!(
                    "n_classes ({}) * n_clusters_per_class must be at most 2^n_informative \
                     (2^{}), the number of hypercube vertices",
                    self.n_classes, self.n_informative
                ),
            ));
        }
        if !(self.class_sep.is_finite() && self.class_sep > 0.0) {
            return Err(Self::invalid(
                "class_sep",
                self.class_sep,
                "must be positive and finite",
            ));
        }
        if !(0.0..=1.0).contains(&self.flip_y) {
            return Err(Self::invalid("flip_y", self.flip_y, "must lie in [0, 1]"));
        }
        Ok(())
    }

    fn n_clusters(&self) -> usize {
        self.n_classes * self.n_clusters_per_class
    }
}

/// scikit-learn's make_classification, re-implemented from its documented algorithm (see the
/// module doc). Rows in random order; the last `n_test` rows are the test rows.
pub fn make_classification(params: &MakeClassification, seed: u64) -> Result<Dataset> {
    params.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let unshuffled = generate_unshuffled(params, &mut rng);
    let (n, d) = unshuffled.x.dim();
    let mut rows: Vec<usize> = (0..n).collect();
    rows.shuffle(&mut rng);
    let mut columns: Vec<usize> = (0..d).collect();
    columns.shuffle(&mut rng);
    let x = Array2::from_shape_fn((n, d), |(i, j)| unshuffled.x[[rows[i], columns[j]]]);
    let y = rows.iter().map(|&i| unshuffled.y[i]).collect();
    Ok(Dataset {
        name: MakeClassification::GENERATOR.to_string(),
        x: to_csr(MakeClassification::GENERATOR, x.view())?,
        y,
        n_train: n - params.n_test,
    })
}

/// The data before rows and columns are shuffled: columns are informative, redundant, noise in
/// that order, rows grouped by cluster. Kept separate so tests can check the structure that the
/// shuffle hides.
struct Unshuffled {
    x: Array2<f64>,
    y: Vec<f64>,
    /// The cluster of each row (read by the tests only: it is what the shuffle hides).
    #[cfg_attr(not(test), allow(dead_code))]
    cluster: Vec<usize>,
    /// One hypercube vertex (scaled to +-class_sep) per cluster, `n_clusters x n_informative`
    /// (read by the tests only).
    #[cfg_attr(not(test), allow(dead_code))]
    centroids: Array2<f64>,
}

fn generate_unshuffled(p: &MakeClassification, rng: &mut ChaCha8Rng) -> Unshuffled {
    let (n, d, k) = (p.n, p.d, p.n_informative);
    let n_clusters = p.n_clusters();
    let mut per_cluster = vec![n / n_clusters; n_clusters];
    for extra in per_cluster.iter_mut().take(n % n_clusters) {
        *extra += 1;
    }
    let centroids =
        hypercube_vertices(n_clusters, k, rng).mapv(
            |bit| {
                if bit {
                    p.class_sep
                } else {
                    -p.class_sep
                }
            },
        );

    let mut x = Array2::<f64>::zeros((n, d));
    x.slice_mut(s![.., ..k])
        .mapv_inplace(|_| rng.sample::<f64, _>(StandardNormal));
    let mut y = Vec::with_capacity(n);
    let mut cluster = Vec::with_capacity(n);
    let mut start = 0;
    for (c, &count) in per_cluster.iter().enumerate() {
        let rows = start..start + count;
        start += count;
        let covariance_factor = uniform_signed(k, k, rng);
        let mixed = x.slice(s![rows.clone(), ..k]).dot(&covariance_factor) + centroids.row(c);
        x.slice_mut(s![rows, ..k]).assign(&mixed);
        y.extend(std::iter::repeat_n((c % p.n_classes) as f64, count));
        cluster.extend(std::iter::repeat_n(c, count));
    }
    if p.n_redundant > 0 {
        let weights = uniform_signed(k, p.n_redundant, rng);
        let redundant = x.slice(s![.., ..k]).dot(&weights);
        x.slice_mut(s![.., k..k + p.n_redundant]).assign(&redundant);
    }
    x.slice_mut(s![.., k + p.n_redundant..])
        .mapv_inplace(|_| rng.sample::<f64, _>(StandardNormal));

    // All uniforms first, then the new classes, as scikit-learn draws them.
    let flipped: Vec<bool> = (0..n).map(|_| rng.random::<f64>() < p.flip_y).collect();
    for (label, _) in y.iter_mut().zip(&flipped).filter(|(_, &f)| f) {
        *label = rng.random_range(0..p.n_classes) as f64;
    }
    Unshuffled {
        x,
        y,
        cluster,
        centroids,
    }
}

/// `count` distinct codes in `0..population`, in the order scikit-learn's
/// `sample_without_replacement` gives them (its documented `method = "auto"`): when they are more
/// than 99 % of the population, by reservoir sampling, which starts from `0, 1, ..., count - 1` in
/// order and keeps that order for the codes it does not replace (all of them when `count =
/// population`); otherwise a uniformly random subset in random order (scikit-learn's permutation
/// or tracking selection, which have that distribution). The order matters: cluster `k` sits on
/// vertex `codes[k]` and has class `k % n_classes`, so with scikit-learn's defaults (4 clusters on
/// the 4 vertices of a square, 2 classes) the classes always sit on opposite sides of the square,
/// never on its diagonals (an XOR no linear model can separate), which a random order gives one
/// time in three (issue 27, item 5).
fn distinct_codes(population: usize, count: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    if (count as f64) <= 0.99 * population as f64 {
        return index::sample(rng, population, count).into_vec();
    }
    let mut codes: Vec<usize> = (0..count).collect();
    for code in count..population {
        let slot = rng.random_range(0..=code);
        if slot < count {
            codes[slot] = code;
        }
    }
    codes
}

/// `count` distinct vertices of the `dimensions`-cube as bits, one row per vertex. Above 30
/// dimensions only the last 30 coordinates are drawn without replacement and the rest are free
/// random bits (scikit-learn does the same): `count <= 2^30` vertices are then distinct through
/// their last 30 coordinates alone.
fn hypercube_vertices(count: usize, dimensions: usize, rng: &mut ChaCha8Rng) -> Array2<bool> {
    let exact = dimensions.min(30);
    let free = dimensions - exact;
    let codes = distinct_codes(1usize << exact, count, rng);
    let mut vertices = Array2::from_elem((count, dimensions), false);
    for (i, code) in codes.into_iter().enumerate() {
        for j in 0..free {
            vertices[[i, j]] = rng.random::<bool>();
        }
        for b in 0..exact {
            vertices[[i, free + b]] = (code >> (exact - 1 - b)) & 1 == 1;
        }
    }
    vertices
}

/// A `rows x cols` matrix with entries uniform in [-1, 1).
fn uniform_signed(rows: usize, cols: usize, rng: &mut ChaCha8Rng) -> Array2<f64> {
    Array2::from_shape_simple_fn((rows, cols), || 2.0 * rng.random::<f64>() - 1.0)
}

/// The rules every generator shares: at least one row and one column, and at least one
/// training row.
fn check_shape(generator: &'static str, n: usize, d: usize, n_test: usize) -> Result<()> {
    let invalid = |parameter, value: usize, problem: String| DataError::InvalidSynthetic {
        generator,
        parameter,
        value: value.to_string(),
        problem,
    };
    if n == 0 {
        return Err(invalid("n", n, "must be at least 1".into()));
    }
    if d == 0 {
        return Err(invalid("d", d, "must be at least 1".into()));
    }
    if n_test >= n {
        return Err(invalid(
            "n_test",
            n_test,
            format!("must be less than n ({n}), leaving at least one training row"),
        ));
    }
    Ok(())
}

fn to_csr(generator: &'static str, x: ArrayView2<'_, f64>) -> Result<CsrMatrix> {
    CsrMatrix::from_dense(x).map_err(|e| DataError::Preprocess {
        step: generator,
        problem: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(dataset: &Dataset) -> Array2<f64> {
        dataset.x.to_dense()
    }

    #[test]
    fn gaussian_shapes_and_split() {
        let data = gaussian(50, 7, 10, 3).unwrap();
        assert_eq!((data.x.n_rows(), data.x.n_cols()), (50, 7));
        assert_eq!(data.n_train, 40);
        assert_eq!(data.y, vec![0.0; 50]);
        assert_eq!(gaussian(5, 2, 0, 3).unwrap().n_train, 5);
    }

    #[test]
    fn gaussian_same_seed_same_bits_other_seed_differs() {
        let a = dense(&gaussian(30, 4, 0, 11).unwrap());
        let b = dense(&gaussian(30, 4, 0, 11).unwrap());
        let c = dense(&gaussian(30, 4, 0, 12).unwrap());
        assert!(a.iter().zip(&b).all(|(u, v)| u.to_bits() == v.to_bits()));
        assert!(a.iter().zip(&c).all(|(u, v)| u != v));
    }

    /// Per coordinate, the sample mean has standard error 1/sqrt(n) and the sample variance
    /// sqrt(2/(n-1)) (normal data). With 2 * 8 statistics, k = 4 leaves a chance of about
    /// 1e-3 that a correct generator fails for some seed (the seed is fixed, so it never
    /// flakes), while a wrong scale (variance 1/3 of a uniform, or 2 from a sqrt(2) slip) is
    /// off by more than 40 standard errors.
    #[test]
    fn gaussian_moments_within_four_standard_errors() {
        let (n, d, k) = (20_000, 8, 4.0);
        let x = dense(&gaussian(n, d, 0, 5).unwrap());
        let nf = n as f64;
        for j in 0..d {
            let column = x.column(j);
            let mean = column.sum() / nf;
            let variance = column.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (nf - 1.0);
            assert!(mean.abs() < k / nf.sqrt(), "column {j}: mean {mean}");
            assert!(
                (variance - 1.0).abs() < k * (2.0 / (nf - 1.0)).sqrt(),
                "column {j}: variance {variance}"
            );
        }
    }

    #[test]
    fn make_classification_shapes_split_and_labels() {
        let params = MakeClassification {
            n: 103,
            d: 9,
            n_informative: 3,
            n_classes: 3,
            n_test: 25,
            ..Default::default()
        };
        let data = make_classification(&params, 1).unwrap();
        assert_eq!((data.x.n_rows(), data.x.n_cols()), (103, 9));
        assert_eq!(data.n_train, 78);
        assert!(data.y.iter().all(|&y| y == 0.0 || y == 1.0 || y == 2.0));
    }

    #[test]
    fn make_classification_same_seed_same_bits_other_seed_differs() {
        let params = MakeClassification::default();
        let a = make_classification(&params, 7).unwrap();
        let b = make_classification(&params, 7).unwrap();
        let c = make_classification(&params, 8).unwrap();
        let bits = |m: &Array2<f64>| m.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dense(&a)), bits(&dense(&b)));
        assert_eq!(a.y, b.y);
        assert_ne!(bits(&dense(&a)), bits(&dense(&c)));
    }

    /// Before flipping, every class has n / n_classes rows (+-1 from the remainder). Each flip
    /// moves a row to a random class, so a class count moves by a sum of about n * flip_y
    /// +-1 steps: standard deviation at most sqrt(n * flip_y). Five of them is the tolerance.
    #[test]
    fn make_classification_classes_balanced() {
        let params = MakeClassification {
            n: 30_000,
            n_informative: 3,
            n_classes: 3,
            flip_y: 0.05,
            ..Default::default()
        };
        let data = make_classification(&params, 2).unwrap();
        let tolerance = 5.0 * (params.n as f64 * params.flip_y).sqrt() + 1.0;
        for class in 0..3 {
            let count = data.y.iter().filter(|&&y| y == class as f64).count() as f64;
            assert!(
                (count - 10_000.0).abs() < tolerance,
                "class {class}: {count} rows, tolerance {tolerance}"
            );
        }
        // Without flips the split is exact.
        let exact = make_classification(
            &MakeClassification {
                flip_y: 0.0,
                ..params
            },
            2,
        )
        .unwrap();
        for class in 0..3 {
            assert_eq!(
                exact.y.iter().filter(|&&y| y == class as f64).count(),
                10_000
            );
        }
    }

    /// Each cluster's informative coordinates are `Z A + c` with `Z` standard normal, so their
    /// mean is the vertex `c` with standard error `sqrt(sum_i A_ij^2 / n_k) <= sqrt(k / n_k)`
    /// per coordinate. The vertices are distinct points of `{-class_sep, +class_sep}^k`, so
    /// clusters of different classes differ by 2 * class_sep in at least one coordinate.
    #[test]
    fn cluster_means_sit_on_distinct_hypercube_vertices() {
        let params = MakeClassification {
            n: 40_000,
            d: 6,
            n_informative: 3,
            n_redundant: 1,
            n_classes: 4,
            n_clusters_per_class: 2,
            class_sep: 1.5,
            flip_y: 0.0,
            n_test: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let data = generate_unshuffled(&params, &mut rng);
        let k = params.n_informative;
        let mut seen = Vec::new();
        for c in 0..params.n_clusters() {
            let vertex = data.centroids.row(c).to_vec();
            assert!(
                vertex.iter().all(|v| v.abs() == params.class_sep),
                "{vertex:?}"
            );
            assert!(!seen.contains(&vertex), "vertex {vertex:?} used twice");
            seen.push(vertex.clone());
            let rows: Vec<usize> = (0..params.n).filter(|&i| data.cluster[i] == c).collect();
            assert_eq!(rows.len(), params.n / params.n_clusters());
            assert!(rows
                .iter()
                .all(|&i| data.y[i] == (c % params.n_classes) as f64));
            let standard_error = (k as f64 / rows.len() as f64).sqrt();
            for (j, &corner) in vertex.iter().enumerate() {
                let mean = rows.iter().map(|&i| data.x[[i, j]]).sum::<f64>() / rows.len() as f64;
                assert!(
                    (mean - corner).abs() < 5.0 * standard_error,
                    "cluster {c} coordinate {j}: mean {mean}, vertex {corner}"
                );
            }
        }
    }

    /// Max |residual| of the least-squares fit of `target` on the columns of `basis`, by the
    /// normal equations (small, well-conditioned `basis` here) and Gaussian elimination.
    fn least_squares_residual(basis: ArrayView2<'_, f64>, target: &[f64]) -> f64 {
        let k = basis.ncols();
        let mut system = Array2::<f64>::zeros((k, k + 1));
        for a in 0..k {
            for b in 0..k {
                system[[a, b]] = basis.column(a).dot(&basis.column(b));
            }
            system[[a, k]] = basis.column(a).iter().zip(target).map(|(u, v)| u * v).sum();
        }
        for pivot in 0..k {
            for row in 0..k {
                if row != pivot {
                    let factor = system[[row, pivot]] / system[[pivot, pivot]];
                    for col in 0..=k {
                        system[[row, col]] -= factor * system[[pivot, col]];
                    }
                }
            }
        }
        let coefficients: Vec<f64> = (0..k).map(|a| system[[a, k]] / system[[a, a]]).collect();
        (0..basis.nrows())
            .map(|i| {
                let fit: f64 = (0..k).map(|a| basis[[i, a]] * coefficients[a]).sum();
                (fit - target[i]).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn redundant_columns_are_linear_combinations_of_informative_ones() {
        let params = MakeClassification {
            n: 500,
            d: 8,
            n_informative: 3,
            n_redundant: 3,
            ..Default::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let data = generate_unshuffled(&params, &mut rng);
        let informative = data.x.slice(s![.., ..3]);
        for j in 3..8 {
            let column = data.x.column(j).to_vec();
            let residual = least_squares_residual(informative, &column);
            if j < 6 {
                assert!(residual < 1e-9, "redundant column {j}: residual {residual}");
            } else {
                // Noise: the fit cannot explain N(0, 1) values; a residual near 0 would mean
                // the noise columns were built from the informative ones.
                assert!(residual > 1.0, "noise column {j}: residual {residual}");
            }
        }
    }

    /// The public output is the unshuffled data with rows and columns permuted: every output
    /// column holds the values of a distinct unshuffled column, and the labels are the same
    /// multiset.
    #[test]
    fn output_is_a_permutation_of_the_unshuffled_data() {
        let params = MakeClassification {
            n: 200,
            d: 7,
            ..Default::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let unshuffled = generate_unshuffled(&params, &mut rng);
        let shuffled = make_classification(&params, 21).unwrap();
        let sorted = |v: Vec<f64>| {
            let mut v = v;
            v.sort_by(f64::total_cmp);
            v
        };
        let originals: Vec<Vec<f64>> = (0..7)
            .map(|j| sorted(unshuffled.x.column(j).to_vec()))
            .collect();
        let x = dense(&shuffled);
        let mut used = [false; 7];
        for j in 0..7 {
            let column = sorted(x.column(j).to_vec());
            let source = originals
                .iter()
                .position(|c| *c == column)
                .expect("no source column");
            assert!(!used[source]);
            used[source] = true;
        }
        assert_eq!(sorted(shuffled.y.clone()), sorted(unshuffled.y));
        // Rows are in random order: the labels are not grouped by cluster any more.
        let runs = shuffled.y.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(runs > 50, "{runs} label changes in 200 rows");
    }

    /// A flipped label is a uniformly random class, so a fraction flip_y * (1 - 1/n_classes) of
    /// labels differs from its cluster's class; binomial standard error, five of them.
    #[test]
    fn flip_y_changes_the_expected_fraction_of_labels() {
        let params = MakeClassification {
            n: 20_000,
            n_classes: 2,
            flip_y: 0.2,
            ..Default::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let data = generate_unshuffled(&params, &mut rng);
        let changed = (0..params.n)
            .filter(|&i| data.y[i] != (data.cluster[i] % 2) as f64)
            .count() as f64
            / params.n as f64;
        let expected = 0.2 * 0.5;
        let standard_error = (expected * (1.0 - expected) / params.n as f64).sqrt();
        assert!(
            (changed - expected).abs() < 5.0 * standard_error,
            "{changed}"
        );
    }

    /// scikit-learn's order (its documented `sample_without_replacement`): all of the codes come
    /// in order, a reservoir above 99 % of them keeps the first ones where they are not replaced,
    /// and a smaller sample is random in order and in content. With the defaults the two classes
    /// are then never on a diagonal of the square (the first informative coordinate, code bit 1,
    /// is the same for clusters 0 and 1 and for 2 and 3; the class alternates with bit 0).
    #[test]
    fn vertices_come_in_scikit_learns_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20 {
            assert_eq!(distinct_codes(4, 4, &mut rng), vec![0, 1, 2, 3]);
        }
        // 199 of 200: each code below 199 stays in its slot unless code 199 replaced it.
        let reservoir = distinct_codes(200, 199, &mut rng);
        let moved: Vec<usize> = (0..199).filter(|&k| reservoir[k] != k).collect();
        assert!(moved.len() <= 1 && moved.iter().all(|&k| reservoir[k] == 199));
        let mut orders = std::collections::HashSet::new();
        for _ in 0..50 {
            let codes = distinct_codes(16, 4, &mut rng);
            let mut sorted = codes.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 4);
            orders.insert(codes);
        }
        assert!(
            orders.len() > 40,
            "a 4-of-16 sample must vary: {} distinct",
            orders.len()
        );
        let params = MakeClassification {
            n: 400,
            ..MakeClassification::default()
        };
        for seed in 0..10 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let data = generate_unshuffled(&params, &mut rng);
            for (k, vertex) in data.centroids.rows().into_iter().enumerate() {
                // Vertex k in binary, most significant bit first: (bit 1, bit 0) of k.
                assert_eq!(vertex[0] > 0.0, k & 2 != 0, "seed {seed}, cluster {k}");
                assert_eq!(vertex[1] > 0.0, k & 1 != 0, "seed {seed}, cluster {k}");
            }
        }
    }

    #[test]
    fn hypercube_vertices_are_distinct_above_thirty_dimensions() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let vertices = hypercube_vertices(64, 40, &mut rng);
        let rows: Vec<Vec<bool>> = vertices.rows().into_iter().map(|r| r.to_vec()).collect();
        for a in 0..rows.len() {
            for b in a + 1..rows.len() {
                assert_ne!(rows[a], rows[b]);
            }
        }
        // All 2^3 vertices when every one is needed.
        let all = hypercube_vertices(8, 3, &mut rng);
        let mut codes: Vec<usize> = all
            .rows()
            .into_iter()
            .map(|r| r.iter().fold(0, |code, &bit| 2 * code + bit as usize))
            .collect();
        codes.sort();
        assert_eq!(codes, (0..8).collect::<Vec<_>>());
    }

    fn invalid_parameter(err: DataError) -> (&'static str, &'static str, String) {
        match err {
            DataError::InvalidSynthetic {
                generator,
                parameter,
                value,
                ..
            } => (generator, parameter, value),
            other => panic!("expected InvalidSynthetic, got {other}"),
        }
    }

    #[test]
    fn gaussian_parameter_errors_name_the_parameter_and_value() {
        let cases = [
            ((0, 3, 0), "n", "0"),
            ((4, 0, 0), "d", "0"),
            ((4, 3, 4), "n_test", "4"),
        ];
        for ((n, d, n_test), parameter, value) in cases {
            let err = gaussian(n, d, n_test, 0).unwrap_err();
            assert_eq!(
                invalid_parameter(err),
                ("gaussian", parameter, value.to_string())
            );
        }
    }

    #[test]
    fn make_classification_parameter_errors_name_the_parameter_and_value() {
        let base = MakeClassification::default();
        let cases = [
            (
                MakeClassification {
                    n: 0,
                    ..base.clone()
                },
                "n",
                "0",
            ),
            (
                MakeClassification {
                    d: 0,
                    ..base.clone()
                },
                "d",
                "0",
            ),
            (
                MakeClassification {
                    n_test: 100,
                    ..base.clone()
                },
                "n_test",
                "100",
            ),
            (
                MakeClassification {
                    n_informative: 0,
                    ..base.clone()
                },
                "n_informative",
                "0",
            ),
            (
                MakeClassification {
                    d: 3,
                    ..base.clone()
                },
                "n_redundant",
                "2",
            ),
            (
                MakeClassification {
                    n_classes: 0,
                    ..base.clone()
                },
                "n_classes",
                "0",
            ),
            (
                MakeClassification {
                    n_clusters_per_class: 0,
                    ..base.clone()
                },
                "n_clusters_per_class",
                "0",
            ),
            // 3 classes x 2 clusters need 6 vertices; a square has 4.
            (
                MakeClassification {
                    n_classes: 3,
                    ..base.clone()
                },
                "n_clusters_per_class",
                "2",
            ),
            (
                MakeClassification {
                    n_clusters_per_class: usize::MAX,
                    ..base.clone()
                },
                "n_clusters_per_class",
                "18446744073709551615",
            ),
            (
                MakeClassification {
                    class_sep: 0.0,
                    ..base.clone()
                },
                "class_sep",
                "0",
            ),
            (
                MakeClassification {
                    class_sep: -1.0,
                    ..base.clone()
                },
                "class_sep",
                "-1",
            ),
            (
                MakeClassification {
                    class_sep: f64::NAN,
                    ..base.clone()
                },
                "class_sep",
                "NaN",
            ),
            (
                MakeClassification {
                    class_sep: f64::INFINITY,
                    ..base.clone()
                },
                "class_sep",
                "inf",
            ),
            (
                MakeClassification {
                    flip_y: -0.1,
                    ..base.clone()
                },
                "flip_y",
                "-0.1",
            ),
            (
                MakeClassification {
                    flip_y: 1.5,
                    ..base.clone()
                },
                "flip_y",
                "1.5",
            ),
            (
                MakeClassification {
                    flip_y: f64::NAN,
                    ..base.clone()
                },
                "flip_y",
                "NaN",
            ),
        ];
        for (params, parameter, value) in cases {
            let err = make_classification(&params, 0).unwrap_err();
            let message = err.to_string();
            assert_eq!(
                invalid_parameter(err),
                ("make_classification", parameter, value.to_string()),
                "{params:?}"
            );
            assert!(message.contains(parameter), "{message}");
        }
        // The edges of the ranges are valid.
        let edges = [
            MakeClassification {
                flip_y: 0.0,
                ..base.clone()
            },
            MakeClassification {
                flip_y: 1.0,
                ..base.clone()
            },
            MakeClassification {
                d: 4,
                ..base.clone()
            },
            MakeClassification {
                n_test: 99,
                ..base.clone()
            },
            MakeClassification {
                n_informative: 70,
                d: 72,
                ..base.clone()
            },
        ];
        for params in edges {
            make_classification(&params, 0).unwrap();
        }
    }
}
