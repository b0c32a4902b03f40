//! Tensor Sketch (Pham & Pagh, KDD 2013, Algorithm 1) for the polynomial kernel `(<x, y> + c)^p`.
//!
//! **Estimator.** With `p` independent count sketches `C_1..C_p: R^d -> R^D` (2-wise independent
//! `h_k`, `s_k`), the feature vector is
//! `z(x) = IFFT( FFT(C_1 x) * ... * FFT(C_p x) )` (element-wise product),
//! which is the count sketch of the tensor power `x^(p)` under the decomposable hashes
//! `H(i_1..i_p) = sum_k h_k(i_k) mod D`, `S = prod_k s_k(i_k)`: the circular convolution of the `p`
//! sketches. The offset `c > 0` is handled by an extra coordinate of value `sqrt(c)` (Sec. 4.2).
//!
//! **Unbiased:** `E<z(x), z(y)> = <x, y>^p` (for the extended vectors).
//! **Variance (Lemma 6):** `Var <z(x), z(y)> <= (<x,y>^{2p} + |x|^{2p} |y|^{2p}) / D` is claimed,
//! but it is not true for every pair: its proof applies the count-sketch variance (Lemma 2, which
//! needs 4-wise independent hashes) to the decomposed hash `H`, which is not 4-wise independent.
//! Enumerating the whole hash family for `x = (1, 2)`, `y = (2, 1)`, `p = 2`, `D = 3` gives an
//! exact variance of 414.56 against the bound 293.67 (test `exact_mean_and_variance_...`). The
//! estimator is exactly unbiased, and the bound holds for `p = 1` (Lemma 3).
//!
//! **Cost.** Fit: `O(p d)` hash tables plus one real-FFT plan pair of size `D`. Transform:
//! `O(p (nnz(x) + D log D))` per row: `p` sketches, `p` real FFTs, one inverse real FFT.
//! Real FFTs (`realfft`, on RustFFT) halve the work of a complex FFT since every sketch is real.

use std::fmt;
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use realfft::num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use serde::{Deserialize, Serialize};

use crate::count_sketch::CountSketch;
use crate::csr::Row;
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::kernels::{check_polynomial_map, sketchable_polynomial, Kernel};
use crate::simd::{vector_builds, Isa};

/// The default seed: maps are deterministic unless the caller asks for another draw.
pub const DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0001;

/// Unchecked hyper-parameters of [`TensorSketch`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSketchParams {
    degree: u32,
    offset: f64,
    n_components: usize,
    seed: u64,
}

/// Checked hyper-parameters: `degree >= 1`, `n_components >= 1`, `offset` finite and `>= 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorSketchValidParams(TensorSketchParams);

impl TensorSketchParams {
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
        let (degree, offset) = sketchable_polynomial(kernel, "TensorSketch")?;
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

    pub fn check(self) -> Result<TensorSketchValidParams> {
        check_polynomial_map(self.degree, self.offset, self.n_components)?;
        Ok(TensorSketchValidParams(self))
    }

    /// `check()` then `fit(input_dim)`.
    pub fn fit(self, input_dim: usize) -> Result<TensorSketch> {
        self.check()?.fit(input_dim)
    }
}

impl TensorSketchValidParams {
    /// Draws the `p` count sketches (hash tables over `d`, plus one key for the offset coordinate
    /// when `c > 0`) and plans the real FFTs of size `D` once.
    pub fn fit(&self, input_dim: usize) -> Result<TensorSketch> {
        let p = &self.0;
        if input_dim == 0 {
            return Err(MapError::ZeroInputDim(input_dim));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let n_keys = input_dim + usize::from(p.offset > 0.0);
        let sketches = (0..p.degree)
            .map(|_| CountSketch::draw(&mut rng, n_keys, p.n_components))
            .collect();
        Ok(TensorSketch::with_plans(p.clone(), input_dim, sketches))
    }
}

/// A fitted Tensor Sketch map. Serialisable (serde) as its parameters and hash tables; the FFT
/// plans are rebuilt when the map is read.
#[derive(Serialize, Deserialize)]
#[serde(into = "TensorSketchData", try_from = "TensorSketchData")]
pub struct TensorSketch {
    params: TensorSketchParams,
    input_dim: usize,
    sketches: Vec<CountSketch>,
    forward: Arc<dyn RealToComplex<f64>>,
    inverse: Arc<dyn ComplexToReal<f64>>,
}

// Serialising goes through an owned copy of the tables (serde's `into` needs `Clone`).
impl Clone for TensorSketch {
    fn clone(&self) -> Self {
        Self {
            params: self.params.clone(),
            input_dim: self.input_dim,
            sketches: self.sketches.clone(),
            forward: Arc::clone(&self.forward),
            inverse: Arc::clone(&self.inverse),
        }
    }
}

/// The serialised form of [`TensorSketch`]: everything but the FFT plans.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TensorSketchData {
    params: TensorSketchParams,
    input_dim: usize,
    sketches: Vec<CountSketch>,
}

