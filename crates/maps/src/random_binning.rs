//! Random binning features (Rahimi & Recht, NIPS 2007, Sec. 4 and Algorithm 2) for the Laplacian
//! kernel `k(x, y) = exp(-|x - y|_1 / sigma)`.
//!
//! **Estimator.** A grid on the real line with pitch `delta` and shift `u ~ U[0, delta)` puts `x`
//! in bin `floor((x - u) / delta)`; two points share a bin with probability
//! `max(0, 1 - |x - y| / delta)` (the hat kernel). With `delta ~ Gamma(shape 2, scale sigma)`,
//! density `delta exp(-delta / sigma) / sigma^2`, the mixture of hat kernels is
//! `exp(-|x - y| / sigma)`. A `d`-dimensional grid draws one independent `(delta_i, u_i)` per
//! dimension, so two points share a `d`-dimensional bin (the tuple of the `d` bin indices) with
//! probability `prod_i exp(-|x_i - y_i| / sigma) = k(x, y)`. `P` independent grids, each a one-hot
//! indicator of the point's bin scaled by `1 / sqrt(P)`, give
//! `<z(x), z(y)> = (number of grids in which x and y share a bin) / P`, an average of `P` independent
//! Bernoulli(`k(x, y)`) variables: **unbiased**, variance `k (1 - k) / P`.
//!
//! **Hashing.** The bins of a grid are unbounded in number, so each grid's bin tuple is hashed to
//! one of `width` columns and the map has `D = P * width` columns with exactly `P` non-zeros per
//! row; empty bins cost nothing. Two *different* bins that hash to the same column look like a shared
//! bin, so with hashing `E[<z(x), z(y)>] = k + (1 - k) q` where `q` is the collision probability
//! of two distinct bins, about `1 / width`: a positive bias of at most `1 / width`. The default
//! width `2^20` makes it about `1e-6`; a learner that stores the weights densely pays `P * width`
//! memory, so lower the width when that matters and accept the bias.
//!
//! The hash of a bin tuple `(b_1, .., b_d)` is `mix(sum_i h(i, b_i))` (wrapping 64-bit sums of
//! per-coordinate hashes): a sparse row only has to correct the terms of its non-zero coordinates
//! against the precomputed hash of the all-zero point, so the map costs `O(P nnz(x))` per sparse
//! row and `O(P d)` per dense row.
//!
//! **Cost.** Fit: `O(P d)` draws and `O(P d)` memory. Transform: as above; output `P` non-zeros
//! per row, natural as a [`CsrMatrix`] ([`RandomBinning::transform_sparse`]); the dense
//! [`FeatureMap`] output has `P * width` columns.

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::csr::{CsrMatrix, Row, Rows};
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::kernels::{check_positive, Kernel};
use crate::seeds::{mix64 as mix, GOLDEN_GAMMA};

/// The default seed: maps are deterministic unless the caller asks for another draw.
pub const DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0b1e;

/// The default number of hash columns per grid.
pub const DEFAULT_WIDTH: usize = 1 << 20;

/// Unchecked hyper-parameters of [`RandomBinning`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomBinningParams {
    n_grids: usize,
    sigma: f64,
    width: usize,
    seed: u64,
}

/// Checked hyper-parameters: `n_grids >= 1`, `sigma` finite and `> 0`, `width >= 1`,
/// `n_grids * width <= u32::MAX` (the column indices of [`CsrMatrix`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RandomBinningValidParams(RandomBinningParams);

impl RandomBinningParams {
    /// `P = n_grids` grids for `exp(-|x - y|_1 / sigma)`; width `2^20`, default seed.
    pub fn new(n_grids: usize, sigma: f64) -> Self {
        Self {
            n_grids,
            sigma,
            width: DEFAULT_WIDTH,
            seed: DEFAULT_SEED,
        }
    }

