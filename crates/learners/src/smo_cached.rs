//! LIBSVM's C-SVC solver in bounded memory: the SMO of [`crate::smo`] (second-order working-set
//! selection, WSS 2 of Fan, Chen and Lin 2005; free intercept, `y'a = 0`) driven by kernel rows
//! computed on demand into a least-recently-used [`KernelCache`], with LIBSVM's shrinking. A port
//! of `Solver::Solve` in LIBSVM 3's `svm.cpp`, step for step:
//!
//! - Every `min(l, 1000)` steps, `do_shrinking` drops from the active set the bounded variables
//!   whose gradient says they will stay bounded (`be_shrunk`, against the current maximal
//!   violation `Gmax1`, `Gmax2`); the first time the violation falls below `10 eps` the whole
//!   gradient is rebuilt and every variable made active again ("unshrink").
//! - The gradient of inactive variables is not updated; `G_bar_t = sum_{a_s = C} C Q_ts` is, so
//!   that `reconstruct_gradient` can rebuild it from `G_bar` and the free variables.
//! - When the active set looks optimal the gradient is reconstructed and the check repeated over
//!   all variables; only that check can stop the solver (`gap < eps`, LIBSVM's `-e`), so the
//!   reported optimum and gap are over all `l` variables, as LIBSVM's.
//! - Active variables are kept as a prefix by swapping positions, so that loops run over slices
//!   and kernel rows are only computed over the active prefix.
//!
//! The cache holds kernel values `K_ts` (not `Q_ts = y_t y_s K_ts`) in double precision, and the
//! arithmetic of each step is that of [`crate::smo::solve_smo`]; with shrinking off, the path is
//! the full-matrix solver's, bit for bit. The value at position `(t, s)` is always
//! `k(x_{row t}, x_{row s})`, whenever it is computed, so the path does not depend on the cache
//! size; row entries are computed in parallel, each independently, so it does not depend on the
//! thread count either.
//!
//! Cost per step: `O(active)` for the selection and the gradient update, plus `O(active d)` kernel
//! work for each of the two rows not in the cache.

use ndarray::ArrayView1;
use rayon::prelude::*;
use rfbench_maps::{Row, Rows};

use crate::kernel_baselines::KernelFunction as Kernel;
use crate::kernel_cache::KernelCache;
use crate::smo_gradient::{add_scaled_row, add_scaled_signed, free_dot, par_update_gradient};
use crate::smo_select::{par_most_violating_up, par_second_order_partner, sets, violations, TAU};
use crate::svm_dual::{calculate_rho, dual_objective, Bound};

/// Kernel entries per rayon task when filling a row, and the shortest fill that goes parallel:
/// below this, waking a second thread costs more than it saves (a sparse dot product of Adult
/// rows is ~50 ns, a rayon hand-off some microseconds, more on a loaded machine).
const MIN_ENTRIES_PER_TASK: usize = 8192;

/// How a cached SMO run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SmoReport {
    /// Two-coordinate steps taken (LIBSVM's `#iter`).
    pub iterations: usize,
    /// Final maximal violation `max_{I_up} -y_t G_t + max_{I_low} y_t G_t`, over all variables.
    pub gap: f64,
    /// Dual objective `1/2 a'Q a - e'a` (LIBSVM's `obj`; it is <= 0).
    pub objective: f64,
    /// LIBSVM's `rho`: the decision value is `sum_t y_t a_t k(x_t, x) - rho`.
    pub rho: f64,
    /// Variables with `a_t > 0`.
    pub support_vectors: usize,
    /// Variables with `a_t = C` (LIBSVM's `nBSV`).
    pub bounded_support_vectors: usize,
    /// Whether the gap fell below `eps` before the step cap; `false` means the cap stopped it.
    pub converged: bool,
    /// Kernel values computed, diagonal included (a measure of cache misses).
    pub kernel_evaluations: u64,
    /// Most bytes of kernel values the cache held at once (never above its size).
    pub cache_peak_bytes: u64,
}

/// Settings of one two-class problem, already validated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SmoSettings {
    pub c: f64,
    pub eps: f64,
    pub shrinking: bool,
    pub max_steps: usize,
    pub cache_bytes: u64,
}

