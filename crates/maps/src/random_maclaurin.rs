//! Random Maclaurin features (Kar & Karnick, AISTATS 2012) for the dot-product kernel
//! `f(<x, y>) = (<x, y> + c)^p`, as Pham & Pagh (2013) use it as their baseline.
//!
//! **Estimator.** Expand `f(t) = sum_n a_n t^n` with `a_n = C(p, n) c^(p-n)` (Maclaurin series;
//! `0^0 = 1`). Each feature draws a degree `N` with `P[N = n] = 2^-(n+1)` and `N` independent
//! Rademacher vectors `w_1..w_N` in `{+1, -1}^d`, and is
//! `z_j(x) = sqrt(a_N 2^(N+1)) prod_{i=1..N} <w_i, x> / sqrt(D)` (the empty product is 1).
//!
//! **Unbiased:** `E[z_j(x) z_j(y)] D = sum_n 2^-(n+1) a_n 2^(n+1) E[prod <w,x><w,y>] = f(<x, y>)`,
//! since `E[<w,x><w,y>] = <x,y>` for Rademacher `w`.
//! **Variance.** No closed form in the papers; it grows fast with `p` on homogeneous kernels
//! (`c = 0`), where only the features with `N = p` (probability `2^-(p+1)`) are non-zero and those
//! carry the factor `2^((p+1)/2)`: the large errors of Pham & Pagh's Fig. 1.
//!
//! **Cost.** Fit: `O(d D E[N])` random signs. Transform: `O(nnz(x) D E[N])` per row (a projection
//! onto every drawn `w`), the `O(ndD)` the Tensor Sketch paper improves on.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::csr::Row;
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::kernels::{check_polynomial_map, sketchable_polynomial, Kernel};
use crate::simd::{vector_builds, Isa};

/// The default seed: maps are deterministic unless the caller asks for another draw.
pub const DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0002;

/// Degrees above this would need `2^(N+1)` weights beyond any useful precision.
const MAX_DEGREE: u32 = 60;

/// Unchecked hyper-parameters of [`RandomMaclaurin`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomMaclaurinParams {
    degree: u32,
    offset: f64,
    n_components: usize,
    seed: u64,
}

/// Checked hyper-parameters: `1 <= degree <= 60`, `n_components >= 1`, `offset` finite, `>= 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomMaclaurinValidParams(RandomMaclaurinParams);

impl RandomMaclaurinParams {
    /// `(<x, y>)^degree` with `n_components` features; offset 0, default seed.
    pub fn new(degree: u32, n_components: usize) -> Self {
        Self {
            degree,
            offset: 0.0,
            n_components,
            seed: DEFAULT_SEED,
        }
    }

    /// The map for `kernel`, which must be a polynomial kernel with `gamma = 1` (the sketch
    /// approximates `(<x, y> + offset)^degree`); another gamma is an
    /// [`MapError::InvalidKernelParameter`], another kernel an [`MapError::UnsupportedKernel`].
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        let (degree, offset) = sketchable_polynomial(kernel, "RandomMaclaurin")?;
        Ok(Self::new(degree, n_components).offset(offset))
    }

    /// The constant `c` of `(<x, y> + c)^p`.
    pub fn offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn check(self) -> Result<RandomMaclaurinValidParams> {
        check_polynomial_map(self.degree, self.offset, self.n_components)?;
        if self.degree > MAX_DEGREE {
            return Err(MapError::DegreeTooLarge {
                got: self.degree,
                max: MAX_DEGREE,
            });
        }
        Ok(RandomMaclaurinValidParams(self))
    }

    /// `check()` then `fit(input_dim)`.
    pub fn fit(self, input_dim: usize) -> Result<RandomMaclaurin> {
        self.check()?.fit(input_dim)
    }
}

/// `a_n = C(p, n) c^(p - n)`, the Maclaurin coefficients of `(t + c)^p`.
fn maclaurin_coefficient(degree: u32, offset: f64, n: u32) -> f64 {
    if n > degree {
        return 0.0;
    }
    let binomial = (0..n).fold(1.0, |acc, i| acc * (degree - i) as f64 / (i + 1) as f64);
    binomial * offset.powi((degree - n) as i32)
}

impl RandomMaclaurinValidParams {
    /// Draws each feature's degree and Rademacher vectors.
    pub fn fit(&self, input_dim: usize) -> Result<RandomMaclaurin> {
        self.fit_from_degree(input_dim, 0)
    }