    /// Number of hash columns per grid: hash collisions bias the kernel up by about `1 / width`.
    pub fn width(mut self, width: usize) -> Self {
        self.width = width;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// `n_grids` grids for `kernel`, which must be Laplacian, else
    /// [`MapError::UnsupportedKernel`].
    pub fn for_kernel(kernel: &Kernel, n_grids: usize) -> Result<Self> {
        kernel.check()?;
        match *kernel {
            Kernel::Laplacian { sigma } => Ok(Self::new(n_grids, sigma)),
            _ => Err(MapError::UnsupportedKernel {
                map: "RandomBinning",
                kernel: kernel.name(),
            }),
        }
    }

    pub fn check(self) -> Result<RandomBinningValidParams> {
        if self.n_grids == 0 {
            return Err(MapError::ZeroGrids(self.n_grids));
        }
        check_positive("laplacian", "sigma", self.sigma)?;
        if self.width == 0 {
            return Err(MapError::ZeroWidth(self.width));
        }
        if self
            .n_grids
            .checked_mul(self.width)
            .is_none_or(|total| total > u32::MAX as usize)
        {
            return Err(MapError::BinningTooWide {
                n_grids: self.n_grids,
                width: self.width,
            });
        }
        Ok(RandomBinningValidParams(self))
    }

    /// `check()` then `fit(input_dim)`.
    pub fn fit(self, input_dim: usize) -> Result<RandomBinning> {
        self.check()?.fit(input_dim)
    }
}

impl RandomBinningValidParams {
    /// Draws every grid's pitches, shifts and hash key.
    pub fn fit(&self, input_dim: usize) -> Result<RandomBinning> {
        let p = &self.0;
        if input_dim == 0 {
            return Err(MapError::ZeroInputDim(input_dim));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let gamma = Gamma::new(2.0, p.sigma).expect("sigma checked finite and > 0");
        let mut grids = Vec::with_capacity(p.n_grids);
        for _ in 0..p.n_grids {
            let mut pitches = Vec::with_capacity(input_dim);
            let mut shifts = Vec::with_capacity(input_dim);
            for _ in 0..input_dim {
                // A pitch of exactly 0 has probability 0 but floating point can round to it;
                // the smallest positive pitch keeps the bin index finite (it saturates).
                let delta: f64 = gamma.sample(&mut rng).max(f64::MIN_POSITIVE);
                pitches.push(delta);
                shifts.push(rng.random::<f64>() * delta);
            }
            let key = rng.random::<u64>();
            grids.push(Grid::new(pitches, shifts, key));
        }
        Ok(RandomBinning {
            params: p.clone(),
            input_dim,
            grids,
        })
    }
}

/// `floor((x - u) / delta)`; saturates at the `i64` range for absurd ratios instead of wrapping.
#[inline]
fn bin_index(x: f64, shift: f64, pitch: f64) -> i64 {
    ((x - shift) / pitch).floor() as i64
}

/// Hash of "coordinate `i` is in bin `b`" under a grid's key.
#[inline]
fn coordinate_hash(key: u64, i: usize, bin: i64) -> u64 {
    mix(mix(key ^ (i as u64).wrapping_mul(GOLDEN_GAMMA)).wrapping_add(bin as u64))
}

/// One grid; serialised without `zero_hash`, which is recomputed when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "GridData")]
struct Grid {
    #[serde(with = "crate::packed::vec")]
    pitches: Vec<f64>,
    #[serde(with = "crate::packed::vec")]
    shifts: Vec<f64>,
    key: u64,
    /// `sum_i h(i, bin of 0 in dimension i)`, the hash sum of the origin's bin.
    #[serde(skip_serializing)]
    zero_hash: u64,
}

/// The serialised form of [`Grid`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridData {
    #[serde(with = "crate::packed::vec")]
    pitches: Vec<f64>,
    #[serde(with = "crate::packed::vec")]
    shifts: Vec<f64>,
    key: u64,
}

impl TryFrom<GridData> for Grid {
    type Error = MapError;

    fn try_from(data: GridData) -> Result<Self> {
        let GridData {
            pitches,
            shifts,
            key,
        } = data;
        ensure(
            pitches.len() == shifts.len()
                && pitches.iter().all(|&p| p.is_finite() && p > 0.0)
                && shifts.iter().all(|u| u.is_finite()),
            "RandomBinning grid",
            || "pitches and shifts must be as many, finite, pitches > 0".into(),
        )?;
        Ok(Self::new(pitches, shifts, key))
    }
}

impl Grid {
    fn new(pitches: Vec<f64>, shifts: Vec<f64>, key: u64) -> Self {
        let zero_hash = (0..pitches.len()).fold(0u64, |acc, i| {
            acc.wrapping_add(coordinate_hash(
                key,
                i,
                bin_index(0.0, shifts[i], pitches[i]),
            ))
        });
        Self {
            pitches,
            shifts,
            key,
            zero_hash,
        }
    }