/// A solved two-class dual: `alpha` in the order of the `rows` given to [`solve_cached`].
pub(crate) struct CachedSolution {
    pub alpha: Vec<f64>,
    pub report: SmoReport,
    /// The smallest active set shrinking left (`l` if it never shrank): tests check that the
    /// shrinking paths were exercised.
    #[cfg_attr(not(test), allow(dead_code))]
    pub smallest_active: usize,
}

/// The kernel rows of one problem, in the solver's current position order.
struct KernelRows<'k, 'x, K: ?Sized> {
    kernel: &'k K,
    x: Rows<'x>,
    /// Data row of each position.
    row_of: Vec<usize>,
    cache: KernelCache,
    evaluations: u64,
    /// Sparse input: the row being filled, scattered to dense form (zero elsewhere).
    dense: Vec<f64>,
    /// The kernel as a function of dot products, when it is one: each value is then one dot
    /// product (a gather for sparse rows) instead of a call to the kernel.
    form: Option<rfbench_maps::Kernel>,
    /// `‖x_r‖²` by data row (zero for rows outside the problem), when `form` needs them.
    norms: Vec<f64>,
}

impl<K: Kernel + ?Sized> KernelRows<'_, '_, K> {
    /// Makes entries `[0, len)` of the kernel row at position `p` cached.
    ///
    /// With sparse input the row's own vector goes to the kernel in dense form, the same vector:
    /// a dot product with it is then a gather over the other row's non-zeros instead of a merge
    /// of two index lists, and sums the same products in the same order, plus exact zeros, so a
    /// dot-product kernel gets the same values.
    fn fetch(&mut self, p: usize, len: usize) {
        let (x, row_of) = (self.x, &self.row_of);
        let entry = Entry {
            kernel: self.kernel,
            form: self.form,
            norms: &self.norms,
        };
        let dense = &mut self.dense;
        let mut computed = 0;
        self.cache.fetch(p, len, |start, out| {
            computed = out.len() as u64;
            let cols = &row_of[start..start + out.len()];
            match x {
                Rows::Dense(_) => {
                    fill_kernel_row(&entry, x, &x.row(row_of[p]), row_of[p], cols, out)
                }
                Rows::Sparse(m) => {
                    let (indices, values) = m.row_parts(row_of[p]);
                    for (&j, &v) in indices.iter().zip(values) {
                        dense[j as usize] = v;
                    }
                    match entry.form {
                        Some(_) => fill_sparse_dot_row(&entry, m, dense, row_of[p], cols, out),
                        None => {
                            let row = Row::Dense(ArrayView1::from(&dense[..]));
                            fill_kernel_row(&entry, x, &row, row_of[p], cols, out)
                        }
                    }
                    for &j in indices {
                        dense[j as usize] = 0.0;
                    }
                }
            }
        });
        self.evaluations += computed;
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.row_of.swap(i, j);
    }
}

/// How one kernel value is computed: by the kernel, or from a dot product and the squared norms.
struct Entry<'a, K: ?Sized> {
    kernel: &'a K,
    form: Option<rfbench_maps::Kernel>,
    norms: &'a [f64],
}

impl<K: Kernel + ?Sized> Entry<'_, K> {
    /// `k(xr, xs)`, where `xr` is data row `r` (possibly in dense form) and `xs` data row `s`.
    #[inline]
    fn value(&self, xr: &Row<'_>, r: usize, xs: &Row<'_>, s: usize) -> f64 {
        match self.form {
            Some(form) => {
                let norm = |t: usize| self.norms.get(t).copied().unwrap_or(0.0);
                form.from_dots(xr.dot(xs), norm(r), norm(s))
                    .unwrap_or_else(|| self.kernel.eval(xr, xs))
            }
            None => self.kernel.eval(xr, xs),
        }
    }
}

/// `‖x_r‖²` for the data rows `rows` (zero elsewhere) when `form` reads norms, else nothing.
fn squared_norms(x: Rows<'_>, rows: &[usize], form: Option<rfbench_maps::Kernel>) -> Vec<f64> {
    if !form.is_some_and(|f| f.dot_form().1) {
        return Vec::new();
    }
    let mut norms = vec![0.0; x.n_rows()];
    for &r in rows {
        let row = x.row(r);
        norms[r] = row.dot(&row);
    }
    norms
}

