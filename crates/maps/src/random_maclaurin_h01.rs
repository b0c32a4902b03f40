//! Random Maclaurin features with the H0/1 heuristic (Kar & Karnick 2012; Pham & Pagh 2013,
//! Sec. 6.4) for the polynomial kernel `f(<x, y>) = (<x, y> + c)^p`.
//!
//! **Features.** The terms of degree 0 and 1 of `f(t) = sum_n a_n t^n`, `a_n = C(p, n) c^(p-n)`,
//! are cheap to compute exactly, and in plain Random Maclaurin they are where most features go
//! (`P[N <= 1] = 3/4`). H0/1 writes them out as `d + 1` explicit features,
//!
//! `z(x) = [sqrt(a_0), sqrt(a_1) x_1, .., sqrt(a_1) x_d, r_1(x), .., r_D(x)]`,
//!
//! `sqrt(a_0) = sqrt(c^p)`, `sqrt(a_1) = sqrt(p c^(p-1))` (`0^0 = 1`), and spends the `D` random
//! features `r_j` on the rest, `R(t) = sum_{n >= 2} a_n t^n`. Output dimension `d + 1 + D`.
//!
//! **Estimator of the rest.** Each `r_j` draws `N = 2 + G` with `P[G = g] = 2^-(g+1)`, i.e.
//! `P[N = n] = 2^-(n-1)` for `n >= 2` (the geometric law of plain Random Maclaurin shifted to start
//! at 2), and `N` independent Rademacher vectors, and is
//! `r_j(x) = sqrt(a_N 2^(N-1) / D) prod_{i=1..N} <w_i, x>`.
//!
//! **Unbiased.** Given `N = n`, independence of the `w_i` and `E[<w, x><w, y>] = <x, y>` give
//! `E[r_j(x) r_j(y) | N = n] = a_n 2^(n-1) <x, y>^n / D`, so
//! `E[sum_j r_j(x) r_j(y)] = sum_{n >= 2} 2^-(n-1) a_n 2^(n-1) <x, y>^n = R(<x, y>)`, and
//! `E[<z(x), z(y)>] = a_0 + a_1 <x, y> + R(<x, y>) = f(<x, y>)`. The explicit part has no variance;
//! for homogeneous kernels (`c = 0`, `p >= 2`) it is zero and the estimator is plain Random
//! Maclaurin with every feature on a degree `>= 2` (for `p = 2`, half of them on the only non-zero
//! degree instead of a quarter).
//!
//! **Cost.** That of [`RandomMaclaurin`] with `E[N] = 3` instead of 1, plus `O(nnz(x))` for the
//! explicit part.

use serde::{Deserialize, Serialize};

use crate::csr::Row;
use crate::error::Result;
use crate::feature_map::FeatureMap;
use crate::kernels::{sketchable_polynomial, Kernel};
use crate::random_maclaurin::{RandomMaclaurin, RandomMaclaurinParams, RandomMaclaurinValidParams};
#[cfg(doc)]
use crate::MapError;

/// Unchecked hyper-parameters of [`RandomMaclaurinH01`]: those of [`RandomMaclaurinParams`],
/// `n_components` being the number `D` of random features (the map has `d + 1 + D`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomMaclaurinH01Params {
    degree: u32,
    offset: f64,
    n_components: usize,
    seed: Option<u64>,
}

/// Checked hyper-parameters (the ranges of [`RandomMaclaurinValidParams`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RandomMaclaurinH01ValidParams {
    random: RandomMaclaurinValidParams,
    degree: u32,
    offset: f64,
}

impl RandomMaclaurinH01Params {
    /// `(<x, y>)^degree` with `n_components` random features; offset 0, the default seed of
    /// [`RandomMaclaurinParams`].
    pub fn new(degree: u32, n_components: usize) -> Self {
        Self {
            degree,
            offset: 0.0,
            n_components,
            seed: None,
        }
    }