impl From<TensorSketch> for TensorSketchData {
    fn from(map: TensorSketch) -> Self {
        Self {
            params: map.params,
            input_dim: map.input_dim,
            sketches: map.sketches,
        }
    }
}

impl TryFrom<TensorSketchData> for TensorSketch {
    type Error = MapError;

    fn try_from(data: TensorSketchData) -> Result<Self> {
        let TensorSketchData {
            params,
            input_dim,
            sketches,
        } = data;
        let name = "TensorSketch";
        params.clone().check()?;
        ensure(input_dim >= 1, name, || "input_dim = 0".into())?;
        ensure(sketches.len() == params.degree as usize, name, || {
            format!("{} sketches for degree {}", sketches.len(), params.degree)
        })?;
        let n_keys = input_dim + usize::from(params.offset > 0.0);
        ensure(
            sketches
                .iter()
                .all(|c| c.n_keys() == n_keys && c.width() == params.n_components),
            name,
            || {
                format!(
                    "every sketch must map {n_keys} keys to D = {} buckets",
                    params.n_components
                )
            },
        )?;
        Ok(Self::with_plans(params, input_dim, sketches))
    }
}

impl fmt::Debug for TensorSketch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorSketch")
            .field("params", &self.params)
            .field("input_dim", &self.input_dim)
            .finish()
    }
}

/// Working buffers of one thread: `p` real sketches, two half spectra and the FFTs' scratch.
pub struct TensorSketchScratch {
    /// One real count sketch per factor, filled in a single pass over the row.
    sketches: Vec<Vec<f64>>,
    spectrum: Vec<Complex<f64>>,
    product: Vec<Complex<f64>>,
    fft: Vec<Complex<f64>>,
}

impl TensorSketch {
    /// Plans the real FFTs of size `D` once, for every transform.
    fn with_plans(
        params: TensorSketchParams,
        input_dim: usize,
        sketches: Vec<CountSketch>,
    ) -> Self {
        let mut planner = RealFftPlanner::<f64>::new();
        Self {
            forward: planner.plan_fft_forward(params.n_components),
            inverse: planner.plan_fft_inverse(params.n_components),
            params,
            input_dim,
            sketches,
        }
    }

    pub fn degree(&self) -> u32 {
        self.params.degree
    }

    pub fn offset(&self) -> f64 {
        self.params.offset
    }

    pub fn seed(&self) -> u64 {
        self.params.seed
    }

    /// The `k`-th count sketch (for tests and for readers checking the construction).
    pub fn sketch(&self, k: usize) -> &CountSketch {
        &self.sketches[k]
    }

    /// The constant coordinate `(key d, value sqrt(c))` appended to every row when `c > 0`.
    fn extra(&self) -> Option<(usize, f64)> {
        (self.params.offset > 0.0).then(|| (self.input_dim, self.params.offset.sqrt()))
    }

    /// All `p` count sketches of `row` (plus `extra`) in one pass over its entries.
    ///
    /// Dense rows are scanned without testing for zeros: a bucket starts at `+0.0` and a sum of
    /// non-zero terms is never `-0.0`, so adding `s * 0.0 = +-0.0` leaves every bucket's bits
    /// unchanged, and features stay bit-identical to those of the sparse form of the same row.
    #[inline(always)]
    fn sketch_all(&self, row: &Row<'_>, extra: Option<(usize, f64)>, out: &mut [Vec<f64>]) {
        out.iter_mut().for_each(|o| o.fill(0.0));
        let mut add = |i: usize, v: f64| {
            for (sketch, o) in self.sketches.iter().zip(out.iter_mut()) {
                o[sketch.bucket(i)] += sketch.sign(i) * v;
            }
        };
        // A zero adds nothing (not even a sign of zero: every bucket starts at +0), so dense
        // rows skip theirs like sparse ones.
        row.for_each_nonzero(&mut add);
        if let Some((i, v)) = extra {
            add(i, v);
        }
    }
}