/// `out[t] = k(xr, x_{cols[t]})` ([`fill_entries`]).
fn fill_kernel_row<K: Kernel + ?Sized>(
    entry: &Entry<'_, K>,
    x: Rows<'_>,
    xr: &Row<'_>,
    r: usize,
    cols: &[usize],
    out: &mut [f64],
) {
    fill_entries(cols, out, |s| entry.value(xr, r, &x.row(s), s));
}

/// `out[t] = value(cols[t])`, in parallel when there are enough entries; each entry is computed
/// on its own, so the values do not depend on how the work is split.
fn fill_entries(cols: &[usize], out: &mut [f64], value: impl Fn(usize) -> f64 + Sync) {
    if out.len() < MIN_ENTRIES_PER_TASK {
        for (v, &s) in out.iter_mut().zip(cols) {
            *v = value(s);
        }
        return;
    }
    out.par_iter_mut()
        .zip(cols.par_iter())
        .with_min_len(MIN_ENTRIES_PER_TASK)
        .for_each(|(v, &s)| *v = value(s));
}

/// [`fill_kernel_row`] for sparse data and a dot-product kernel (`entry.form`): each value is
/// the gather of data row `s`'s non-zeros against data row `r` made dense (`dense`), read from
/// the CSR arrays directly rather than through a `Row` and two matches per entry, with the same
/// products summed in the same order as [`Row::dot`] (so the same values).
fn fill_sparse_dot_row<K: Kernel + ?Sized>(
    entry: &Entry<'_, K>,
    m: &rfbench_maps::CsrMatrix,
    dense: &[f64],
    r: usize,
    cols: &[usize],
    out: &mut [f64],
) {
    let norm = |t: usize| entry.norms.get(t).copied().unwrap_or(0.0);
    let value = |s: usize| {
        let (indices, values) = m.row_parts(s);
        let dot: f64 = indices
            .iter()
            .zip(values)
            .map(|(&j, &v)| dense[j as usize] * v)
            .sum();
        match entry.form.and_then(|f| f.from_dots(dot, norm(r), norm(s))) {
            Some(v) => v,
            None => entry
                .kernel
                .eval(&Row::Dense(ArrayView1::from(dense)), &m.row(s)),
        }
    };
    fill_entries(cols, out, value);
}

/// The solver's state, every per-variable array in position order.
struct Solver<'k, 'x, K: ?Sized> {
    q: KernelRows<'k, 'x, K>,
    y: Vec<f64>,
    alpha: Vec<f64>,
    status: Vec<Bound>,
    /// The gradient signed by the label, `y_t G_t` (module `smo_gradient`): what the selection
    /// compares, and exactly LIBSVM's product.
    yg: Vec<f64>,
    /// Each variable's working sets (`smo_select::sets`), kept with its status.
    sets: Vec<u8>,
    grad_bar: Vec<f64>,
    qd: Vec<f64>,
    /// Problem index (into the caller's `rows`) of each position.
    index_of: Vec<usize>,
    active: usize,
    c: f64,
    eps: f64,
    unshrink: bool,
}

