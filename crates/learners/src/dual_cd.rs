//! The dual coordinate descent solver for one binary linear SVM (Hsieh, Chang, Lin, Keerthi and
//! Sundararajan, "A dual coordinate descent method for large-scale linear SVM", ICML 2008), the
//! algorithm behind LIBLINEAR's `-s 1` and `-s 3`.
//!
//! With labels `y_i in {-1, +1}`, rows `x_i` (the bias feature appended) and per-row costs `C_i`,
//! the dual problem is
//!
//! ```text
//! min_alpha  f(alpha) = 1/2 alpha' Qbar alpha - e' alpha,   0 <= alpha_i <= U_i,
//! Qbar = Q + D,  Q_ij = y_i y_j <x_i, x_j>,
//! L1 loss (hinge):           U_i = C_i,   D_ii = 0
//! L2 loss (squared hinge):   U_i = inf,   D_ii = 1 / (2 C_i)
//! ```
//!
//! and the primal weights are kept up to date as `w = sum_i y_i alpha_i x_i`, so that the partial
//! derivative `G_i = y_i <w, x_i> - 1 + D_ii alpha_i` costs one sparse dot product. Each outer
//! iteration visits the active coordinates in a fresh random order and takes the exact minimiser
//! along each one, clipped to the box: `alpha_i <- min(max(alpha_i - G_i / Qbar_ii, 0), U_i)`.
//!
//! Stopping rule (LIBLINEAR's): the projected gradient `PG_i` is `G_i` clipped to zero where the
//! bound is active in the direction of descent; a pass stops the solver once
//! `max PG - min PG <= eps` over the whole set. Shrinking: a coordinate at a bound whose gradient
//! points out of the box by more than the previous pass's extreme projected gradient is dropped
//! from the active set; when the active set meets the tolerance, every coordinate is brought back
//! and the solver only stops if the full set meets it too. Reaching `max_iter` is reported with
//! `converged = false`, never silently.
//!
//! Cost: O(nnz) per pass.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rfbench_maps::CsrMatrix;

/// Which loss the SVM minimises; fixes the dual's box and diagonal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SvmLoss {
    /// Hinge loss `max(0, 1 - y w'x)` (LIBLINEAR `-s 3`).
    L1,
    /// Squared hinge loss `max(0, 1 - y w'x)^2` (LIBLINEAR `-s 1`, its default).
    #[default]
    L2,
}

/// How a solver run ended. `gap` is `max PG - min PG` of the last pass (over the active set when
/// the run stopped at `max_iter` with some coordinates shrunk).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvergenceReport {
    /// Outer iterations (passes over the active set) performed.
    pub iterations: usize,
    /// Final projected-gradient gap `max PG - min PG`.
    pub gap: f64,
    /// Dual objective `f(alpha)` (LIBLINEAR's printed "Objective value"; it is <= 0).
    pub objective: f64,
    /// Rows with `alpha_i > 0`.
    pub support_vectors: usize,
    /// Whether the gap met `eps` over all rows before `max_iter`.
    pub converged: bool,
}

/// Rows the solver can visit: a dot product with and an update of the weight vector.
pub(crate) trait DualRows: Sync {
    fn n_rows(&self) -> usize;
    /// `<x_i, w>` over the data columns (the bias is handled by the solver).
    fn dot(&self, i: usize, w: &[f64]) -> f64;
    /// `w += a x_i` over the data columns.
    fn axpy(&self, i: usize, a: f64, w: &mut [f64]);
    fn squared_norm(&self, i: usize) -> f64;
}

/// Sparse rows of a CSR matrix.
pub(crate) struct SparseRows<'a>(pub &'a CsrMatrix);

impl DualRows for SparseRows<'_> {
    fn n_rows(&self) -> usize {
        self.0.n_rows()
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        let (idx, val) = self.0.row_parts(i);
        sparse_dot(idx, val, w)
    }
    #[inline]
    fn axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        let (idx, val) = self.0.row_parts(i);
        sparse_axpy(idx, val, a, w)
    }
    fn squared_norm(&self, i: usize) -> f64 {
        self.0.row_parts(i).1.iter().map(|v| v * v).sum()
    }
}

/// Dense rows, row-major and contiguous.
pub(crate) struct DenseRows<'a> {
    pub data: &'a [f64],
    pub n_cols: usize,
}

impl DenseRows<'_> {
    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.n_cols..(i + 1) * self.n_cols]
    }
}

impl DualRows for DenseRows<'_> {
    fn n_rows(&self) -> usize {
        self.data.len().checked_div(self.n_cols).unwrap_or(0)
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        dense_dot(self.row(i), w)
    }
    #[inline]
    fn axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        dense_axpy(self.row(i), a, w)
    }
    fn squared_norm(&self, i: usize) -> f64 {
        self.row(i).iter().map(|v| v * v).sum()
    }
}

/// `sum_k values[k] * w[indices[k]]`.
#[inline]
pub(crate) fn sparse_dot(indices: &[u32], values: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&j, &v) in indices.iter().zip(values) {
        s += v * w[j as usize];
    }
    s
}

