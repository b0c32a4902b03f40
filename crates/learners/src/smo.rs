//! LIBSVM's C-SVC dual solver on a precomputed kernel matrix: sequential minimal optimisation with
//! the second-order working-set selection of Fan, Chen and Lin (2005), the algorithm of
//! `svm-train` (`Solver::select_working_set` / `Solver::Solve` in LIBSVM's `svm.cpp`), so that
//! its dual objective, `rho` and stopping point can be compared with LIBSVM's own.
//!
//! Problem: `min_a 1/2 a'Q a - e'a` subject to `0 <= a_i <= C` and `y'a = 0`, with
//! `Q_ij = y_i y_j K_ij`. The equality constraint comes from the free (unpenalised) intercept;
//! each step moves two coordinates so as to keep it. Stops when the maximal violating pair's gap
//! `max_{I_up} -y_t G_t + max_{I_low} y_t G_t` falls below `eps` (LIBSVM's `-e`, default 1e-3).
//! Differences from LIBSVM: no shrinking and no kernel cache (the whole matrix is in memory, in
//! double precision where LIBSVM caches single-precision `Q`), which changes the path only by
//! rounding; the optimum and the stopping rule are the same.

use ndarray::Array2;

use crate::dual_cd::ConvergenceReport;
use crate::svm_dual::{calculate_rho, dual_objective, Bound};

/// LIBSVM's `TAU`: the curvature used when `K_ii + K_jj - 2 K_ij <= 0`.
const TAU: f64 = 1e-12;

/// A solved C-SVC dual: `alpha`, LIBSVM's `rho` (decision value `sum y_i a_i K(x_i, x) - rho`).
pub(crate) struct SmoSolution {
    pub alpha: Vec<f64>,
    pub rho: f64,
    pub report: ConvergenceReport,
}

/// Solves the C-SVC dual for labels `y` (`+1/-1`) on the kernel matrix `k`, at most `max_steps`
/// two-coordinate steps.
pub(crate) fn solve_smo(
    k: &Array2<f64>,
    y: &[f64],
    c: f64,
    eps: f64,
    max_steps: usize,
) -> SmoSolution {
    let n = y.len();
    let problem = Problem {
        k,
        y,
        qd: (0..n).map(|i| k[[i, i]]).collect(),
        c,
    };
    let mut alpha = vec![0.0f64; n];
    let mut grad = vec![-1.0f64; n];
    let (mut steps, mut converged) = (0usize, false);
    let mut gap;
    loop {
        let working_set = problem.select_working_set(&alpha, &grad);
        gap = working_set.gap;
        let (i, j) = match (working_set.i, working_set.j) {
            (Some(i), Some(j)) if gap >= eps => (i, j),
            _ => {
                converged = true;
                break;
            }
        };
        if steps >= max_steps {
            break;
        }
        steps += 1;
        let (old_i, old_j) = (alpha[i], alpha[j]);
        problem.step_pair(i, j, &mut alpha, &grad);
        problem.update_gradient(i, j, alpha[i] - old_i, alpha[j] - old_j, &mut grad);
    }
    let status: Vec<Bound> = alpha.iter().map(|&a| Bound::of(a, c)).collect();
    let rho = calculate_rho(&grad, y, &status);
    let objective = dual_objective(&alpha, &grad);
    let support_vectors = alpha.iter().filter(|&&a| a > 0.0).count();
    SmoSolution {
        alpha,
        rho,
        report: ConvergenceReport {
            iterations: steps,
            gap,
            objective,
            support_vectors,
            converged,
        },
    }
}

/// The dual's data: the kernel matrix, the labels, the matrix's diagonal and the box `[0, C]`.
struct Problem<'a> {
    k: &'a Array2<f64>,
    y: &'a [f64],
    qd: Vec<f64>,
    c: f64,
}

/// The two coordinates of the next step (`None` when their index set is empty), and the
/// maximal violating pair's gap `max_{I_up} -y_t G_t + max_{I_low} y_t G_t`.
struct WorkingSet {
    i: Option<usize>,
    j: Option<usize>,
    gap: f64,
}

