//! The Nystroem method (Williams & Seeger, NIPS 2001) for any exact kernel [`Kernel`]: linear,
//! polynomial, Gaussian, Laplacian and Matern.
//!
//! **Features.** Pick `m` landmarks `l_1..l_m` (sampled uniformly without replacement from the
//! fitting data, or given), form `K_mm = [k(l_i, l_j)]` and map
//! `z(x) = K_mm^{-1/2} k_m(x)` with `k_m(x) = [k(x, l_1), .., k(x, l_m)]`. Then
//! `<z(x), z(y)> = k_m(x)' K_mm^{-1} k_m(y)`: the kernel of the projection onto the span of the
//! landmarks in feature space. It is exact on the landmarks themselves, so with every training
//! point as a landmark the approximate Gram matrix *is* the exact one; it is biased (never
//! above the exact `k(x, x)`) otherwise, its error governed by the spectrum of the Gram matrix
//! rather than by a Monte Carlo rate.
//!
//! **Inverse square root.** `K_mm = V diag(lambda) V'` by a symmetric eigendecomposition (LAPACK's
//! divide-and-conquer `dsyevd`, module `sym_eig`); `K_mm^{-1/2} = V diag(lambda^{-1/2}) V'` where eigenvalues
//! `lambda <= cutoff * lambda_max` (default `cutoff = 1e-10`) are treated as zero: their
//! directions get weight 0 (a pseudo-inverse), not a huge `lambda^{-1/2}` that would blow up
//! rounding errors. Duplicate landmarks or a low-rank kernel (polynomial with few dimensions) are
//! therefore harmless; [`Nystroem::rank`] says how many directions were kept.
//!
//! **Cost.** Fit: `m^2` kernel evaluations and an `O(m^3)` eigendecomposition; memory `O(m (m +
//! d))`. Transform: `m` kernel evaluations (`O(m d)`) and an `m x m` matrix-vector product per row.
//! Both run as matrix products (module `block_product`) for every kernel but the Laplacian: the
//! kernel block through `‖x‖² + ‖l‖² - 2 x'l` (Gaussian, Matern) resp. `x'l` (linear,
//! polynomial), the same blocks as [`Kernel::cross_gram`], then `K N'` for a block of rows, as
//! scikit-learn's `Nystroem` does; the Laplacian's L1 distances are computed entry by entry.

use ndarray::{s, Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut2};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::block_product::{for_each_row_block, product_into};
use crate::blocks::Matrix;
use crate::csr::{Row, Rows};
use crate::error::{ensure, MapError, Result};
use crate::feature_map::FeatureMap;
use crate::fourier::check_batch;
use crate::kernels::{densify, squared_norms, to_dense, Kernel};
use crate::ranges::Interval;

/// The default seed: maps are deterministic unless the caller asks for another draw.
pub const DEFAULT_SEED: u64 = 0x7e45_0a5c_e7c4_0a57;

/// The default relative eigenvalue cutoff of `K_mm^{-1/2}`.
pub const DEFAULT_EIGENVALUE_CUTOFF: f64 = 1e-10;

/// Unchecked hyper-parameters of [`Nystroem`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NystroemParams {
    kernel: Kernel,
    n_components: usize,
    eigenvalue_cutoff: f64,
    seed: u64,
}

/// Checked hyper-parameters: a valid kernel ([`Kernel::check`]), `n_components >= 1`,
/// `0 <= eigenvalue_cutoff < 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct NystroemValidParams(NystroemParams);

impl NystroemParams {
    /// `n_components` landmarks for `kernel`; cutoff `1e-10`, default seed.
    pub fn new(kernel: Kernel, n_components: usize) -> Self {
        Self {
            kernel,
            n_components,
            eigenvalue_cutoff: DEFAULT_EIGENVALUE_CUTOFF,
            seed: DEFAULT_SEED,
        }
    }

    /// [`NystroemParams::new`] with the kernel checked first: Nystroem approximates every
    /// [`Kernel`], so the only error is an invalid kernel parameter.
    pub fn for_kernel(kernel: &Kernel, n_components: usize) -> Result<Self> {
        kernel.check()?;
        Ok(Self::new(*kernel, n_components))
    }