/// `w[indices[k]] += a * values[k]`.
#[inline]
pub(crate) fn sparse_axpy(indices: &[u32], values: &[f64], a: f64, w: &mut [f64]) {
    for (&j, &v) in indices.iter().zip(values) {
        w[j as usize] += a * v;
    }
}

/// `<x, w>` with four partial sums (lets the compiler vectorise; the rounding differs from a
/// left-to-right sum, which the tests account for).
#[inline]
pub(crate) fn dense_dot(x: &[f64], w: &[f64]) -> f64 {
    let w = &w[..x.len()];
    let mut acc = [0.0; 4];
    let (xc, xr) = x.split_at(x.len() - x.len() % 4);
    let (wc, wr) = w.split_at(xc.len());
    for (a, b) in xc.chunks_exact(4).zip(wc.chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += a[k] * b[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (a, b) in xr.iter().zip(wr) {
        s += a * b;
    }
    s
}

/// `w += a x`.
#[inline]
pub(crate) fn dense_axpy(x: &[f64], a: f64, w: &mut [f64]) {
    for (wj, &xj) in w[..x.len()].iter_mut().zip(x) {
        *wj += a * xj;
    }
}

/// Settings of one binary solve (already validated by the caller).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DualSettings {
    pub loss: SvmLoss,
    /// Cost of the rows with `y = +1` and `y = -1`.
    pub c_positive: f64,
    pub c_negative: f64,
    pub eps: f64,
    pub max_iter: usize,
    /// Value of the appended constant feature, or `None` for no bias.
    pub bias: Option<f64>,
    pub shrinking: bool,
    pub seed: u64,
}

pub(crate) struct DualSolution {
    /// Weights over the data columns, then the bias weight if there is a bias feature.
    pub w: Vec<f64>,
    pub report: ConvergenceReport,
}

/// Solves the dual for labels `y` (each `+1.0` or `-1.0`) over `n_cols` data columns.
pub(crate) fn solve_dual<R: DualRows>(
    data: &R,
    n_cols: usize,
    y: &[f64],
    s: &DualSettings,
) -> DualSolution {
    let n = data.n_rows();
    debug_assert_eq!(y.len(), n);
    let bias = s.bias.unwrap_or(0.0);
    let has_bias = s.bias.is_some();
    let boxes = ClassBoxes::new(s);

    let mut w = vec![0.0; n_cols + usize::from(has_bias)];
    let mut alpha = vec![0.0; n];
    let qd: Vec<f64> = (0..n)
        .map(|i| boxes.of(y[i]).1 + data.squared_norm(i) + bias * bias)
        .collect();
    let mut index: Vec<usize> = (0..n).collect();
    let mut active = n;
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);

    let mut thresholds = ShrinkThresholds::NONE;
    let mut iterations = 0;
    let mut gap = f64::INFINITY;
    let mut converged = false;

    while iterations < s.max_iter {
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        index[..active].shuffle(&mut rng);
        let mut k = 0;
        while k < active {
            let i = index[k];
            let yi = y[i];
            let (upper, diag) = boxes.of(yi);
            let (wx, wb) = w.split_at_mut(n_cols);
            let mut dot = data.dot(i, wx);
            if has_bias {
                dot += bias * wb[0];
            }
            let g = yi * dot - 1.0 + diag * alpha[i];
            let Some(pg) = projected_gradient(alpha[i], upper, g, s.shrinking, thresholds) else {
                active -= 1;
                index.swap(k, active);
                continue;
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 {
                let old = alpha[i];
                alpha[i] = (old - g / qd[i]).max(0.0).min(upper);
                let step = (alpha[i] - old) * yi;
                data.axpy(i, step, wx);
                if has_bias {
                    wb[0] += step * bias;
                }
            }
            k += 1;
        }
        iterations += 1;
        gap = if active == 0 { 0.0 } else { pg_max - pg_min };

        if gap <= s.eps {
            if active == n {
                converged = true;
                break;
            }
            // The active set is solved: check every coordinate again before stopping.
            active = n;
            thresholds = ShrinkThresholds::NONE;
            continue;
        }
        thresholds = ShrinkThresholds::after_pass(pg_max, pg_min);
    }

    let objective = dual_objective(&w, &alpha, y, |yi| boxes.of(yi).1);
    let support_vectors = alpha.iter().filter(|&&a| a > 0.0).count();
    DualSolution {
        w,
        report: ConvergenceReport {
            iterations,
            gap,
            objective,
            support_vectors,
            converged,
        },
    }
}

/// The dual's box and diagonal per class: `(U, D)` of the rows with `y = +1` and `y = -1`.
struct ClassBoxes {
    positive: (f64, f64),
    negative: (f64, f64),
}

impl ClassBoxes {
    fn new(s: &DualSettings) -> Self {
        let box_of = |c: f64| match s.loss {
            SvmLoss::L1 => (c, 0.0),
            SvmLoss::L2 => (f64::INFINITY, 0.5 / c),
        };
        ClassBoxes {
            positive: box_of(s.c_positive),
            negative: box_of(s.c_negative),
        }
    }

    /// `(U_i, D_ii)` of a row with label `yi`.
    #[inline]
    fn of(&self, yi: f64) -> (f64, f64) {
        if yi > 0.0 {
            self.positive
        } else {
            self.negative
        }
    }
}

/// The previous pass's extreme projected gradients: the shrinking thresholds.
#[derive(Clone, Copy)]
struct ShrinkThresholds {
    pg_max: f64,
    pg_min: f64,
}

impl ShrinkThresholds {
    /// Thresholds that shrink nothing (the first pass, and after the active set is restored).
    const NONE: Self = ShrinkThresholds {
        pg_max: f64::INFINITY,
        pg_min: f64::NEG_INFINITY,
    };

    /// LIBLINEAR's thresholds after a pass with extreme projected gradients `pg_max`, `pg_min`:
    /// a side on which no gradient pointed out of the box shrinks nothing.
    fn after_pass(pg_max: f64, pg_min: f64) -> Self {
        ShrinkThresholds {
            pg_max: if pg_max <= 0.0 { f64::INFINITY } else { pg_max },
            pg_min: if pg_min >= 0.0 {
                f64::NEG_INFINITY
            } else {
                pg_min
            },
        }
    }
}

/// The projected gradient `PG_i` of a coordinate at `alpha` in `[0, upper]` with gradient `g`,
/// or `None` when shrinking drops it: at a bound, with its gradient pointing out of the box
/// beyond the previous pass's extreme.
#[inline]
fn projected_gradient(
    alpha: f64,
    upper: f64,
    g: f64,
    shrinking: bool,
    old: ShrinkThresholds,
) -> Option<f64> {
    let mut pg = 0.0;
    if alpha == 0.0 {
        if shrinking && g > old.pg_max {
            return None;
        } else if g < 0.0 {
            pg = g;
        }
    } else if alpha == upper {
        if shrinking && g < old.pg_min {
            return None;
        } else if g > 0.0 {
            pg = g;
        }
    } else {
        pg = g;
    }
    Some(pg)
}

/// `f(alpha) = 1/2 w'w + sum_i alpha_i (D_ii alpha_i / 2 - 1)` with `w = sum_i y_i alpha_i x_i`
/// (equal to `1/2 alpha' Qbar alpha - e' alpha`).
fn dual_objective(w: &[f64], alpha: &[f64], y: &[f64], diag: impl Fn(f64) -> f64) -> f64 {
    let ww: f64 = w.iter().map(|v| v * v).sum();
    let rest: f64 = alpha
        .iter()
        .zip(y)
        .map(|(&a, &yi)| a * (0.5 * diag(yi) * a - 1.0))
        .sum();
    0.5 * ww + rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn random_sparse(
        n: usize,
        d: usize,
        density: f64,
        seed: u64,
    ) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut indptr, mut indices, mut values) = (vec![0], vec![], vec![]);
        for _ in 0..n {
            for j in 0..d {
                if rng.random::<f64>() < density {
                    indices.push(j as u32);
                    values.push(rng.random_range(-2.0..2.0));
                }
            }
            indptr.push(indices.len());
        }
        (indptr, indices, values)
    }

    #[test]
    fn sparse_kernels_match_dense_reference() {
        let (indptr, indices, values) = random_sparse(20, 37, 0.3, 1);
        let csr = CsrMatrix::new(37, indptr.clone(), indices.clone(), values.clone()).unwrap();
        let rows = SparseRows(&csr);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let w: Vec<f64> = (0..37).map(|_| rng.random_range(-1.0..1.0)).collect();
        for i in 0..20 {
            let mut dense = vec![0.0; 37];
            let (a, b) = (indptr[i], indptr[i + 1]);
            for k in a..b {
                dense[indices[k] as usize] = values[k];
            }
            let naive: f64 = dense.iter().zip(&w).map(|(x, y)| x * y).sum();
            // Same products summed in the same order (zeros add exactly): bit-identical.
            assert_eq!(rows.dot(i, &w), naive);
            let mut w1 = w.clone();
            rows.axpy(i, 0.7, &mut w1);
            let w2: Vec<f64> = w.iter().zip(&dense).map(|(a, x)| a + 0.7 * x).collect();
            assert_eq!(w1, w2);
        }
    }

    #[test]
    fn dense_dot_matches_left_to_right_sum() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for len in 0..40 {
            let x: Vec<f64> = (0..len).map(|_| rng.random_range(-1.0..1.0)).collect();
            let w: Vec<f64> = (0..len + 3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let naive: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let scale: f64 = x.iter().zip(&w).map(|(a, b)| (a * b).abs()).sum();
            // Four partial sums reorder the additions: error bounded by len * eps * sum |x_k w_k|.
            assert!(
                (dense_dot(&x, &w) - naive).abs() <= (len as f64 + 1.0) * f64::EPSILON * scale,
                "len {len}"
            );
            let mut w1 = w.clone();
            dense_axpy(&x, -1.3, &mut w1);
            for k in 0..len + 3 {
                let expect = if k < len { w[k] + -1.3 * x[k] } else { w[k] };
                assert_eq!(w1[k], expect);
            }
        }
    }
}