    /// The bin tuple of `row`, hashed to `0..width`.
    fn column(&self, row: &Row<'_>, width: usize) -> usize {
        let mut sum = self.zero_hash;
        row.for_each_nonzero(|i, x| {
            let (u, delta) = (self.shifts[i], self.pitches[i]);
            sum = sum
                .wrapping_sub(coordinate_hash(self.key, i, bin_index(0.0, u, delta)))
                .wrapping_add(coordinate_hash(self.key, i, bin_index(x, u, delta)));
        });
        // Multiply-shift of the mixed sum onto 0..width (unbiased up to 2^-64 per column).
        ((mix(sum) as u128 * width as u128) >> 64) as usize
    }
}

/// A fitted random binning map. Serialisable (serde), checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RandomBinningData")]
pub struct RandomBinning {
    params: RandomBinningParams,
    input_dim: usize,
    grids: Vec<Grid>,
}

/// The serialised form of [`RandomBinning`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomBinningData {
    params: RandomBinningParams,
    input_dim: usize,
    grids: Vec<Grid>,
}

impl TryFrom<RandomBinningData> for RandomBinning {
    type Error = MapError;

    fn try_from(data: RandomBinningData) -> Result<Self> {
        let RandomBinningData {
            params,
            input_dim,
            grids,
        } = data;
        params.clone().check()?;
        ensure(
            input_dim >= 1
                && grids.len() == params.n_grids
                && grids.iter().all(|g| g.pitches.len() == input_dim),
            "RandomBinning",
            || {
                format!(
                    "{} grids for P = {}, each must have d = {input_dim} pitches",
                    grids.len(),
                    params.n_grids
                )
            },
        )?;
        Ok(Self {
            params,
            input_dim,
            grids,
        })
    }
}

impl RandomBinning {
    pub fn n_grids(&self) -> usize {
        self.params.n_grids
    }

    pub fn width(&self) -> usize {
        self.params.width
    }

    /// The pitch `delta` of grid `g` in dimension `i`.
    pub fn pitch(&self, g: usize, i: usize) -> f64 {
        self.grids[g].pitches[i]
    }

    /// The shift `u` of grid `g` in dimension `i`.
    pub fn shift(&self, g: usize, i: usize) -> f64 {
        self.grids[g].shifts[i]
    }

    /// The output column of `row` in every grid (`g * width + hashed bin`), increasing in `g`.
    fn columns(&self, row: &Row<'_>, out: &mut [u32]) {
        let width = self.params.width;
        for (g, (grid, o)) in self.grids.iter().zip(out.iter_mut()).enumerate() {
            *o = (g * width + grid.column(row, width)) as u32;
        }
    }

    /// The features as an `n x (P * width)` sparse matrix with exactly `P` entries `1 / sqrt(P)`
    /// per row: the natural output, `P` numbers per row instead of `P * width`.
    pub fn transform_sparse<'a>(&self, rows: impl Into<Rows<'a>>) -> Result<CsrMatrix> {
        let rows = rows.into();
        if rows.n_cols() != self.input_dim {
            return Err(MapError::DimensionMismatch {
                expected: self.input_dim,
                got: rows.n_cols(),
            });
        }
        rows.check_finite()?;
        let p = self.params.n_grids;
        let mut indices = vec![0u32; rows.n_rows() * p];
        indices
            .par_chunks_mut(p)
            .enumerate()
            .for_each(|(i, out)| self.columns(&rows.row(i), out));
        let indptr = (0..=rows.n_rows()).map(|i| i * p).collect();
        let values = vec![1.0 / (p as f64).sqrt(); indices.len()];
        CsrMatrix::new(self.output_dim(), indptr, indices, values)
    }

    /// `<z(x_i), z(y_j)>` for every pair, from the sparse features: the fraction of grids in which
    /// the two points share a (hashed) bin.
    pub fn approximate_kernel<'a, 'b>(
        &self,
        x: impl Into<Rows<'a>>,
        y: impl Into<Rows<'b>>,
    ) -> Result<Array2<f64>> {
        let (zx, zy) = (self.transform_sparse(x)?, self.transform_sparse(y)?);
        Ok(Array2::from_shape_fn(
            (zx.n_rows(), zy.n_rows()),
            |(i, j)| zx.row(i).dot(&zy.row(j)),
        ))
    }
}