impl FeatureMap for TensorSketch {
    type Scratch = TensorSketchScratch;

    fn input_dim(&self) -> usize {
        self.input_dim
    }

    fn output_dim(&self) -> usize {
        self.params.n_components
    }

    /// The `p` count sketches' tables (the FFT plans' twiddles are shared, size `D`, not counted).
    fn memory_bytes(&self) -> usize {
        self.sketches.iter().map(CountSketch::memory_bytes).sum()
    }

    fn new_scratch(&self) -> TensorSketchScratch {
        TensorSketchScratch {
            sketches: (0..self.sketches.len())
                .map(|_| self.forward.make_input_vec())
                .collect(),
            spectrum: self.forward.make_output_vec(),
            product: self.forward.make_output_vec(),
            fft: vec![
                Complex::default();
                self.forward
                    .get_scratch_len()
                    .max(self.inverse.get_scratch_len())
            ],
        }
    }

    /// In the processor's widest vector build ([`crate::simd`]): the count sketches, the
    /// spectra's products and the scaling are element-wise loops, the same bits in every build
    /// (the FFTs pick their own kernels).
    fn map_row(&self, row: &Row<'_>, out: &mut [f64], s: &mut TensorSketchScratch) {
        map_row_with(Isa::widest(), self, row, out, s)
    }
}

