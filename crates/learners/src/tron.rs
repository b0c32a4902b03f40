//! The trust-region Newton method of LIBLINEAR's primal solvers (Lin, Weng & Keerthi, "Trust
//! region Newton method for large-scale logistic regression", JMLR 2008; Lin & Moré 1999), for a
//! twice-differentiable convex objective whose Hessian is only ever applied to a vector.
//!
//! Each outer iteration solves the Newton system `H s = -g` approximately by conjugate gradient
//! inside the trust region `|s| <= delta` (Steihaug: CG stops at the boundary, or once the
//! residual is a tenth of `|g|`), accepts the step when the actual reduction of `f` is at least
//! `eta0` times the quadratic model's prediction, and resizes `delta` by the ratio of the two
//! (LIBLINEAR's constants). The method stops once `|g| <= eps |g0|` (`g0`: the gradient at the
//! start, `w = 0`), or at `max_iter` outer iterations, reported as not converged.

/// An objective `f: R^n -> R` with its gradient and Hessian-vector products at the last point
/// `value` was called with.
pub(crate) trait Objective {
    fn dim(&self) -> usize;
    /// `f(w)`; also keeps what `gradient` and `hessian_times` need at `w`.
    fn value(&mut self, w: &[f64]) -> f64;
    /// `g = grad f(w)` at the `w` of the last `value` call.
    fn gradient(&mut self, w: &[f64], g: &mut [f64]);
    /// `out = H v` at the `w` of the last `gradient` call.
    fn hessian_times(&self, v: &[f64], out: &mut [f64]);
    /// Whether evaluating `f` has failed (streamed rows that could not be produced): the
    /// iterations stop at once.
    fn failed(&self) -> bool {
        false
    }
}

/// How the Newton iterations ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TronReport {
    /// Accepted Newton steps.
    pub iterations: usize,
    /// Conjugate-gradient steps over all iterations (one Hessian-vector product each).
    pub cg_iterations: usize,
    /// `|g| / |g0|` at the end.
    pub relative_gradient: f64,
    pub objective: f64,
    pub converged: bool,
}

const ETA0: f64 = 1e-4;
const ETA1: f64 = 0.25;
const ETA2: f64 = 0.75;
const SIGMA1: f64 = 0.25;
const SIGMA2: f64 = 0.5;
const SIGMA3: f64 = 4.0;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// Minimises `f` from `w` (LIBLINEAR starts from 0), in place.
pub(crate) fn tron(f: &mut impl Objective, w: &mut [f64], eps: f64, max_iter: usize) -> TronReport {
    let n = f.dim();
    let (mut g, mut s, mut r) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut w_new = vec![0.0; n];
    let mut value = f.value(w);
    f.gradient(w, &mut g);
    let gnorm0 = norm(&g);
    let mut gnorm = gnorm0;
    let mut delta = gnorm0;
    let (mut iterations, mut cg_iterations) = (0, 0);
    let mut converged = gnorm <= eps * gnorm0;
    while !converged && iterations < max_iter && !f.failed() {
        cg_iterations += steihaug_cg(f, delta, &g, &mut s, &mut r);
        for ((wn, &wi), &si) in w_new.iter_mut().zip(w.iter()).zip(&s) {
            *wn = wi + si;
        }
        let gs = dot(&g, &s);
        let predicted = -0.5 * (gs - dot(&s, &r));
        let value_new = f.value(&w_new);
        if f.failed() {
            break;
        }
        let actual = value - value_new;
        let snorm = norm(&s);
        if iterations == 0 {
            delta = delta.min(snorm);
        }
        delta = resized_delta(delta, snorm, gs, value_new - value - gs, actual, predicted);
        if actual > ETA0 * predicted {
            iterations += 1;
            w.copy_from_slice(&w_new);
            value = value_new;
            f.gradient(w, &mut g);
            gnorm = norm(&g);
            converged = gnorm <= eps * gnorm0;
        }
        // A rejected step leaves g and the Hessian at w: `hessian_times` uses the state of the
        // last `gradient` call, which a `value` call alone does not change.
        let stalled = actual.abs() <= 1e-12 * value.abs() && predicted.abs() <= 1e-12 * value.abs();
        if stalled || (actual <= 0.0 && predicted <= 0.0) {
            break;
        }
    }
    TronReport {
        iterations,
        cg_iterations,
        relative_gradient: if gnorm0 > 0.0 { gnorm / gnorm0 } else { 0.0 },
        objective: value,
        converged,
    }
}