impl FeatureMap for RandomBinning {
    /// Every grid's pitches and shifts (`16 d` bytes) and hash key.
    fn memory_bytes(&self) -> usize {
        self.grids
            .iter()
            .map(|g| {
                (g.pitches.len() + g.shifts.len()) * std::mem::size_of::<f64>()
                    + std::mem::size_of::<u64>()
            })
            .sum()
    }

    /// The column of the row in every grid.
    type Scratch = Vec<u32>;

    fn input_dim(&self) -> usize {
        self.input_dim
    }

    fn output_dim(&self) -> usize {
        self.params.n_grids * self.params.width
    }

    fn new_scratch(&self) -> Vec<u32> {
        vec![0; self.params.n_grids]
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64], columns: &mut Vec<u32>) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.columns(row, columns);
        let value = 1.0 / (self.params.n_grids as f64).sqrt();
        for &c in columns.iter() {
            out[c as usize] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};

    /// The bin tuple of `x` in grid `g`, computed from the definition over every coordinate.
    fn naive_bins(map: &RandomBinning, g: usize, x: &Array1<f64>) -> Vec<i64> {
        (0..x.len())
            .map(|i| ((x[i] - map.shift(g, i)) / map.pitch(g, i)).floor() as i64)
            .collect()
    }

    fn laplacian(x: &Array1<f64>, y: &Array1<f64>, sigma: f64) -> f64 {
        (-(x - y).mapv(f64::abs).sum() / sigma).exp()
    }

    fn random_points(n: usize, d: usize, scale: f64, seed: u64) -> Array2<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Array2::from_shape_fn((n, d), |_| {
            if rng.random::<f64>() < 0.3 {
                0.0
            } else {
                rng.random_range(-scale..scale)
            }
        })
    }

    /// `<z(x), z(y)>` is exactly the fraction of grids in which the naive bin tuples agree, and
    /// every grid's columns agree exactly when the tuples do (no collision at this width).
    #[test]
    fn inner_products_count_shared_bins() {
        let (n, d, grids) = (12, 5, 300);
        let x = random_points(n, d, 1.0, 1);
        let map = RandomBinningParams::new(grids, 1.5).seed(3).fit(d).unwrap();
        let z = map.transform_sparse(&x).unwrap();
        assert_eq!(z.n_cols(), grids * DEFAULT_WIDTH);
        for i in 0..n {
            assert_eq!(z.row_parts(i).0.len(), grids);
            for j in 0..n {
                let (xi, xj) = (x.row(i).to_owned(), x.row(j).to_owned());
                let mut shared = 0;
                for g in 0..grids {
                    let same = naive_bins(&map, g, &xi) == naive_bins(&map, g, &xj);
                    let same_column = z.row_parts(i).0[g] == z.row_parts(j).0[g];
                    assert_eq!(same, same_column, "points {i}, {j}, grid {g}");
                    shared += same as usize;
                }
                let dot = z.row(i).dot(&z.row(j));
                assert!((dot - shared as f64 / grids as f64).abs() < 1e-12);
            }
        }
        // Points this close share a bin in some but not all grids: the test is not vacuous.
        let dot01 = z.row(0).dot(&z.row(1));
        assert!(dot01 > 0.0 && dot01 < 1.0, "{dot01}");
    }

    /// With many grids the estimate approaches `exp(-|x - y|_1 / sigma)`: it is a mean of `P`
    /// Bernoulli(k) variables (plus a collision bias below `1 / width` < 1e-5), so its standard
    /// deviation is `sqrt(k (1 - k) / P)`; we allow 4 of them plus the bias bound. (`P * width`
    /// must fit `u32` column indices, hence width `2^17` here.)
    #[test]
    fn mean_over_grids_approaches_laplacian_kernel() {
        let (d, grids, sigma, width) = (4, 20_000, 2.0, 1 << 17);
        let map = RandomBinningParams::new(grids, sigma)
            .width(width)
            .seed(7)
            .fit(d)
            .unwrap();
        let x = random_points(6, d, 1.0, 8);
        let z = map.approximate_kernel(&x, &x).unwrap();
        let mut tested = 0;
        for i in 0..6 {
            for j in 0..6 {
                let k = laplacian(&x.row(i).to_owned(), &x.row(j).to_owned(), sigma);
                let sd = (k * (1.0 - k) / grids as f64).sqrt();
                let tolerance = 4.0 * sd + 1.0 / width as f64 + 1e-12;
                assert!(
                    (z[[i, j]] - k).abs() <= tolerance,
                    "({i}, {j}): {} vs {k} (sd {sd})",
                    z[[i, j]]
                );
                tested += (k < 0.95) as usize;
            }
        }
        assert!(tested > 10);
    }

    /// The pitches follow Gamma(2, sigma): mean `2 sigma`, variance `2 sigma^2`; the sample mean of
    /// `n` pitches lies within 5 standard errors `sqrt(2 / n) sigma`. Shifts lie in `[0, delta)`.
    #[test]
    fn pitches_and_shifts_have_the_right_distribution() {
        let (grids, d, sigma) = (500, 20, 0.7);
        let map = RandomBinningParams::new(grids, sigma)
            .seed(9)
            .fit(d)
            .unwrap();
        let n = (grids * d) as f64;
        let mut sum = 0.0;
        for g in 0..grids {
            for i in 0..d {
                sum += map.pitch(g, i);
                assert!(map.shift(g, i) >= 0.0 && map.shift(g, i) < map.pitch(g, i));
            }
        }
        let se = (2.0 / n).sqrt() * sigma;
        assert!((sum / n - 2.0 * sigma).abs() < 5.0 * se, "{}", sum / n);
    }

    /// A narrow width makes the collision bias visible: far-apart points (k ~ 0) collide in about
    /// `1 / width` of the grids, i.e. binomial(P, 1/width): mean P/width = 500, sd ~ 21.
    #[test]
    fn narrow_width_collisions_match_the_documented_bias() {
        let (grids, width) = (4000, 8);
        let map = RandomBinningParams::new(grids, 0.01)
            .width(width)
            .seed(5)
            .fit(3)
            .unwrap();
        let x = ndarray::array![[0.0, 0.0, 0.0], [10.0, -10.0, 10.0]];
        let z = map.approximate_kernel(&x, &x).unwrap();
        let expected = 1.0 / width as f64;
        let sd = (expected * (1.0 - expected) / grids as f64).sqrt();
        assert!((z[[0, 1]] - expected).abs() < 5.0 * sd, "{}", z[[0, 1]]);
        assert!((z[[0, 0]] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn dense_sparse_and_csr_outputs_agree() {
        let d = 7;
        let x = random_points(40, d, 2.0, 11);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let map = RandomBinningParams::new(16, 1.0)
            .width(64)
            .seed(12)
            .fit(d)
            .unwrap();
        let dense = map.transform(&x).unwrap();
        assert_eq!(dense, map.transform(&csr).unwrap());
        assert_eq!(dense, map.transform_sparse(&x).unwrap().to_dense());
        assert_eq!(
            map.transform_sparse(&csr).unwrap(),
            map.transform_sparse(&x).unwrap()
        );
    }

    #[test]
    fn invalid_parameters_are_errors() {
        assert_eq!(
            RandomBinningParams::new(0, 1.0).check().unwrap_err(),
            MapError::ZeroGrids(0)
        );
        for sigma in [0.0, -1.0, f64::INFINITY] {
            assert_eq!(
                RandomBinningParams::new(3, sigma).check().unwrap_err(),
                MapError::InvalidKernelParameter {
                    kernel: "laplacian",
                    parameter: "sigma",
                    value: sigma,
                    valid: "finite and > 0"
                }
            );
        }
        assert!(matches!(
            RandomBinningParams::new(3, f64::NAN).check(),
            Err(MapError::InvalidKernelParameter { value, .. }) if value.is_nan()
        ));
        assert_eq!(
            RandomBinningParams::new(3, 1.0)
                .width(0)
                .check()
                .unwrap_err(),
            MapError::ZeroWidth(0)
        );
        assert_eq!(
            RandomBinningParams::new(5000, 1.0).check().unwrap_err(),
            MapError::BinningTooWide {
                n_grids: 5000,
                width: DEFAULT_WIDTH
            }
        );
        assert_eq!(
            RandomBinningParams::new(3, 1.0).fit(0).unwrap_err(),
            MapError::ZeroInputDim(0)
        );
        let map = RandomBinningParams::new(3, 1.0).fit(2).unwrap();
        assert_eq!(
            map.transform_sparse(&Array2::zeros((1, 3))).unwrap_err(),
            MapError::DimensionMismatch {
                expected: 2,
                got: 3
            }
        );
        let bad = ndarray::array![[1.0, f64::INFINITY]];
        assert!(matches!(
            map.transform_sparse(&bad),
            Err(MapError::NonFinite { row: 0, col: 1, .. })
        ));
    }
}