    /// Eigenvalues of `K_mm` at or below `cutoff * lambda_max` are dropped from `K_mm^{-1/2}`.
    pub fn eigenvalue_cutoff(mut self, cutoff: f64) -> Self {
        self.eigenvalue_cutoff = cutoff;
        self
    }

    /// Seed of the landmark sample.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// `eigenvalue_cutoff`: `[0, 1)`, relative to the largest eigenvalue of `K_mm` (1 would
    /// drop every direction).
    pub const EIGENVALUE_CUTOFF: Interval = Interval {
        min: 0.0,
        max: 1.0,
        open_min: false,
        open_max: true,
    };

    pub fn check(self) -> Result<NystroemValidParams> {
        self.kernel.check()?;
        if self.n_components == 0 {
            return Err(MapError::ZeroComponents(self.n_components));
        }
        if !Self::EIGENVALUE_CUTOFF.contains(self.eigenvalue_cutoff) {
            return Err(MapError::InvalidEigenvalueCutoff(self.eigenvalue_cutoff));
        }
        Ok(NystroemValidParams(self))
    }

    /// `check()` then `fit(data)`.
    pub fn fit<'a>(self, data: impl Into<Rows<'a>>) -> Result<Nystroem> {
        self.check()?.fit(data)
    }
}

impl NystroemValidParams {
    /// Samples `n_components` distinct rows of `data` as landmarks and fits on them.
    pub fn fit<'a>(&self, data: impl Into<Rows<'a>>) -> Result<Nystroem> {
        self.fit_with_indices(data).map(|(map, _)| map)
    }

    /// [`Self::fit`], also returning which rows of `data` became the landmarks, in the order of
    /// the map's landmarks (scikit-learn's `component_indices_`, which the Python package
    /// exposes; the map itself does not keep them, as it is applied to other rows).
    pub fn fit_with_indices<'a>(
        &self,
        data: impl Into<Rows<'a>>,
    ) -> Result<(Nystroem, Vec<usize>)> {
        let data = data.into();
        let chosen = landmark_indices(data.n_rows(), self.0.n_components, self.0.seed)?;
        let mut landmarks = Array2::zeros((chosen.len(), data.n_cols()));
        for (k, &i) in chosen.iter().enumerate() {
            densify(&data.row(i), landmarks.row_mut(k).as_slice_mut().unwrap());
        }
        Ok((self.fit_landmarks(&landmarks)?, chosen))
    }

    /// Uses every row of `landmarks` as a landmark (their number, not `n_components`, is `m`).
    pub fn fit_landmarks<'a>(&self, landmarks: impl Into<Rows<'a>>) -> Result<Nystroem> {
        let landmarks = landmarks.into();
        if landmarks.n_cols() == 0 {
            return Err(MapError::ZeroInputDim(0));
        }
        if landmarks.n_rows() == 0 {
            return Err(MapError::ZeroComponents(0));
        }
        landmarks.check_finite()?;
        let landmarks = to_dense(landmarks);
        let kernel = self.0.kernel;
        let mut gram = Array2::zeros((landmarks.nrows(), landmarks.nrows()));
        let sq_norms = squared_norms(landmarks.view());
        for_each_row_block(gram.view_mut(), |rows, block| {
            kernel.block_serial(
                landmarks.slice(s![rows, ..]),
                landmarks.view(),
                &sq_norms,
                block,
            );
        });
        let (eigenvalues, eigenvectors) =
            crate::sym_eig::eigh(gram).map_err(MapError::EigenDecomposition)?;
        let largest = eigenvalues.iter().fold(0.0f64, |a, &b| a.max(b));
        let threshold = self.0.eigenvalue_cutoff * largest;
        let scales: Array1<f64> =
            eigenvalues.mapv(|l| if l > threshold { l.powf(-0.5) } else { 0.0 });
        let rank = scales.iter().filter(|&&s| s > 0.0).count();
        // V diag(s) V'.
        let scaled = &eigenvectors * &scales.view().insert_axis(ndarray::Axis(0));
        let normalization = scaled.dot(&eigenvectors.t());
        Ok(Nystroem {
            kernel,
            landmarks: Matrix::owned(landmarks),
            normalization: Matrix::owned(normalization),
            rank,
        })
    }
}