/// Solves the C-SVC dual over the data rows `rows` of `x` with labels `y` (`+1/-1`, one per entry
/// of `rows`).
pub(crate) fn solve_cached<K: Kernel + ?Sized>(
    kernel: &K,
    x: Rows<'_>,
    rows: &[usize],
    y: &[f64],
    s: &SmoSettings,
) -> CachedSolution {
    let l = rows.len();
    let qd: Vec<f64> = rows
        .par_iter()
        .map(|&r| kernel.eval(&x.row(r), &x.row(r)))
        .collect();
    let c = s.c;
    let mut sv = Solver {
        q: KernelRows {
            kernel,
            x,
            row_of: rows.to_vec(),
            cache: KernelCache::new(l, s.cache_bytes),
            evaluations: l as u64,
            dense: match x {
                Rows::Dense(_) => Vec::new(),
                Rows::Sparse(m) => vec![0.0; m.n_cols()],
            },
            form: kernel.dot_form(),
            norms: squared_norms(x, rows, kernel.dot_form()),
        },
        y: y.to_vec(),
        alpha: vec![0.0; l],
        status: vec![Bound::Lower; l],
        yg: y.iter().map(|&y| -y).collect(),
        sets: y.iter().map(|&y| sets(y, Bound::Lower)).collect(),
        grad_bar: vec![0.0; l],
        qd,
        index_of: (0..l).collect(),
        active: l,
        c,
        eps: s.eps,
        unshrink: false,
    };
    let mut iterations = 0usize;
    let mut counter = l.min(1000) + 1;
    let mut smallest_active = l;
    let (converged, gap) = loop {
        if iterations >= s.max_steps {
            break (false, f64::NAN);
        }
        counter -= 1;
        if counter == 0 {
            counter = l.min(1000);
            if s.shrinking {
                sv.do_shrinking();
            }
        }
        let (i, j) = match sv.select_working_set() {
            Selection::Pair(i, j) => (i, j),
            Selection::Optimal(_) => {
                // Optimal on the active set: check again over all variables.
                sv.reconstruct_gradient();
                sv.active = l;
                match sv.select_working_set() {
                    Selection::Optimal(gap) => break (true, gap),
                    Selection::Pair(i, j) => {
                        counter = 1; // shrink again at the next step
                        (i, j)
                    }
                }
            }
        };
        iterations += 1;
        smallest_active = smallest_active.min(sv.active);
        sv.take_step(i, j);
    };
    let gap = if converged {
        gap
    } else {
        // The step cap stopped it: report the violation over all variables.
        sv.reconstruct_gradient();
        sv.active = l;
        sv.max_violation()
    };
    let grad: Vec<f64> = sv.y.iter().zip(&sv.yg).map(|(y, g)| y * g).collect();
    let rho = calculate_rho(&grad, &sv.y, &sv.status);
    let objective = dual_objective(&sv.alpha, &grad);
    let mut alpha = vec![0.0; l];
    for (p, &t) in sv.index_of.iter().enumerate() {
        alpha[t] = sv.alpha[p];
    }
    let support_vectors = alpha.iter().filter(|&&a| a > 0.0).count();
    let bounded_support_vectors = alpha.iter().filter(|&&a| a >= c).count();
    CachedSolution {
        alpha,
        report: SmoReport {
            iterations,
            gap,
            objective,
            rho,
            support_vectors,
            bounded_support_vectors,
            converged,
            kernel_evaluations: sv.q.evaluations,
            cache_peak_bytes: sv.q.cache.peak_bytes(),
        },
        smallest_active,
    }
}

enum Selection {
    Pair(usize, usize),
    /// No pair violates by `eps` or more; the maximal violation.
    Optimal(f64),
}

impl<K: Kernel + ?Sized> Solver<'_, '_, K> {
    fn status_of(&self, a: f64) -> Bound {
        Bound::of(a, self.c)
    }

    /// LIBSVM's `select_working_set` (WSS 2) over the active prefix.
    fn select_working_set(&mut self) -> Selection {
        let n = self.active;
        let (gmax, pick_i) = par_most_violating_up(&self.yg[..n], &self.sets[..n]);
        let Some(i) = pick_i else {
            return Selection::Optimal(self.max_violation());
        };
        self.q.fetch(i, n);
        let (gmax2, pick_j) = par_second_order_partner(
            gmax,
            self.qd[i],
            &self.q.cache.row(i)[..n],
            &self.yg[..n],
            &self.sets[..n],
            &self.qd[..n],
        );
        match pick_j {
            Some(j) if gmax + gmax2 >= self.eps => Selection::Pair(i, j),
            _ => Selection::Optimal(gmax + gmax2),
        }
    }

    /// `max_{I_up} -y_t G_t + max_{I_low} y_t G_t` over the active prefix.
    fn max_violation(&self) -> f64 {
        let (g1, g2) = violations(&self.yg[..self.active], &self.sets[..self.active]);
        g1 + g2
    }