/// The trust region's new radius from the ratio of actual to predicted reduction, with `alpha`
/// the minimiser of the quadratic through `f(w)`, `g's` and `f(w + s)` along `s` (LIBLINEAR).
fn resized_delta(
    delta: f64,
    snorm: f64,
    gs: f64,
    curvature: f64,
    actual: f64,
    predicted: f64,
) -> f64 {
    let alpha = if curvature <= 0.0 {
        SIGMA3
    } else {
        SIGMA1.max(-0.5 * (gs / curvature))
    };
    if actual < ETA0 * predicted {
        (alpha.max(SIGMA1) * snorm).min(SIGMA2 * delta)
    } else if actual < ETA1 * predicted {
        (SIGMA1 * delta).max((alpha * snorm).min(SIGMA2 * delta))
    } else if actual < ETA2 * predicted {
        (SIGMA1 * delta).max((alpha * snorm).min(SIGMA3 * delta))
    } else {
        delta.max((alpha * snorm).min(SIGMA3 * delta))
    }
}

/// Conjugate gradient on `H s = -g` within `|s| <= delta`; leaves the residual `r = -g - H s`.
/// Returns the number of CG steps.
fn steihaug_cg(f: &impl Objective, delta: f64, g: &[f64], s: &mut [f64], r: &mut [f64]) -> usize {
    let n = g.len();
    s.fill(0.0);
    for (ri, gi) in r.iter_mut().zip(g) {
        *ri = -gi;
    }
    let mut d = r.to_vec();
    let mut hd = vec![0.0; n];
    let tolerance = 0.1 * norm(g);
    let mut rtr = dot(r, r);
    let mut steps = 0;
    while rtr.sqrt() > tolerance {
        steps += 1;
        f.hessian_times(&d, &mut hd);
        let alpha = rtr / dot(&d, &hd);
        axpy(alpha, &d, s);
        if norm(s) > delta {
            // Back to the old s, then to the boundary along d.
            axpy(-alpha, &d, s);
            let (std, sts, dtd) = (dot(s, &d), dot(s, s), dot(&d, &d));
            let rad = (std * std + dtd * (delta * delta - sts)).sqrt();
            let tau = if std >= 0.0 {
                (delta * delta - sts) / (std + rad)
            } else {
                (rad - std) / dtd
            };
            axpy(tau, &d, s);
            axpy(-tau, &hd, r);
            break;
        }
        axpy(-alpha, &hd, r);
        let rtr_new = dot(r, r);
        let beta = rtr_new / rtr;
        for (di, ri) in d.iter_mut().zip(r.iter()) {
            *di = ri + beta * *di;
        }
        rtr = rtr_new;
    }
    steps
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f(w) = 1/2 w'Aw - b'w + 1/4 sum w_i^4`: convex, minimiser where `Aw - b + w^3 = 0`.
    struct Quartic {
        a: Vec<Vec<f64>>,
        b: Vec<f64>,
        w: Vec<f64>,
    }

    impl Objective for Quartic {
        fn dim(&self) -> usize {
            self.b.len()
        }
        fn value(&mut self, w: &[f64]) -> f64 {
            self.w = w.to_vec();
            let aw: Vec<f64> = self.a.iter().map(|row| dot(row, w)).collect();
            0.5 * dot(w, &aw) - dot(&self.b, w) + w.iter().map(|x| x.powi(4) / 4.0).sum::<f64>()
        }
        fn gradient(&mut self, w: &[f64], g: &mut [f64]) {
            for (i, gi) in g.iter_mut().enumerate() {
                *gi = dot(&self.a[i], w) - self.b[i] + w[i].powi(3);
            }
        }
        fn hessian_times(&self, v: &[f64], out: &mut [f64]) {
            for (i, oi) in out.iter_mut().enumerate() {
                *oi = dot(&self.a[i], v) + 3.0 * self.w[i] * self.w[i] * v[i];
            }
        }
    }

    #[test]
    fn reaches_the_stationary_point_of_a_convex_quartic() {
        let a = vec![
            vec![4.0, 1.0, 0.0],
            vec![1.0, 3.0, 0.5],
            vec![0.0, 0.5, 2.0],
        ];
        let mut f = Quartic {
            a,
            b: vec![10.0, -7.0, 30.0],
            w: vec![],
        };
        let mut w = vec![0.0; 3];
        // |g0| = |b| = 33: 1e-8 of it is 3e-7, well above the rounding of f near its minimum.
        let report = tron(&mut f, &mut w, 1e-8, 100);
        assert!(report.converged, "{report:?}");
        let mut g = vec![0.0; 3];
        f.value(&w);
        f.gradient(&w, &mut g);
        assert!(norm(&g) < 4e-7, "gradient {g:?} at {w:?}");
        // Far from 0: the trust region had to grow (starting radius |g0|, steps beyond it rejected).
        assert!(w[2] > 2.5, "{w:?}");
    }

    #[test]
    fn stops_at_max_iter_and_says_so() {
        let a = vec![vec![1.0, 0.0], vec![0.0, 1e-3]];
        let mut f = Quartic {
            a,
            b: vec![1e3, 1e3],
            w: vec![],
        };
        let mut w = vec![0.0; 2];
        let report = tron(&mut f, &mut w, 1e-14, 2);
        assert_eq!(report.iterations, 2);
        assert!(!report.converged);
    }
}
