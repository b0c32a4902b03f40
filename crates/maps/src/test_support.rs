//! Shared test helpers of the Fourier-type maps: fixed data sets and the three Gram statistics
//! (bias, maximum error, mean absolute error) with tolerances derived from the estimator's
//! variance.
//!
//! **Tolerances.** With `m` frequencies, an entry of the approximate Gram matrix is the mean of
//! `m` terms. For i.i.d. frequencies each term's variance is known exactly from the kernel (see
//! [`crate::FourierForm`]): `v = (1 + k(2 delta))/2 - k(delta)²` (paired form) or
//! `v = 1 + k(2 delta)/2 - k(delta)²` (phase form), `k(2 delta)` being the exact kernel on the
//! doubled points. Structured maps (orthogonal, Fastfood) have dependent frequencies; their
//! variance is `kappa` times that, with `kappa` measured over many seeds by each map's
//! `variance_over_seeds` test (which also checks `kappa ~ 1` for i.i.d. random Fourier features,
//! validating the formula). With `s = sqrt(kappa mean(v) / m)`, over the `N = n(n-1)/2`
//! off-diagonal pairs:
//!
//! * bias `|mean(K_hat - K)|`: a mean of entries, standard deviation at most `s` even if all the
//!   errors were perfectly correlated; tolerance `4 s`;
//! * mean `|K_hat - K|`: each term has mean at most its standard deviation (`E|e| <= sqrt(E e²)`),
//!   their mean at most `s`; tolerance `2 s`;
//! * max `|K_hat - K|`: Bernstein's inequality for a mean of `m` independent terms of variance at
//!   most `v_max = kappa max(v)` and deviation at most `M` (2 paired, 4 phase), with a union bound
//!   over the `N` pairs at failure probability `1e-3` (`L = ln(2N / 1e-3)`):
//!   `t = sqrt(2 v_max L / m) + 2 M L / (3 m)`. For structured maps the terms are dependent and
//!   `kappa` is the heuristic stand-in for that.
//!
//! Every check also asserts that the tolerances are tight enough to see a bandwidth error: the
//! exact Gram matrices at bandwidth `b` and `b sqrt(2)` must differ by more than the bias and the
//! mean-absolute tolerances, or the test proves nothing (scikit-learn once shipped a wrong
//! bandwidth factor that a loose test hid).

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use crate::fourier::FourierForm;
use crate::kernels::shift_invariant::ShiftInvariantKernel;

/// Runs `f` on a fresh rayon pool of `threads` threads (the thread-count determinism tests).
pub(crate) fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
        .install(f)
}

/// `n x d` i.i.d. `N(0, 1)` entries.
pub(crate) fn gaussian_data(n: usize, d: usize, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, d), || rng.sample(StandardNormal))
}

/// `n x d`, each entry non-zero (uniform in [-1, 1]) with probability `density`.
pub(crate) fn sparse_data(n: usize, d: usize, density: f64, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, d), || {
        if rng.random::<f64>() < density {
            rng.random::<f64>() * 2.0 - 1.0
        } else {
            0.0
        }
    })
}

/// Tolerances of the three Gram statistics, see the module docs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GramTolerance {
    /// `s = sqrt(kappa mean(v) / m)`.
    pub std_dev: f64,
    /// Bernstein's `t` for the maximum over pairs.
    pub max_abs: f64,
}

/// The exact variance of one frequency's term for every off-diagonal pair: (mean, max).
pub(crate) fn term_variance(
    kernel: &ShiftInvariantKernel,
    x: &Array2<f64>,
    form: FourierForm,
) -> (f64, f64) {
    let k = kernel.gram(x);
    let k2 = kernel.gram(&(x * 2.0));
    let n = x.nrows();
    let (mut sum, mut max, mut count) = (0.0, 0.0f64, 0);
    for i in 0..n {
        for j in i + 1..n {
            let (k1, k2) = (k[[i, j]], k2[[i, j]]);
            let v = match form {
                FourierForm::Paired => (1.0 + k2) / 2.0 - k1 * k1,
                FourierForm::Phase => 1.0 + k2 / 2.0 - k1 * k1,
            };
            sum += v;
            max = max.max(v);
            count += 1;
        }
    }
    (sum / count as f64, max)
}