    /// The map for `kernel`, which must be a polynomial kernel with `gamma = 1` (the sketch
    /// approximates `(<x, y> + offset)^degree`); another gamma is an
    /// [`MapError::InvalidKernelParameter`], another kernel an [`MapError::UnsupportedKernel`].
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        let (degree, offset) = sketchable_polynomial(kernel, "RandomMaclaurinH01")?;
        Ok(Self::new(degree, n_components).offset(offset))
    }

    /// The constant `c` of `(<x, y> + c)^p`.
    pub fn offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    pub fn check(self) -> Result<RandomMaclaurinH01ValidParams> {
        let mut random =
            RandomMaclaurinParams::new(self.degree, self.n_components).offset(self.offset);
        if let Some(seed) = self.seed {
            random = random.seed(seed);
        }
        Ok(RandomMaclaurinH01ValidParams {
            random: random.check()?,
            degree: self.degree,
            offset: self.offset,
        })
    }

    /// `check()` then `fit(input_dim)`.
    pub fn fit(self, input_dim: usize) -> Result<RandomMaclaurinH01> {
        self.check()?.fit(input_dim)
    }
}

impl RandomMaclaurinH01ValidParams {
    /// Draws the random features (degrees `>= 2`) and fixes the explicit weights.
    pub fn fit(&self, input_dim: usize) -> Result<RandomMaclaurinH01> {
        let (p, c) = (self.degree as i32, self.offset);
        Ok(RandomMaclaurinH01 {
            random: self.random.fit_from_degree(input_dim, 2)?,
            constant: c.powi(p).sqrt(),
            linear: (p as f64 * c.powi(p - 1)).sqrt(),
        })
    }
}

/// A fitted H0/1 Random Maclaurin map: `[sqrt(a_0), sqrt(a_1) x, random features]`.
/// Serialisable (serde); the random part is checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomMaclaurinH01 {
    random: RandomMaclaurin,
    constant: f64,
    linear: f64,
}

impl RandomMaclaurinH01 {
    /// The random part (features `d + 1..`), degrees `>= 2`.
    pub fn random_part(&self) -> &RandomMaclaurin {
        &self.random
    }
}

impl FeatureMap for RandomMaclaurinH01 {
    /// The random part's; the explicit part is two numbers.
    fn memory_bytes(&self) -> usize {
        self.random.memory_bytes() + 2 * std::mem::size_of::<f64>()
    }

    type Scratch = <RandomMaclaurin as FeatureMap>::Scratch;

    fn input_dim(&self) -> usize {
        self.random.input_dim()
    }

    fn output_dim(&self) -> usize {
        self.input_dim() + 1 + self.random.output_dim()
    }