    /// One SMO step on the pair `(i, j)`: the two-variable subproblem solved and clipped to the
    /// box (the arithmetic of [`crate::smo::solve_smo`]), then `G` and `G_bar` updated.
    fn take_step(&mut self, i: usize, j: usize) {
        let n = self.active;
        self.q.fetch(i, n);
        self.q.fetch(j, n);
        let (y, c) = (&self.y, self.c);
        let (old_i, old_j) = (self.alpha[i], self.alpha[j]);
        let kij = self.q.cache.row(i)[j];
        let (ai, aj) = solve_pair(
            old_i,
            old_j,
            y[i],
            y[j],
            y[i] * self.yg[i],
            y[j] * self.yg[j],
            self.qd[i],
            self.qd[j],
            kij,
            c,
        );
        self.alpha[i] = ai;
        self.alpha[j] = aj;
        let (si, sj) = (y[i] * (ai - old_i), y[j] * (aj - old_j));
        par_update_gradient(
            &mut self.yg[..n],
            &self.q.cache.row(i)[..n],
            &self.q.cache.row(j)[..n],
            si,
            sj,
        );
        for p in [i, j] {
            let was_upper = self.status[p] == Bound::Upper;
            self.status[p] = self.status_of(self.alpha[p]);
            self.sets[p] = sets(self.y[p], self.status[p]);
            let is_upper = self.status[p] == Bound::Upper;
            if was_upper != is_upper {
                // G_bar_t += or -= C Q_tp over all l variables: a full row.
                let l = self.y.len();
                self.q.fetch(p, l);
                let step = if is_upper {
                    c * self.y[p]
                } else {
                    -c * self.y[p]
                };
                add_scaled_row(&mut self.grad_bar, &self.y, self.q.cache.row(p), step);
            }
        }
    }

    /// LIBSVM's `do_shrinking`.
    fn do_shrinking(&mut self) {
        let n = self.active;
        let (gmax1, gmax2) = violations(&self.yg[..n], &self.sets[..n]);
        if !self.unshrink && gmax1 + gmax2 <= self.eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient();
            self.active = self.y.len();
        }
        let mut i = 0;
        while i < self.active {
            if self.be_shrunk(i, gmax1, gmax2) {
                self.active -= 1;
                while self.active > i {
                    if !self.be_shrunk(self.active, gmax1, gmax2) {
                        self.swap_index(i, self.active);
                        break;
                    }
                    self.active -= 1;
                }
            }
            i += 1;
        }
    }

    /// LIBSVM's `be_shrunk`: a bounded variable that cannot enter a violating pair at the current
    /// maximal violations.
    fn be_shrunk(&self, t: usize, gmax1: f64, gmax2: f64) -> bool {
        let y = self.y[t];
        let g = y * self.yg[t];
        match self.status[t] {
            Bound::Upper => -g > if y > 0.0 { gmax1 } else { gmax2 },
            Bound::Lower => g > if y > 0.0 { gmax2 } else { gmax1 },
            Bound::Free => false,
        }
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.q.swap(i, j);
        self.y.swap(i, j);
        self.yg.swap(i, j);
        self.sets.swap(i, j);
        self.status.swap(i, j);
        self.alpha.swap(i, j);
        self.index_of.swap(i, j);
        self.grad_bar.swap(i, j);
        self.qd.swap(i, j);
    }

    /// LIBSVM's `reconstruct_gradient`: `G_t = G_bar_t - 1 + sum_{free s} a_s Q_ts` for the
    /// inactive `t`, by rows of the inactive variables or of the free ones, whichever computes
    /// fewer kernel values (LIBSVM's cost rule).
    fn reconstruct_gradient(&mut self) {
        let (n, l) = (self.active, self.y.len());
        if n == l {
            return;
        }
        for t in n..l {
            self.yg[t] = self.y[t] * (self.grad_bar[t] - 1.0);
        }
        let free = self.status[..n]
            .iter()
            .filter(|&&s| s == Bound::Free)
            .count();
        if free * l > 2 * n * (l - n) {
            for t in n..l {
                self.q.fetch(t, n);
                let kt = &self.q.cache.row(t)[..n];
                let sum = free_dot(kt, &self.alpha[..n], &self.y[..n], &self.status[..n]);
                self.yg[t] += sum;
            }
        } else {
            for s in 0..n {
                if self.status[s] == Bound::Free {
                    self.q.fetch(s, l);
                    let step = self.alpha[s] * self.y[s];
                    let ks = &self.q.cache.row(s)[n..l];
                    add_scaled_signed(&mut self.yg[n..l], ks, step);
                }
            }
        }
    }
}