    /// As [`Self::fit`] but every degree is at least `min_degree`: `N = min_degree + G` with
    /// `P[G = g] = 2^-(g+1)`, weights `sqrt(a_N 2^(N - min_degree + 1))`, so the features estimate
    /// `sum_{n >= min_degree} a_n <x, y>^n` without bias (the H0/1 heuristic uses 2).
    pub(crate) fn fit_from_degree(
        &self,
        input_dim: usize,
        min_degree: u32,
    ) -> Result<RandomMaclaurin> {
        let p = &self.0;
        if input_dim == 0 {
            return Err(MapError::ZeroInputDim(input_dim));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let norm = 1.0 / (p.n_components as f64).sqrt();
        let mut features = Vec::with_capacity(p.n_components);
        let mut n_vectors = 0;
        for _ in 0..p.n_components {
            // N ~ P[N = n] = 2^-(n+1): count heads before the first tail. Past the degree every
            // coefficient is zero, so there is no need to flip further.
            let mut degree = min_degree;
            while degree <= p.degree && rng.random::<bool>() {
                degree += 1;
            }
            let a = maclaurin_coefficient(p.degree, p.offset, degree);
            if a == 0.0 {
                features.push(Feature {
                    first: n_vectors,
                    degree: 0,
                    weight: 0.0,
                });
                continue;
            }
            let weight = (a * 2f64.powi((degree - min_degree) as i32 + 1)).sqrt() * norm;
            features.push(Feature {
                first: n_vectors,
                degree: degree as usize,
                weight,
            });
            n_vectors += degree as usize;
        }
        // Rademacher vectors stored column-wise per input coordinate (`signs[i * n_vectors + v]`),
        // so a non-zero x_i adds one contiguous row to the projections; one byte per sign, so
        // that the table stays in cache while rows stream past it (as `f64` it was 21 MB at
        // D = 4000, d = 784, p = 4, and the time per feature doubled from D = 500 to 4000).
        let signs = (0..input_dim * n_vectors)
            .map(|_| if rng.random::<bool>() { 1 } else { -1 })
            .collect();
        Ok(RandomMaclaurin {
            params: p.clone(),
            input_dim,
            features,
            n_vectors,
            signs,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Feature {
    first: usize,
    degree: usize,
    weight: f64,
}

/// A fitted Random Maclaurin map. Serialisable (serde), checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RandomMaclaurinData", into = "RandomMaclaurinData")]
pub struct RandomMaclaurin {
    params: RandomMaclaurinParams,
    input_dim: usize,
    features: Vec<Feature>,
    n_vectors: usize,
    /// `+1` or `-1`.
    signs: Vec<i8>,
}

/// The serialised form of [`RandomMaclaurin`], checked on the way in: every feature's vectors
/// within the drawn ones, one sign per input coordinate and vector. The signs are `f64` there
/// (the form maps were saved in before they were stored as bytes).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomMaclaurinData {
    params: RandomMaclaurinParams,
    input_dim: usize,
    features: Vec<Feature>,
    n_vectors: usize,
    signs: Vec<f64>,
}

impl TryFrom<RandomMaclaurinData> for RandomMaclaurin {
    type Error = MapError;

    fn try_from(data: RandomMaclaurinData) -> Result<Self> {
        let RandomMaclaurinData {
            params,
            input_dim,
            features,
            n_vectors,
            signs,
        } = data;
        let name = "RandomMaclaurin";
        params.clone().check()?;
        ensure(input_dim >= 1, name, || "input_dim = 0".into())?;
        ensure(features.len() == params.n_components, name, || {
            format!(
                "{} features for D = {}",
                features.len(),
                params.n_components
            )
        })?;
        ensure(
            features.iter().all(|f| {
                f.first
                    .checked_add(f.degree)
                    .is_some_and(|end| end <= n_vectors)
                    && f.weight.is_finite()
            }),
            name,
            || format!("a feature uses vectors beyond the {n_vectors} drawn"),
        )?;
        ensure(
            input_dim.checked_mul(n_vectors) == Some(signs.len())
                && signs.iter().all(|s| s.abs() == 1.0),
            name,
            || {
                format!(
                    "{} signs for d = {input_dim} x {n_vectors} vectors",
                    signs.len()
                )
            },
        )?;
        Ok(Self {
            params,
            input_dim,
            features,
            n_vectors,
            signs: signs
                .iter()
                .map(|&s| if s > 0.0 { 1 } else { -1 })
                .collect(),
        })
    }
}

impl From<RandomMaclaurin> for RandomMaclaurinData {
    fn from(map: RandomMaclaurin) -> Self {
        Self {
            params: map.params,
            input_dim: map.input_dim,
            features: map.features,
            n_vectors: map.n_vectors,
            signs: map.signs.iter().map(|&s| f64::from(s)).collect(),
        }
    }
}

impl RandomMaclaurin {
    /// Total number of Rademacher vectors drawn (about `D E[N]`): the map's memory and cost.
    pub fn n_vectors(&self) -> usize {
        self.n_vectors
    }

    /// The degree `N` drawn for feature `j` (0 for constant features and for zero features).
    pub fn feature_degree(&self, j: usize) -> usize {
        self.features[j].degree
    }

    /// Sign `i` of Rademacher vector `v`.
    pub fn sign(&self, v: usize, i: usize) -> f64 {
        f64::from(self.signs[i * self.n_vectors + v])
    }
}

impl FeatureMap for RandomMaclaurin {
    /// The Rademacher vectors (one byte per sign, `d` bytes each) and each feature's degree,
    /// first vector and weight.
    fn memory_bytes(&self) -> usize {
        self.signs.len() * std::mem::size_of::<i8>()
            + self.features.len() * std::mem::size_of::<Feature>()
    }

    /// Projections `<w_v, x>` onto every drawn vector.
    type Scratch = Vec<f64>;

    fn input_dim(&self) -> usize {
        self.input_dim
    }

    fn output_dim(&self) -> usize {
        self.params.n_components
    }

    fn new_scratch(&self) -> Vec<f64> {
        vec![0.0; self.n_vectors]
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64], projections: &mut Vec<f64>) {
        projections.iter_mut().for_each(|v| *v = 0.0);
        project(&self.signs, row, projections);
        for (o, f) in out.iter_mut().zip(&self.features) {
            *o = f.weight
                * projections[f.first..f.first + f.degree]
                    .iter()
                    .product::<f64>();
        }
    }
}

/// `projections[v] += sum_i x_i signs[i * m + v]` over the row's non-zeros `x_i` (`m` the
/// length of `projections`), compiled for AVX-512F or AVX2 where the processor has them: the
/// byte-to-double conversion of the signs needs them to vectorise (the x86-64 baseline, SSE2,
/// has no sign-extending byte loads), and the sums are the same in every build (no FMA: each
/// term is rounded, then added, in the same order).
fn project(signs: &[i8], row: &Row<'_>, projections: &mut [f64]) {
    project_with(Isa::widest(), signs, row, projections)
}

vector_builds!(
    /// [`project`] built for `isa`.
    fn project_with(signs: &[i8], row: &Row<'_>, projections: &mut [f64]) => project_portable
);

#[inline(always)]
fn project_portable(signs: &[i8], row: &Row<'_>, projections: &mut [f64]) {
    let m = projections.len();
    row.for_each_nonzero(|i, x| {
        let signs = &signs[i * m..(i + 1) * m];
        projections
            .iter_mut()
            .zip(signs)
            .for_each(|(p, &s)| *p += f64::from(s) * x);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::kernels::PolynomialKernel;
    use crate::test_support::sparse_data;
    use ndarray::Array1;

    /// Every vector build of the sign sums the processor can run gives the baseline's bits, on a
    /// dense row and on a sparse one.
    #[test]
    fn every_vector_build_of_the_sign_sums_gives_the_baseline_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let (d, m) = (37, 203);
        let signs: Vec<i8> = (0..d * m)
            .map(|_| if rng.random::<bool>() { 1 } else { -1 })
            .collect();
        let dense = Array1::from_shape_fn(d, |_| rng.random::<f64>() - 0.5);
        let (indices, values) = ([2u32, 5, 31], [0.7, -1.3e-3, 2.5]);
        let rows = [
            Row::Dense(dense.view()),
            Row::Sparse {
                indices: &indices,
                values: &values,
            },
        ];
        for row in &rows {
            let mut baseline = vec![0.25; m];
            project_with(Isa::Baseline, &signs, row, &mut baseline);
            for isa in Isa::supported() {
                let mut got = vec![0.25; m];
                project_with(isa, &signs, row, &mut got);
                assert_eq!(got, baseline, "{isa:?}");
            }
        }
    }

    fn map_one(map: &RandomMaclaurin, x: &Array1<f64>) -> Vec<f64> {
        let mut out = vec![f64::NAN; map.output_dim()];
        map.map_row(&Row::Dense(x.view()), &mut out, &mut map.new_scratch());
        out
    }

    #[test]
    fn coefficients_are_binomial() {
        assert_eq!(maclaurin_coefficient(4, 1.0, 2), 6.0);
        assert_eq!(maclaurin_coefficient(3, 2.0, 1), 3.0 * 4.0);
        assert_eq!(maclaurin_coefficient(3, 0.0, 3), 1.0);
        assert_eq!(maclaurin_coefficient(3, 0.0, 2), 0.0);
        assert_eq!(maclaurin_coefficient(3, 1.0, 4), 0.0);
    }

    /// Each feature equals its definition computed naively from the drawn vectors.
    #[test]
    fn features_match_definition() {
        let d = 9;
        let map = RandomMaclaurinParams::new(3, 50)
            .offset(1.0)
            .seed(4)
            .fit(d)
            .unwrap();
        let x = Array1::from_iter((0..d).map(|i| (i as f64 * 0.7).cos()));
        let z = map_one(&map, &x);
        for (j, f) in map.features.iter().enumerate() {
            let mut value = f.weight;
            for v in f.first..f.first + f.degree {
                value *= (0..d).map(|i| map.sign(v, i) * x[i]).sum::<f64>();
            }
            assert!((z[j] - value).abs() < 1e-12);
        }
        // Degrees follow P[N = n] = 2^-(n+1) (checked loosely here; exactly in distribution below).
        assert!(map.features.iter().any(|f| f.degree == 0 && f.weight > 0.0));
    }

    #[test]
    fn degree_distribution_is_geometric() {
        let n = 40_000;
        let map = RandomMaclaurinParams::new(60, n)
            .offset(1.0)
            .seed(8)
            .fit(1)
            .unwrap();
        for k in 0..4 {
            let share = (0..n).filter(|&j| map.feature_degree(j) == k).count() as f64 / n as f64;
            let expected = 0.5f64.powi(k as i32 + 1);
            let sd = (expected * (1.0 - expected) / n as f64).sqrt();
            assert!(
                (share - expected).abs() < 5.0 * sd,
                "P[N={k}] = {share}, expected {expected}"
            );
        }
    }

    /// Unbiased over independent seeds: mean within 4 standard errors of the exact kernel, for
    /// homogeneous and inhomogeneous kernels.
    #[test]
    fn unbiased() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let d = 15;
        let runs = 4000;
        for (p, c) in [(2, 0.0), (3, 1.0), (2, 0.5), (4, 1.0)] {
            let x = Array1::from_iter((0..d).map(|_| rng.random_range(-0.2..0.4)));
            let y = Array1::from_iter((0..d).map(|_| rng.random_range(-0.2..0.4)));
            let exact = PolynomialKernel::new(p, c)
                .unwrap()
                .eval(&Row::Dense(x.view()), &Row::Dense(y.view()));
            let estimates: Vec<f64> = (0..runs)
                .map(|seed| {
                    let map = RandomMaclaurinParams::new(p, 64)
                        .offset(c)
                        .seed(seed)
                        .fit(d)
                        .unwrap();
                    map_one(&map, &x)
                        .iter()
                        .zip(&map_one(&map, &y))
                        .map(|(a, b)| a * b)
                        .sum()
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

    #[test]
    fn dense_and_sparse_input_give_identical_features() {
        let x = sparse_data(300, 40, 0.2, 22);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let map = RandomMaclaurinParams::new(3, 200)
            .offset(1.0)
            .seed(2)
            .fit(40)
            .unwrap();
        assert_eq!(map.transform(&x).unwrap(), map.transform(&csr).unwrap());
    }

    #[test]
    fn invalid_parameters_are_errors() {
        assert_eq!(
            RandomMaclaurinParams::new(0, 10).check().unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "degree",
                value: 0.0,
                valid: ">= 1"
            }
        );
        assert_eq!(
            RandomMaclaurinParams::new(2, 0).check().unwrap_err(),
            MapError::ZeroComponents(0)
        );
        assert_eq!(
            RandomMaclaurinParams::new(61, 5).check().unwrap_err(),
            MapError::DegreeTooLarge { got: 61, max: 60 }
        );
        assert_eq!(
            RandomMaclaurinParams::new(2, 5)
                .offset(-2.0)
                .check()
                .unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "offset",
                value: -2.0,
                valid: "finite and >= 0"
            }
        );
        assert_eq!(
            RandomMaclaurinParams::new(2, 5).fit(0).unwrap_err(),
            MapError::ZeroInputDim(0)
        );
    }
}