impl Problem<'_> {
    /// LIBSVM's `select_working_set`.
    fn select_working_set(&self, alpha: &[f64], grad: &[f64]) -> WorkingSet {
        let (gmax, i) = self.most_violating_up(alpha, grad);
        let (gmax2, j) = match i {
            Some(i) => self.second_order_partner(i, gmax, alpha, grad),
            None => (f64::NEG_INFINITY, None),
        };
        WorkingSet {
            i,
            j,
            gap: gmax + gmax2,
        }
    }

    /// `i`: the most violating index in `I_up` (largest `-y_t G_t`, the last of equals), with
    /// that value.
    fn most_violating_up(&self, alpha: &[f64], grad: &[f64]) -> (f64, Option<usize>) {
        let (y, c) = (self.y, self.c);
        let mut gmax = f64::NEG_INFINITY;
        let mut pick_i = None;
        for t in 0..y.len() {
            let v = -y[t] * grad[t];
            let in_up = if y[t] > 0.0 {
                alpha[t] < c
            } else {
                alpha[t] > 0.0
            };
            if in_up && v >= gmax {
                gmax = v;
                pick_i = Some(t);
            }
        }
        (gmax, pick_i)
    }

    /// `j`: in `I_low`, the largest second-order decrease of the objective with `i`; and
    /// `max_{I_low} y_t G_t`.
    fn second_order_partner(
        &self,
        i: usize,
        gmax: f64,
        alpha: &[f64],
        grad: &[f64],
    ) -> (f64, Option<usize>) {
        let (y, c, qd) = (self.y, self.c, &self.qd);
        let ki = self.k.row(i);
        let mut gmax2 = f64::NEG_INFINITY;
        let mut pick_j = None;
        let mut best = f64::INFINITY;
        for t in 0..y.len() {
            let in_low = if y[t] > 0.0 {
                alpha[t] > 0.0
            } else {
                alpha[t] < c
            };
            if !in_low {
                continue;
            }
            let v = y[t] * grad[t];
            gmax2 = gmax2.max(v);
            let grad_diff = gmax + v;
            if grad_diff > 0.0 {
                let quad = qd[i] + qd[t] - 2.0 * ki[t];
                let decrease = -grad_diff * grad_diff / if quad > 0.0 { quad } else { TAU };
                if decrease <= best {
                    best = decrease;
                    pick_j = Some(t);
                }
            }
        }
        (gmax2, pick_j)
    }

    /// Minimises the objective over `alpha_i`, `alpha_j` keeping `y'a`, clipped to the box
    /// (LIBSVM's update, branch for branch).
    fn step_pair(&self, i: usize, j: usize, alpha: &mut [f64], grad: &[f64]) {
        let (y, c, qd) = (self.y, self.c, &self.qd);
        let kij = self.k[[i, j]];
        if y[i] != y[j] {
            let quad = qd[i] + qd[j] + 2.0 * (y[i] * y[j] * kij);
            let quad = if quad > 0.0 { quad } else { TAU };
            let delta = (-grad[i] - grad[j]) / quad;
            let diff = alpha[i] - alpha[j];
            alpha[i] += delta;
            alpha[j] += delta;
            if diff > 0.0 {
                if alpha[j] < 0.0 {
                    alpha[j] = 0.0;
                    alpha[i] = diff;
                }
            } else if alpha[i] < 0.0 {
                alpha[i] = 0.0;
                alpha[j] = -diff;
            }
            if diff > 0.0 {
                if alpha[i] > c {
                    alpha[i] = c;
                    alpha[j] = c - diff;
                }
            } else if alpha[j] > c {
                alpha[j] = c;
                alpha[i] = c + diff;
            }
        } else {
            let quad = qd[i] + qd[j] - 2.0 * (y[i] * y[j] * kij);
            let quad = if quad > 0.0 { quad } else { TAU };
            let delta = (grad[i] - grad[j]) / quad;
            let sum = alpha[i] + alpha[j];
            alpha[i] -= delta;
            alpha[j] += delta;
            if sum > c {
                if alpha[i] > c {
                    alpha[i] = c;
                    alpha[j] = sum - c;
                }
            } else if alpha[j] < 0.0 {
                alpha[j] = 0.0;
                alpha[i] = sum;
            }
            if sum > c {
                if alpha[j] > c {
                    alpha[j] = c;
                    alpha[i] = sum - c;
                }
            } else if alpha[i] < 0.0 {
                alpha[i] = 0.0;
                alpha[j] = sum;
            }
        }
    }

    /// `G_t += Q_ti da_i + Q_tj da_j`, `Q_ti = y_t y_i K_ti`, after `alpha_i` and `alpha_j`
    /// moved by `delta_i` and `delta_j`.
    fn update_gradient(&self, i: usize, j: usize, delta_i: f64, delta_j: f64, grad: &mut [f64]) {
        let y = self.y;
        let (si, sj) = (y[i] * delta_i, y[j] * delta_j);
        let (ki, kj) = (self.k.row(i), self.k.row(j));
        for t in 0..y.len() {
            grad[t] += y[t] * (si * ki[t] + sj * kj[t]);
        }
    }
}