/// The two-variable subproblem of SMO, solved and clipped to `[0, C]^2` on the line
/// `y_i a_i + y_j a_j = const`: LIBSVM's update, in [`crate::smo::solve_smo`]'s arithmetic.
#[allow(clippy::too_many_arguments)]
fn solve_pair(
    ai: f64,
    aj: f64,
    yi: f64,
    yj: f64,
    gi: f64,
    gj: f64,
    qdi: f64,
    qdj: f64,
    kij: f64,
    c: f64,
) -> (f64, f64) {
    let (mut ai, mut aj) = (ai, aj);
    if yi != yj {
        let quad = qdi + qdj + 2.0 * (yi * yj * kij);
        let quad = if quad > 0.0 { quad } else { TAU };
        let delta = (-gi - gj) / quad;
        let diff = ai - aj;
        ai += delta;
        aj += delta;
        if diff > 0.0 {
            if aj < 0.0 {
                aj = 0.0;
                ai = diff;
            }
        } else if ai < 0.0 {
            ai = 0.0;
            aj = -diff;
        }
        if diff > 0.0 {
            if ai > c {
                ai = c;
                aj = c - diff;
            }
        } else if aj > c {
            aj = c;
            ai = c + diff;
        }
    } else {
        let quad = qdi + qdj - 2.0 * (yi * yj * kij);
        let quad = if quad > 0.0 { quad } else { TAU };
        let delta = (gi - gj) / quad;
        let sum = ai + aj;
        ai -= delta;
        aj += delta;
        if sum > c {
            if ai > c {
                ai = c;
                aj = sum - c;
            }
        } else if aj < 0.0 {
            aj = 0.0;
            ai = sum;
        }
        if sum > c {
            if aj > c {
                aj = c;
                ai = sum - c;
            }
        } else if ai < 0.0 {
            ai = 0.0;
            aj = sum;
        }
    }
    (ai, aj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_baselines::kernel_matrix;
    use crate::smo::solve_smo;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rfbench_maps::CsrMatrix;

    /// Two overlapping classes (so that some `a_t` end at `C`, some free, some zero), 30% zeros.
    fn data(n: usize, d: usize, seed: u64) -> (Array2<f64>, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let x = Array2::from_shape_fn((n, d), |(i, j)| {
            if rng.random::<f64>() < 0.3 {
                0.0
            } else {
                0.6 * y[i] * f64::from(j == 0) + rng.random_range(-1.0..1.0)
            }
        });
        (x, y)
    }

    fn gaussian(a: &Row<'_>, b: &Row<'_>) -> f64 {
        (-0.5 * (a.dot(a) + b.dot(b) - 2.0 * a.dot(b))).exp()
    }

    fn settings(eps: f64, shrinking: bool, cache_rows: u64, n: usize) -> SmoSettings {
        SmoSettings {
            c: 2.0,
            eps,
            shrinking,
            max_steps: 10_000_000,
            cache_bytes: cache_rows * n as u64 * 8,
        }
    }

    /// Without shrinking the cached solver must take the full-matrix solver's path exactly: same
    /// selections, same arithmetic, kernel values from the same `eval` calls.
    #[test]
    fn without_shrinking_it_is_the_full_matrix_solver_bit_for_bit() {
        let (x, y) = data(90, 4, 1);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let poly = rfbench_maps::Kernel::libsvm_polynomial(3, 0.5, 1.0).unwrap();
        let rows: Vec<usize> = (0..90).collect();
        for eps in [1e-3, 1e-8] {
            let k = kernel_matrix(&poly, Rows::Sparse(&csr), Rows::Sparse(&csr));
            let full = solve_smo(&k, &y, 2.0, eps, 10_000_000);
            let ours = solve_cached(
                &poly,
                Rows::Sparse(&csr),
                &rows,
                &y,
                &settings(eps, false, 3, 90),
            );
            assert_eq!(ours.alpha, full.alpha, "eps {eps}");
            assert_eq!(ours.report.rho, full.rho);
            assert_eq!(ours.report.objective, full.report.objective);
            assert_eq!(ours.report.iterations, full.report.iterations);
            assert!(ours.report.converged && ours.report.gap < eps);
        }
    }

    /// With shrinking the path differs, the optimum does not: at a tight `eps` the objective
    /// agrees to 1e-10 relative and, the Gaussian Gram matrix being positive definite (unique
    /// optimum), so do the `alpha`, to 1e-6 (both runs stop within a gap of 1e-10 of it).
    #[test]
    fn with_shrinking_it_reaches_the_full_matrix_optimum() {
        let (x, y) = data(150, 3, 2);
        let rows: Vec<usize> = (0..150).collect();
        let k = kernel_matrix(&gaussian, Rows::Dense(x.view()), Rows::Dense(x.view()));
        let full = solve_smo(&k, &y, 2.0, 1e-10, 10_000_000);
        let ours = solve_cached(
            &gaussian,
            Rows::Dense(x.view()),
            &rows,
            &y,
            &settings(1e-10, true, 4, 150),
        );
        let r = &ours.report;
        assert!(r.converged && r.gap < 1e-10, "{r:?}");
        assert!(ours.smallest_active < 100, "{}", ours.smallest_active);
        let (a, b) = (r.objective, full.report.objective);
        assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
        let worst = ours
            .alpha
            .iter()
            .zip(&full.alpha)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-6, "alpha differ by {worst}");
        assert!((r.rho - full.rho).abs() < 1e-8);
        // Overlapping classes: the problem exercises all three kinds of variables.
        assert!(r.bounded_support_vectors > 0 && r.bounded_support_vectors < r.support_vectors);
        assert!(r.support_vectors < 150);
        let bounded = ours.alpha.iter().filter(|&&a| a >= 2.0).count();
        assert_eq!(bounded, r.bounded_support_vectors);
    }

    /// The cache size changes what is recomputed, never a value: identical results from two rows
    /// (the minimum) to all of them, and the cache stays within its budget.
    #[test]
    fn results_are_bit_identical_for_every_cache_size() {
        let (x, y) = data(120, 5, 3);
        let csr = CsrMatrix::from_dense(x.view()).unwrap();
        let rows: Vec<usize> = (0..120).rev().collect();
        let y: Vec<f64> = rows.iter().map(|&r| y[r]).collect();
        let poly = rfbench_maps::Kernel::libsvm_polynomial(2, 0.3, 1.0).unwrap();
        let run = |cache_rows| {
            let s = settings(1e-3, true, cache_rows, 120);
            let out = solve_cached(&poly, Rows::Sparse(&csr), &rows, &y, &s);
            assert!(
                out.report.cache_peak_bytes <= s.cache_bytes,
                "{cache_rows} rows"
            );
            out
        };
        let all = run(120);
        assert!(all.report.converged);
        assert!(all.smallest_active < 100, "{}", all.smallest_active);
        for cache_rows in [2, 3, 7, 40, 119] {
            let small = run(cache_rows);
            assert_eq!(small.alpha, all.alpha, "{cache_rows} rows");
            assert_eq!(small.report.objective, all.report.objective);
            assert_eq!(small.report.rho, all.report.rho);
            assert_eq!(small.report.iterations, all.report.iterations);
            // A smaller cache means more kernel values recomputed, never fewer.
            assert!(small.report.kernel_evaluations >= all.report.kernel_evaluations);
        }
        assert!(run(2).report.kernel_evaluations > all.report.kernel_evaluations);
    }

    #[test]
    fn kernel_rows_do_not_depend_on_the_thread_count() {
        let (x, y) = data(1500, 4, 4);
        let rows: Vec<usize> = (0..1500).collect();
        let s = settings(1e-3, true, 50, 1500);
        let fit = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| solve_cached(&gaussian, Rows::Dense(x.view()), &rows, &y, &s))
        };
        let (one, three) = (fit(1), fit(3));
        assert!(one.smallest_active < 1000, "{}", one.smallest_active);
        assert_eq!(one.alpha, three.alpha);
        assert_eq!(one.report, three.report);
    }

    #[test]
    fn a_step_cap_is_reported_as_not_converged() {
        let (x, y) = data(80, 3, 5);
        let rows: Vec<usize> = (0..80).collect();
        let mut s = settings(1e-3, true, 80, 80);
        s.max_steps = 7;
        let out = solve_cached(&gaussian, Rows::Dense(x.view()), &rows, &y, &s);
        assert!(!out.report.converged);
        assert_eq!(out.report.iterations, 7);
        assert!(out.report.gap >= 1e-3, "{:?}", out.report);
    }
}