vector_builds!(
    /// [`TensorSketch::map_row`] built for `isa`.
    fn map_row_with(map: &TensorSketch, row: &Row<'_>, out: &mut [f64], s: &mut TensorSketchScratch)
        => map_row_loops
);

/// The body of [`TensorSketch::map_row`], compiled into each build.
#[inline(always)]
fn map_row_loops(map: &TensorSketch, row: &Row<'_>, out: &mut [f64], s: &mut TensorSketchScratch) {
    let extra = map.extra();
    if map.params.degree == 1 {
        // A degree-1 tensor sketch is the count sketch itself; the FFT round trip is identity.
        map.sketches[0].sketch_into(row, extra, out);
        return;
    }
    let n = map.params.n_components;
    map.sketch_all(row, extra, &mut s.sketches);
    for (k, sketch) in s.sketches.iter_mut().enumerate() {
        let target = if k == 0 {
            &mut s.product
        } else {
            &mut s.spectrum
        };
        map.forward
            .process_with_scratch(sketch, target, &mut s.fft)
            .expect("buffer lengths are fixed by the plan");
        if k > 0 {
            s.product
                .iter_mut()
                .zip(&s.spectrum)
                .for_each(|(a, b)| *a *= b);
        }
    }
    // The spectrum of a real signal is real at frequency 0 (and n/2 for even n); clear the
    // rounding noise the inverse real FFT would otherwise reject.
    s.product[0].im = 0.0;
    if n.is_multiple_of(2) {
        s.product[n / 2].im = 0.0;
    }
    map.inverse
        .process_with_scratch(&mut s.product, out, &mut s.fft)
        .expect("buffer lengths are fixed by the plan");
    let scale = 1.0 / n as f64;
    out.iter_mut().for_each(|v| *v *= scale);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::CsrMatrix;
    use crate::kernels::PolynomialKernel;
    use ndarray::{Array1, Array2};
    use rand::Rng;

    fn random_matrix(rng: &mut ChaCha8Rng, n: usize, d: usize, density: f64) -> Array2<f64> {
        Array2::from_shape_fn((n, d), |_| {
            if rng.random::<f64>() < density {
                rng.random_range(-1.0..1.0)
            } else {
                0.0
            }
        })
    }

    fn map_one(map: &TensorSketch, x: &Array1<f64>) -> Vec<f64> {
        let mut out = vec![f64::NAN; map.output_dim()];
        map.map_row(&Row::Dense(x.view()), &mut out, &mut map.new_scratch());
        out
    }

    /// Naive reference: the count sketch of the explicit tensor power `x^(p)` under
    /// `H = sum_k h_k mod D`, `S = prod_k s_k`, enumerating all `(d+1)^p` index tuples.
    fn explicit_tensor_sketch(map: &TensorSketch, x: &Array1<f64>) -> Vec<f64> {
        let mut ext: Vec<f64> = x.to_vec();
        if let Some((_, v)) = map.extra() {
            ext.push(v);
        }
        let (n, p, keys) = (map.output_dim(), map.degree() as usize, ext.len());
        let mut out = vec![0.0; n];
        for flat in 0..keys.pow(p as u32) {
            let (mut rest, mut bucket, mut value) = (flat, 0, 1.0);
            for k in 0..p {
                let i = rest % keys;
                rest /= keys;
                bucket += map.sketch(k).bucket(i);
                value *= map.sketch(k).sign(i) * ext[i];
            }
            out[bucket % n] += value;
        }
        out
    }

    #[test]
    fn fft_path_equals_explicit_tensor_power_sketch() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (d, p, n, c) in [
            (5, 2, 7, 0.0),
            (4, 3, 8, 0.5),
            (6, 2, 16, 1.0),
            (3, 4, 9, 2.0),
            (7, 3, 1, 0.0),
        ] {
            let map = TensorSketchParams::new(p, n)
                .offset(c)
                .seed(rng.random())
                .fit(d)
                .unwrap();
            let x = Array1::from_iter((0..d).map(|_| rng.random_range(-1.0..1.0)));
            let (fast, naive) = (map_one(&map, &x), explicit_tensor_sketch(&map, &x));
            for (a, b) in fast.iter().zip(&naive) {
                assert!((a - b).abs() < 1e-12, "d={d} p={p} D={n} c={c}: {a} vs {b}");
            }
        }
    }

    /// The FFT product equals the naive O(D^2) circular convolution of the `p` count sketches.
    #[test]
    fn fft_product_equals_naive_circular_convolution() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for (d, p, n) in [(30, 2, 64), (30, 3, 50), (100, 4, 33), (10, 2, 2)] {
            let map = TensorSketchParams::new(p, n)
                .seed(rng.random())
                .fit(d)
                .unwrap();
            let x = Array1::from_iter((0..d).map(|_| rng.random_range(-1.0..1.0)));
            let row = Row::Dense(x.view());
            let mut conv = vec![0.0; n];
            map.sketch(0).sketch_into(&row, None, &mut conv);
            for k in 1..p as usize {
                let mut next = vec![0.0; n];
                map.sketch(k).sketch_into(&row, None, &mut next);
                let mut acc = vec![0.0; n];
                for (i, &a) in conv.iter().enumerate() {
                    for (j, &b) in next.iter().enumerate() {
                        acc[(i + j) % n] += a * b;
                    }
                }
                conv = acc;
            }
            for (a, b) in map_one(&map, &x).iter().zip(&conv) {
                assert!((a - b).abs() < 1e-10, "d={d} p={p} D={n}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn degree_one_is_a_count_sketch() {
        let map = TensorSketchParams::new(1, 13).seed(3).fit(40).unwrap();
        let x = Array1::from_iter((0..40).map(|i| (i as f64 * 0.37).sin()));
        let mut expected = vec![0.0; 13];
        for (i, &v) in x.iter().enumerate() {
            expected[map.sketch(0).bucket(i)] += map.sketch(0).sign(i) * v;
        }
        assert_eq!(map_one(&map, &x), expected);
    }

    #[test]
    fn dense_and_sparse_input_give_identical_features() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let x = random_matrix(&mut rng, 600, 50, 0.15);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for p in [1, 3] {
            let map = TensorSketchParams::new(p, 96)
                .offset(1.0)
                .seed(9)
                .fit(50)
                .unwrap();
            assert_eq!(map.transform(&x).unwrap(), map.transform(&csr).unwrap());
        }
    }

    /// Sample mean and variance of `<z(x), z(y)>` over `runs` independent seeds.
    fn estimate_moments(
        x: &Array1<f64>,
        y: &Array1<f64>,
        p: u32,
        c: f64,
        n: usize,
        runs: u64,
    ) -> (f64, f64) {
        let estimates: Vec<f64> = (0..runs)
            .map(|seed| {
                let map = TensorSketchParams::new(p, n)
                    .offset(c)
                    .seed(seed)
                    .fit(x.len())
                    .unwrap();
                let (zx, zy) = (map_one(&map, x), map_one(&map, y));
                zx.iter().zip(&zy).map(|(a, b)| a * b).sum()
            })
            .collect();
        let mean = estimates.iter().sum::<f64>() / runs as f64;
        let var = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (runs - 1) as f64;
        (mean, var)
    }

    /// Unbiased: over 4000 independent seeds the mean estimate is within 4 standard errors of the
    /// exact kernel (dense vectors of mixed sign, homogeneous and inhomogeneous kernels).
    #[test]
    fn unbiased_over_seeds() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let (d, runs) = (20, 4000);
        for (p, c, n) in [(2, 0.0, 64), (3, 0.0, 32), (2, 1.0, 128), (4, 0.5, 64)] {
            let x = Array1::from_iter((0..d).map(|_| rng.random_range(-0.5..1.0)));
            let y = Array1::from_iter((0..d).map(|_| rng.random_range(-0.5..1.0)));
            let exact = PolynomialKernel::new(p, c)
                .unwrap()
                .eval(&Row::Dense(x.view()), &Row::Dense(y.view()));
            let (mean, var) = estimate_moments(&x, &y, p, c, n, runs);
            let standard_error = (var / runs as f64).sqrt();
            assert!(
                (mean - exact).abs() < 4.0 * standard_error,
                "p={p} c={c}: mean {mean} vs exact {exact} (se {standard_error})"
            );
        }
    }

    /// Exact mean and variance of `<z(x), z(y)>` over the whole family of fully random hash
    /// tables (every `h_k: [d] -> [D]`, every `s_k: [d] -> {+1, -1}`), by enumeration.
    fn exact_moments(x: &[f64], y: &[f64], p: u32, n: usize) -> (f64, f64) {
        let d = x.len();
        let mut map = TensorSketchParams::new(p, n).fit(d).unwrap();
        let keys = p as usize * d;
        let (n_buckets, n_signs) = (n.pow(keys as u32), 1usize << keys);
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for hb in 0..n_buckets {
            for sb in 0..n_signs {
                map.sketches = (0..p as usize)
                    .map(|k| {
                        let bucket = |i: usize| ((hb / n.pow((k * d + i) as u32)) % n) as u32;
                        let sign = |i: usize| {
                            if (sb >> (k * d + i)) & 1 == 1 {
                                -1.0
                            } else {
                                1.0
                            }
                        };
                        CountSketch::from_tables(
                            (0..d).map(bucket).collect(),
                            (0..d).map(sign).collect(),
                            n,
                        )
                    })
                    .collect();
                let (zx, zy) = (
                    map_one(&map, &Array1::from(x.to_vec())),
                    map_one(&map, &Array1::from(y.to_vec())),
                );
                let e: f64 = zx.iter().zip(&zy).map(|(a, b)| a * b).sum();
                sum += e;
                sum_sq += e * e;
            }
        }
        let count = (n_buckets * n_signs) as f64;
        let mean = sum / count;
        (mean, sum_sq / count - mean * mean)
    }

    fn lemma_6_bound(x: &[f64], y: &[f64], p: u32, n: usize) -> f64 {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(u, v)| u * v).sum::<f64>();
        (dot(x, y).powi(2 * p as i32) + (dot(x, x) * dot(y, y)).powi(p as i32)) / n as f64
    }

    /// Exact (no sampling) over the whole hash family: Tensor Sketch is unbiased; its variance
    /// obeys Lemma 3 for p = 1 and Lemma 6 on a sparse non-negative pair; and Lemma 6 is NOT
    /// true for every pair: for x = (1, 2), y = (2, 1), p = 2, D = 3 the exact variance is
    /// 414.56 against the bound 293.67. The lemma's proof applies the count-sketch variance of
    /// Lemma 2, which needs 4-wise independent hashes, to `H = sum_k h_k mod D`, which is not.
    #[test]
    fn exact_mean_and_variance_over_the_hash_family() {
        // (x, y, p, D, whether Lemma 6's bound holds)
        type Case<'a> = (&'a [f64], &'a [f64], u32, usize, bool);
        let cases: [Case; 5] = [
            (&[1.0, -2.0, 0.5], &[0.5, 1.0, 3.0], 1, 2, true),
            (&[1.0, 2.0, -1.0], &[2.0, 1.0, 1.0], 1, 3, true),
            (&[1.0, 1.0, 0.0], &[1.0, 0.0, 1.0], 2, 2, true),
            (&[0.5, 0.5, 0.0], &[0.5, 0.0, 0.5], 2, 3, true),
            (&[1.0, 2.0], &[2.0, 1.0], 2, 3, false),
        ];
        for (x, y, p, n, within) in cases {
            let (mean, var) = exact_moments(x, y, p, n);
            let kernel: f64 = x
                .iter()
                .zip(y)
                .map(|(a, b)| a * b)
                .sum::<f64>()
                .powi(p as i32);
            assert!(
                (mean - kernel).abs() < 1e-9,
                "{x:?} {y:?} p={p}: mean {mean} vs {kernel}"
            );
            let bound = lemma_6_bound(x, y, p, n);
            assert_eq!(
                var <= bound + 1e-9,
                within,
                "{x:?} {y:?} p={p} D={n}: variance {var}, bound {bound}"
            );
        }
        let (_, var) = exact_moments(&[1.0, 2.0], &[2.0, 1.0], 2, 3);
        assert!((var - 414.5555555555).abs() < 1e-6, "variance {var}");
    }

    #[test]
    fn invalid_parameters_and_inputs_are_errors() {
        assert_eq!(
            TensorSketchParams::new(0, 10).check().unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "polynomial",
                parameter: "degree",
                value: 0.0,
                valid: ">= 1"
            }
        );
        assert_eq!(
            TensorSketchParams::new(2, 0).check().unwrap_err(),
            MapError::ZeroComponents(0)
        );
        assert_eq!(
            TensorSketchParams::new(2, 8)
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
        assert!(matches!(
            TensorSketchParams::new(2, 8).offset(f64::NAN).check(),
            Err(MapError::InvalidKernelParameter {
                parameter: "offset",
                ..
            })
        ));
        assert_eq!(
            TensorSketchParams::new(2, 8).fit(0).unwrap_err(),
            MapError::ZeroInputDim(0)
        );
        let map = TensorSketchParams::new(2, 8).fit(3).unwrap();
        let wrong = Array2::<f64>::zeros((2, 4));
        assert_eq!(
            map.transform(&wrong).unwrap_err(),
            MapError::DimensionMismatch {
                expected: 3,
                got: 4
            }
        );
        let mut nan = Array2::<f64>::zeros((2, 3));
        nan[[1, 2]] = f64::NAN;
        assert!(matches!(
            map.transform(&nan),
            Err(MapError::NonFinite { row: 1, col: 2, .. })
        ));
        let x = Array2::<f64>::zeros((2, 3));
        let mut out = Array2::<f64>::zeros((2, 7));
        assert!(matches!(
            map.transform_into(&x, out.view_mut()),
            Err(MapError::OutputShape { .. })
        ));
    }

    /// Same seed, same features, whatever the thread count.
    /// Every vector build of a row's map the processor can run gives the baseline build's bits,
    /// for degrees 1 to 4, with and without the offset, on odd and even `D`.
    #[test]
    fn every_vector_build_gives_the_baseline_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let x = random_matrix(&mut rng, 20, 30, 0.4);
        for (degree, n, offset) in [(1, 64, 1.0), (2, 101, 0.0), (3, 100, 1.0), (4, 4000, 1.0)] {
            let map = TensorSketchParams::new(degree, n)
                .offset(offset)
                .seed(3)
                .fit(30)
                .unwrap();
            for row in x.rows() {
                let row = Row::Dense(row);
                let run = |isa: Isa| {
                    let (mut out, mut scratch) = (vec![f64::NAN; n], map.new_scratch());
                    map_row_with(isa, &map, &row, &mut out, &mut scratch);
                    out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                };
                let baseline = run(Isa::Baseline);
                for isa in Isa::supported() {
                    assert_eq!(run(isa), baseline, "{isa:?}, degree {degree}, D = {n}");
                }
            }
        }
    }

    #[test]
    fn deterministic_across_thread_counts() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        let x = random_matrix(&mut rng, 2000, 30, 0.3);
        let map = TensorSketchParams::new(3, 100)
            .offset(1.0)
            .seed(1)
            .fit(30)
            .unwrap();
        let one = crate::test_support::on_threads(1, || map.transform(&x).unwrap());
        let four = crate::test_support::on_threads(4, || map.transform(&x).unwrap());
        assert_eq!(one, four);
        let again = TensorSketchParams::new(3, 100)
            .offset(1.0)
            .seed(1)
            .fit(30)
            .unwrap();
        assert_eq!(again.transform(&x).unwrap(), one);
    }
}
