//! The C-SVC dual's shared pieces, used by both SMO solvers (the dense one in `smo` and the
//! cached, shrinking one in `smo_cached`) and by the kernel SVM: where a variable sits in its box,
//! LIBSVM's bias, and the objective. One module so neither solver imports the other.

/// Where a dual variable sits in `[0, C]`: LIBSVM's `alpha_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Lower,
    Upper,
    Free,
}

impl Bound {
    pub(crate) fn of(a: f64, c: f64) -> Bound {
        if a >= c {
            Bound::Upper
        } else if a <= 0.0 {
            Bound::Lower
        } else {
            Bound::Free
        }
    }
}

/// LIBSVM's `calculate_rho`: the mean of `y_t G_t` over free variables, else the midpoint of the
/// interval the bounded ones leave.
pub(crate) fn calculate_rho(grad: &[f64], y: &[f64], status: &[Bound]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut free, mut sum_free) = (0usize, 0.0);
    for t in 0..grad.len() {
        let yg = y[t] * grad[t];
        match (status[t], y[t] > 0.0) {
            (Bound::Upper, false) | (Bound::Lower, true) => ub = ub.min(yg),
            (Bound::Upper, true) | (Bound::Lower, false) => lb = lb.max(yg),
            (Bound::Free, _) => {
                free += 1;
                sum_free += yg;
            }
        }
    }
    if free > 0 {
        sum_free / free as f64
    } else {
        (ub + lb) / 2.0
    }
}

/// The kernel SVM's dual objective from the gradient the solvers keep up to date, `G = Q alpha - e`:
/// `f(alpha) = 1/2 alpha'Q alpha - e'alpha = 1/2 alpha'(G + e) - e'alpha = 1/2 alpha'(G - e)`.
pub(crate) fn dual_objective(alpha: &[f64], grad: &[f64]) -> f64 {
    0.5 * alpha
        .iter()
        .zip(grad)
        .map(|(a, g)| a * (g - 1.0))
        .sum::<f64>()
}