/// The `n_components` rows of `n_rows` that `seed` makes landmarks (uniformly, without
/// replacement), in the order [`NystroemValidParams::fit_with_indices`] uses them. One sampler
/// whatever the kernel: the Python package computes the kernels this crate does not have
/// (scikit-learn's callables and its other named kernels) on the landmarks this picks, so a seed
/// means the same landmarks there too.
pub fn landmark_indices(n_rows: usize, n_components: usize, seed: u64) -> Result<Vec<usize>> {
    if n_components > n_rows {
        return Err(MapError::TooManyLandmarks {
            landmarks: n_components,
            n_samples: n_rows,
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Ok(rand::seq::index::sample(&mut rng, n_rows, n_components).into_vec())
}

/// A fitted Nystroem map. Serialisable (serde), checked when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "NystroemData")]
pub struct Nystroem {
    kernel: Kernel,
    /// `m x d`, one landmark per row.
    #[serde(with = "crate::packed::matrix")]
    landmarks: Matrix,
    /// `K_mm^{-1/2}` (pseudo-inverse square root), symmetric `m x m`.
    #[serde(with = "crate::packed::matrix")]
    normalization: Matrix,
    rank: usize,
}

/// The serialised form of [`Nystroem`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NystroemData {
    kernel: Kernel,
    #[serde(with = "crate::packed::matrix")]
    landmarks: Matrix,
    #[serde(with = "crate::packed::matrix")]
    normalization: Matrix,
    rank: usize,
}

impl TryFrom<NystroemData> for Nystroem {
    type Error = MapError;

    fn try_from(data: NystroemData) -> Result<Self> {
        let NystroemData {
            kernel,
            landmarks,
            normalization,
            rank,
        } = data;
        kernel.check()?;
        let (m, d) = landmarks.view().dim();
        ensure(
            m >= 1 && d >= 1 && normalization.view().dim() == (m, m) && rank <= m,
            "Nystroem",
            || {
                format!(
                    "{m} x {d} landmarks with a {:?} normalisation and rank {rank}",
                    normalization.view().dim()
                )
            },
        )?;
        ensure(
            crate::packed::all_finite([landmarks.view(), normalization.view()]),
            "Nystroem",
            || "non-finite landmark or normalisation entry".into(),
        )?;
        Ok(Self {
            kernel,
            landmarks,
            normalization,
            rank,
        })
    }
}

impl Nystroem {
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The landmarks, one per row.
    pub fn landmarks(&self) -> ArrayView2<'_, f64> {
        self.landmarks.view()
    }

    /// `K_mm^{-1/2}`.
    pub fn normalization(&self) -> ArrayView2<'_, f64> {
        self.normalization.view()
    }

    /// Number of eigenvalues of `K_mm` above the cutoff: the rank of the approximation.
    pub fn rank(&self) -> usize {
        self.rank
    }
}

/// Per-thread buffers: the row made dense, and its kernel values against the landmarks.
#[derive(Debug, Clone)]
pub struct NystroemScratch {
    dense: Vec<f64>,
    kernel_values: Vec<f64>,
}

impl FeatureMap for Nystroem {
    /// The landmarks (`8 m d`) and `K_mm^{-1/2}` (`8 m²`).
    fn memory_bytes(&self) -> usize {
        (self.landmarks().len() + self.normalization().len()) * std::mem::size_of::<f64>()
    }

    type Scratch = NystroemScratch;

    fn input_dim(&self) -> usize {
        self.landmarks().ncols()
    }

    fn output_dim(&self) -> usize {
        self.landmarks().nrows()
    }

    fn new_scratch(&self) -> NystroemScratch {
        NystroemScratch {
            dense: vec![0.0; self.input_dim()],
            kernel_values: vec![0.0; self.output_dim()],
        }
    }

    fn map_row(&self, row: &Row<'_>, out: &mut [f64], scratch: &mut NystroemScratch) {
        // Sparse rows are made dense: the landmarks are dense, so the O(d) copy costs less than
        // the m kernel evaluations it feeds, and dense and sparse input give identical bits.
        densify(row, &mut scratch.dense);
        let x = Row::Dense(ArrayView1::from(&scratch.dense[..]));
        for (k, l) in scratch
            .kernel_values
            .iter_mut()
            .zip(self.landmarks().rows())
        {
            *k = self.kernel.eval(&x, &Row::Dense(l));
        }
        let k = ArrayView1::from(&scratch.kernel_values[..]);
        for (o, w) in out.iter_mut().zip(self.normalization().rows()) {
            *o = w.dot(&k);
        }
    }