impl GramTolerance {
    pub(crate) fn new(
        kernel: &ShiftInvariantKernel,
        x: &Array2<f64>,
        form: FourierForm,
        n_components: usize,
        kappa: f64,
    ) -> Self {
        let m = form.n_frequencies(n_components).unwrap() as f64;
        let (mean_v, max_v) = term_variance(kernel, x, form);
        let n = x.nrows();
        let l = (2.0 * (n * (n - 1) / 2) as f64 / 1e-3).ln();
        let deviation = match form {
            FourierForm::Paired => 2.0,
            FourierForm::Phase => 4.0,
        };
        Self {
            std_dev: (kappa * mean_v / m).sqrt(),
            max_abs: (2.0 * kappa * max_v * l / m).sqrt() + 2.0 * deviation * l / (3.0 * m),
        }
    }

    pub(crate) fn bias(&self) -> f64 {
        4.0 * self.std_dev
    }

    pub(crate) fn mean_abs(&self) -> f64 {
        2.0 * self.std_dev
    }
}

/// The kernel with its bandwidth multiplied by `factor`.
pub(crate) fn rescaled(kernel: &ShiftInvariantKernel, factor: f64) -> ShiftInvariantKernel {
    match *kernel {
        ShiftInvariantKernel::Gaussian { sigma } => ShiftInvariantKernel::Gaussian {
            sigma: sigma * factor,
        },
        ShiftInvariantKernel::Laplacian { sigma } => ShiftInvariantKernel::Laplacian {
            sigma: sigma * factor,
        },
        ShiftInvariantKernel::Matern { nu, length_scale } => ShiftInvariantKernel::Matern {
            nu,
            length_scale: length_scale * factor,
        },
    }
}

/// (bias, max, mean abs) of `K_hat - K` over the off-diagonal pairs `i < j`.
pub(crate) fn gram_errors(exact: &Array2<f64>, approx: &Array2<f64>) -> (f64, f64, f64) {
    let n = exact.nrows();
    let (mut sum, mut max, mut abs, mut count) = (0.0, 0.0f64, 0.0, 0);
    for i in 0..n {
        for j in i + 1..n {
            let e = approx[[i, j]] - exact[[i, j]];
            sum += e;
            abs += e.abs();
            max = max.max(e.abs());
            count += 1;
        }
    }
    (sum / count as f64, max, abs / count as f64)
}

/// Asserts the three statistics of `Z Z'` against `kernel`'s exact Gram matrix on `x`, for `Z`
/// made of `n_components` features of the given form, variance inflation `kappa`.
pub(crate) fn assert_gram_close(
    kernel: &ShiftInvariantKernel,
    x: &Array2<f64>,
    z: &Array2<f64>,
    form: FourierForm,
    kappa: f64,
    what: &str,
) {
    let tol = GramTolerance::new(kernel, x, form, z.ncols(), kappa);
    let exact = kernel.gram(x);
    let approx = z.dot(&z.t());
    let (bias, max, mean_abs) = gram_errors(&exact, &approx);
    let (wrong_bias, _, wrong_mean_abs) =
        gram_errors(&exact, &rescaled(kernel, 2f64.sqrt()).gram(x));
    assert!(
        wrong_bias.abs() > tol.bias() && wrong_mean_abs > tol.mean_abs(),
        "{what}: tolerances (bias {:.2e}, mean abs {:.2e}) cannot see a bandwidth off by sqrt(2) \
         (bias {wrong_bias:.2e}, mean abs {wrong_mean_abs:.2e})",
        tol.bias(),
        tol.mean_abs()
    );
    assert!(
        bias.abs() < tol.bias() && max < tol.max_abs && mean_abs < tol.mean_abs(),
        "{what}: bias {bias:.2e} (tol {:.2e}), max {max:.2e} (tol {:.2e}), mean abs {mean_abs:.2e} (tol {:.2e})",
        tol.bias(),
        tol.max_abs,
        tol.mean_abs()
    );
}

/// Over `seeds` draws, the mean squared error of the off-diagonal Gram entries divided by the
/// i.i.d. variance `mean(v) / m`: the variance inflation `kappa` (about 1 for i.i.d. frequencies,
/// since the estimators are unbiased; a biased map's squared bias counts too).
pub(crate) fn measured_kappa(
    kernel: &ShiftInvariantKernel,
    x: &Array2<f64>,
    form: FourierForm,
    seeds: u64,
    features: &dyn Fn(u64) -> Array2<f64>,
) -> f64 {
    let exact = kernel.gram(x);
    let n = x.nrows();
    let mut mse = 0.0;
    let mut m = 0;
    for seed in 0..seeds {
        let z = features(seed);
        m = form.n_frequencies(z.ncols()).unwrap();
        let diff = z.dot(&z.t()) - &exact;
        let mut s = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                s += diff[[i, j]] * diff[[i, j]];
            }
        }
        mse += s / (n * (n - 1) / 2) as f64;
    }
    mse / seeds as f64 / (term_variance(kernel, x, form).0 / m as f64)
}