    fn new_scratch(&self) -> Self::Scratch {
        self.random.new_scratch()
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64], scratch: &mut Self::Scratch) {
        let d = self.input_dim();
        let (explicit, random) = out.split_at_mut(d + 1);
        explicit[0] = self.constant;
        explicit[1..].iter_mut().for_each(|o| *o = 0.0);
        row.for_each_nonzero(|i, x| explicit[1 + i] = self.linear * x);
        self.random.map_row(row, random, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::error::MapError;
    use crate::kernels::PolynomialKernel;
    use crate::test_support::sparse_data;
    use ndarray::Array1;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn map_one(map: &RandomMaclaurinH01, x: &Array1<f64>) -> Vec<f64> {
        let mut out = vec![f64::NAN; map.output_dim()];
        map.map_row(&Row::Dense(x.view()), &mut out, &mut map.new_scratch());
        out
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The explicit part is `[sqrt(c^p), sqrt(p c^(p-1)) x]`; random degrees are all `>= 2` and
    /// follow `P[N = n] = 2^-(n-1)` (the share of `N = 2` within 5 binomial standard errors of 1/2).
    #[test]
    fn layout_and_degrees() {
        let d = 6;
        let n = 20_000;
        let map = RandomMaclaurinH01Params::new(30, n)
            .offset(0.5)
            .seed(3)
            .fit(d)
            .unwrap();
        assert_eq!(map.output_dim(), d + 1 + n);
        let x = Array1::from_iter((0..d).map(|i| i as f64 - 2.0));
        let z = map_one(&map, &x);
        assert!((z[0] - 0.5f64.powi(30).sqrt()).abs() < 1e-15);
        let linear = (30.0 * 0.5f64.powi(29)).sqrt();
        for i in 0..d {
            assert!((z[1 + i] - linear * x[i]).abs() < 1e-15);
        }
        let random = map.random_part();
        assert!((0..n).all(|j| random.feature_degree(j) >= 2));
        let share = (0..n).filter(|&j| random.feature_degree(j) == 2).count() as f64 / n as f64;
        assert!(
            (share - 0.5).abs() < 5.0 * (0.25 / n as f64).sqrt(),
            "{share}"
        );
    }

    /// Unbiased over independent seeds: the mean of 4000 estimates lies within 4 standard errors
    /// (sample standard deviation / sqrt(runs)) of the exact kernel.
    #[test]
    fn unbiased() {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let d = 12;
        let runs = 4000;
        for (p, c) in [(2, 0.0), (2, 1.0), (3, 1.0), (4, 0.5), (4, 1.0)] {
            let x = Array1::from_iter((0..d).map(|_| rng.random_range(-0.2..0.4)));
            let y = Array1::from_iter((0..d).map(|_| rng.random_range(-0.2..0.4)));
            let exact = PolynomialKernel::new(p, c)
                .unwrap()
                .eval(&Row::Dense(x.view()), &Row::Dense(y.view()));
            let estimates: Vec<f64> = (0..runs)
                .map(|seed| {
                    let map = RandomMaclaurinH01Params::new(p, 16)
                        .offset(c)
                        .seed(seed)
                        .fit(d)
                        .unwrap();
                    dot(&map_one(&map, &x), &map_one(&map, &y))
                })
                .collect();
            let mean = estimates.iter().sum::<f64>() / runs as f64;
            let var = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (runs - 1) as f64;
            let standard_error = (var / runs as f64).sqrt();
            assert!(
                (mean - exact).abs() < 4.0 * standard_error,
                "p={p} c={c}: mean {mean} vs {exact} (se {standard_error})"
            );
        }
    }

    /// Degree 1 has no terms of degree `>= 2`: the explicit part alone is exact.
    #[test]
    fn degree_one_is_exact() {
        let map = RandomMaclaurinH01Params::new(1, 8)
            .offset(2.0)
            .seed(1)
            .fit(3)
            .unwrap();
        let (x, y) = (
            ndarray::array![1.0, -2.0, 0.5],
            ndarray::array![0.0, 3.0, 4.0],
        );
        let k = dot(&map_one(&map, &x), &map_one(&map, &y));
        assert!((k - (-6.0 + 2.0 + 2.0)).abs() < 1e-12, "{k}");
    }

    #[test]
    fn dense_and_sparse_input_give_identical_features() {
        let x = sparse_data(200, 30, 0.2, 32);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let map = RandomMaclaurinH01Params::new(3, 100)
            .offset(1.0)
            .seed(2)
            .fit(30)
            .unwrap();
        assert_eq!(map.transform(&x).unwrap(), map.transform(&csr).unwrap());
    }

    #[test]
    fn invalid_parameters_are_errors() {
        assert_eq!(
            RandomMaclaurinH01Params::new(0, 10).check().unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "degree",
                value: 0.0,
                valid: ">= 1"
            }
        );
        assert_eq!(
            RandomMaclaurinH01Params::new(2, 0).check().unwrap_err(),
            MapError::ZeroComponents(0)
        );
        assert_eq!(
            RandomMaclaurinH01Params::new(2, 5)
                .offset(-1.0)
                .check()
                .unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "offset",
                value: -1.0,
                valid: "finite and >= 0"
            }
        );
        assert_eq!(
            RandomMaclaurinH01Params::new(2, 5).fit(0).unwrap_err(),
            MapError::ZeroInputDim(0)
        );
    }
}