    /// Batches: in parallel over fixed blocks of 256 rows (sparse rows made dense), the
    /// kernel block against the landmarks by one matrix product and the features `K N'` by a
    /// second (module `block_product`), on one thread per block while the block is in cache,
    /// instead of `m` kernel evaluations and a matrix-vector product per row. Dense and CSR input
    /// give the same bits, and so do all thread counts (the blocks are fixed); the result matches
    /// [`FeatureMap::map_row`] to rounding (tested).
    fn transform_into<'a>(
        &self,
        rows: impl Into<Rows<'a>>,
        out: ArrayViewMut2<'_, f64>,
    ) -> Result<()> {
        let rows = rows.into();
        check_batch(self, &rows, &out)?;
        let sq_norms = squared_norms(self.landmarks());
        for_each_row_block(out, |range, out_block| {
            let dense_rows;
            let x = match &rows {
                Rows::Dense(x) => x.slice(s![range, ..]),
                Rows::Sparse(_) => {
                    let mut dense = Array2::zeros((range.len(), self.input_dim()));
                    for (i, mut o) in range.zip(dense.rows_mut()) {
                        densify(&rows.row(i), o.as_slice_mut().expect("standard layout"));
                    }
                    dense_rows = dense;
                    dense_rows.view()
                }
            };
            let mut k = Array2::zeros((x.nrows(), self.output_dim()));
            self.kernel
                .block_serial(x, self.landmarks(), &sq_norms, k.view_mut());
            product_into(k.view(), self.normalization().t(), out_block);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_product::PRODUCT_ROWS;
    use crate::csr::CsrMatrix;
    use ndarray::Axis;
    use ndarray_linalg::Inverse;
    use rand::Rng;
    use rand_distr::StandardNormal;

    fn gaussian_data(n: usize, d: usize, seed: u64) -> Array2<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Array2::from_shape_fn((n, d), |_| rng.sample(StandardNormal))
    }

    fn max_abs(a: &Array2<f64>) -> f64 {
        a.iter().fold(0.0f64, |m, v| m.max(v.abs()))
    }

    fn kernels() -> [Kernel; 3] {
        [
            Kernel::gaussian(1.0).unwrap(),
            Kernel::laplacian(2.0).unwrap(),
            Kernel::polynomial(2, 1.0).unwrap(),
        ]
    }

    /// The indices name the rows that became the landmarks, in the landmarks' order, distinct,
    /// and the map is `fit`'s to the bit.
    #[test]
    fn fit_with_indices_names_the_landmark_rows() {
        let x = gaussian_data(40, 3, 5);
        let params = NystroemParams::new(Kernel::gaussian(1.0).unwrap(), 12)
            .seed(9)
            .check()
            .unwrap();
        let (map, indices) = params.fit_with_indices(&x).unwrap();
        assert_eq!(indices.len(), 12);
        let mut sorted = indices.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 12);
        for (k, &i) in indices.iter().enumerate() {
            assert_eq!(map.landmarks().row(k), x.row(i));
        }
        assert_eq!(map, params.fit(&x).unwrap());
    }

    /// Every kernel, for the tests of the batched paths.
    fn every_kernel() -> [Kernel; 6] {
        [
            Kernel::gaussian(1.0).unwrap(),
            Kernel::laplacian(2.0).unwrap(),
            Kernel::polynomial(2, 1.0).unwrap(),
            Kernel::libsvm_polynomial(3, 0.5, 0.25).unwrap(),
            Kernel::linear(),
            Kernel::matern(1.5, 2.0).unwrap(),
        ]
    }

    /// The entry-by-entry kernel matrix: the reference.
    fn naive_matrix(kernel: &Kernel, a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
        Array2::from_shape_fn((a.nrows(), b.nrows()), |(i, j)| {
            kernel.eval(&Row::Dense(a.row(i)), &Row::Dense(b.row(j)))
        })
    }

    /// With every point a landmark, `Z Z' = K K^+ K = K`. 40 standard normal points in d = 5:
    /// the Gaussian and Laplacian Gram matrices are well conditioned (off-diagonal entries are
    /// small), the polynomial one has rank 21 < 40, which the pseudo-inverse handles.
    #[test]
    fn all_points_as_landmarks_reproduce_the_gram_matrix() {
        let x = gaussian_data(40, 5, 1);
        for kernel in kernels() {
            let map = NystroemParams::new(kernel, 40).seed(2).fit(&x).unwrap();
            let z = map.transform(&x).unwrap();
            let error = max_abs(&(z.dot(&z.t()) - naive_matrix(&kernel, &x, &x)));
            assert!(error < 1e-8, "{kernel:?}: max error {error}");
        }
        let polynomial = NystroemParams::new(kernels()[2], 40).fit(&x).unwrap();
        assert_eq!(polynomial.rank(), 21);
    }

    /// `<z(x), z(y)> = k_m(x)' K_mm^{-1} k_m(y)`, with the inverse from an LU factorisation
    /// instead of the eigendecomposition.
    #[test]
    fn approximate_kernel_matches_naive_formula() {
        let (x, y) = (gaussian_data(60, 4, 3), gaussian_data(15, 4, 4));
        for kernel in kernels() {
            let map = NystroemParams::new(kernel, 12).seed(5).fit(&x).unwrap();
            let l = map.landmarks().to_owned();
            let naive = kernel
                .cross_gram(&y, &l)
                .dot(&naive_matrix(&kernel, &l, &l).inv().unwrap())
                .dot(&naive_matrix(&kernel, &l, &y));
            let z = map.transform(&y).unwrap();
            let error = max_abs(&(z.dot(&z.t()) - naive));
            assert!(error < 1e-8, "{kernel:?}: {error}");
            // Landmarks are distinct rows of the data.
            for lm in l.rows() {
                assert!(x.rows().into_iter().any(|r| r == lm));
            }
        }
    }

    /// Gram-matrix error (Frobenius) on 300 points decreases as the number of landmarks grows.
    #[test]
    fn gram_error_decreases_with_landmarks() {
        let x = gaussian_data(300, 3, 6);
        let kernel = Kernel::Gaussian { sigma: 1.5 };
        let exact = naive_matrix(&kernel, &x, &x);
        let errors: Vec<f64> = [5, 20, 80, 300]
            .iter()
            .map(|&m| {
                let z = NystroemParams::new(kernel, m)
                    .seed(7)
                    .fit(&x)
                    .unwrap()
                    .transform(&x)
                    .unwrap();
                (z.dot(&z.t()) - &exact).mapv(|e| e * e).sum().sqrt()
            })
            .collect();
        assert!(errors.windows(2).all(|w| w[1] < w[0]), "{errors:?}");
        assert!(errors[3] < 1e-6, "{errors:?}");
    }

    #[test]
    fn dense_and_sparse_input_give_identical_features() {
        let mut x = gaussian_data(50, 8, 8);
        x.indexed_iter_mut()
            .for_each(|((i, j), v)| *v *= ((i + j) % 3 == 0) as u8 as f64);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for kernel in every_kernel() {
            let map = NystroemParams::new(kernel, 10).seed(9).fit(&csr).unwrap();
            assert_eq!(
                map,
                NystroemParams::new(kernel, 10).seed(9).fit(&x).unwrap()
            );
            assert_eq!(map.transform(&x).unwrap(), map.transform(&csr).unwrap());
        }
    }

    /// The matrix-product kernel block against the entry-by-entry reference, and the batched
    /// transform (blocks of rows, two products each) against the row-by-row `map_row`, over more
    /// rows than one block. Differences are rounding only: the expanded squared distance loses
    /// about `eps (‖x‖² + ‖l‖²)` (here `‖x‖² ≈ d = 6`), the polynomial kernels' rounding is
    /// relative to their size `max |K|`; the features sum `m = 30` products of entries below
    /// `‖N‖ max |K|`.
    #[test]
    fn matrix_product_paths_match_the_references() {
        let x = gaussian_data(4 * PRODUCT_ROWS + 300, 6, 12);
        for kernel in every_kernel() {
            let map = NystroemParams::new(kernel, 30).seed(3).fit(&x).unwrap();
            let l = map.landmarks();
            let mut block = Array2::zeros((x.nrows(), 30));
            kernel.block_serial(
                x.view(),
                l.view(),
                &squared_norms(l.view()),
                block.view_mut(),
            );
            let reference = naive_matrix(&kernel, &x, &l.to_owned());
            let kernel_scale = max_abs(&reference).max(1.0);
            assert!(
                max_abs(&(&block - &reference)) < 1e-12 * kernel_scale,
                "{kernel:?}"
            );
            let batched = map.transform(&x).unwrap();
            let mut scratch = map.new_scratch();
            let mut row = vec![0.0; 30];
            let scale = max_abs(&map.normalization().to_owned()) * kernel_scale;
            for i in 0..x.nrows() {
                map.map_row(&Row::Dense(x.row(i)), &mut row, &mut scratch);
                for (a, b) in batched.row(i).iter().zip(&row) {
                    assert!(
                        (a - b).abs() < 1e-11 * scale,
                        "{kernel:?} row {i}: {a} vs {b}"
                    );
                }
            }
        }
    }

    /// Fit and batched transform give the same bits on one, two and three threads, for dense and
    /// CSR input, over several blocks of the blocked products.
    #[test]
    fn deterministic_across_thread_counts() {
        let x = gaussian_data(3 * PRODUCT_ROWS + 17, 9, 21);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        for kernel in every_kernel() {
            let run = |threads: usize| {
                crate::test_support::on_threads(threads, || {
                    let map = NystroemParams::new(kernel, 300).seed(4).fit(&x).unwrap();
                    (map.transform(&x).unwrap(), map.transform(&csr).unwrap())
                })
            };
            let reference = run(1);
            assert_eq!(reference.0, reference.1, "{kernel:?}: dense vs CSR");
            for threads in [2, 3] {
                assert_eq!(run(threads), reference, "{kernel:?}, {threads} threads");
            }
        }
    }

    /// Duplicate landmarks make `K_mm` singular; the cutoff drops the null direction.
    #[test]
    fn duplicate_landmarks_are_handled_by_the_cutoff() {
        let x = gaussian_data(6, 3, 10);
        let landmarks =
            ndarray::concatenate(Axis(0), &[x.view(), x.slice(ndarray::s![..2, ..])]).unwrap();
        let kernel = Kernel::Gaussian { sigma: 1.0 };
        let map = NystroemParams::new(kernel, 1)
            .check()
            .unwrap()
            .fit_landmarks(&landmarks)
            .unwrap();
        assert_eq!((map.output_dim(), map.rank()), (8, 6));
        let z = map.transform(&x).unwrap();
        assert!(max_abs(&(z.dot(&z.t()) - naive_matrix(&kernel, &x, &x))) < 1e-8);
    }

    #[test]
    fn invalid_parameters_are_errors() {
        let x = gaussian_data(5, 2, 11);
        let gaussian = Kernel::Gaussian { sigma: 1.0 };
        assert_eq!(
            NystroemParams::new(gaussian, 6).fit(&x).unwrap_err(),
            MapError::TooManyLandmarks {
                landmarks: 6,
                n_samples: 5
            }
        );
        assert_eq!(
            NystroemParams::new(gaussian, 0).check().unwrap_err(),
            MapError::ZeroComponents(0)
        );
        assert_eq!(
            NystroemParams::new(Kernel::Laplacian { sigma: -1.0 }, 2)
                .check()
                .unwrap_err(),
            MapError::InvalidKernelParameter {
                kernel: "laplacian",
                parameter: "sigma",
                value: -1.0,
                valid: "finite and > 0"
            }
        );
        assert_eq!(
            NystroemParams::new(gaussian, 2)
                .eigenvalue_cutoff(1.5)
                .check()
                .unwrap_err(),
            MapError::InvalidEigenvalueCutoff(1.5)
        );
        let bad = ndarray::array![[1.0, f64::NAN]];
        assert!(matches!(
            NystroemParams::new(gaussian, 1).fit(&bad),
            Err(MapError::NonFinite { row: 0, col: 1, .. })
        ));
        let map = NystroemParams::new(gaussian, 2).fit(&x).unwrap();
        assert_eq!(
            map.transform(&Array2::zeros((1, 3))).unwrap_err(),
            MapError::DimensionMismatch {
                expected: 2,
                got: 3
            }
        );
    }
}
