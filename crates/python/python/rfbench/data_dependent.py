"""Maps fitted on the training rows: Nystroem (landmarks sampled from them) and PRFF
(frequencies optimised on them)."""

import warnings
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from . import _kernels, _rfbench
from ._base import MapTransformer, rows_for_rust
from .fourier import _BANDWIDTH


class Nystroem(MapTransformer):
    """Nystroem (Williams & Seeger 2001): ``K(x, L) K_LL^{-1/2}`` for ``n_components`` landmark
    rows ``L`` sampled without replacement from the training rows. Approximates every kernel.

    Parameters
    ----------
    n_components : int, default=100
        Landmarks; with fewer training rows, every row is a landmark (a warning says so, as
        scikit-learn's Nystroem does).
    kernel : {"gaussian", "laplacian", "matern", "polynomial", "linear"}, default="gaussian"
    gamma, sigma, nu : bandwidth of the shift-invariant kernels (module ``rfbench._kernels``);
        for the polynomial kernel ``gamma`` is its scale (default 1).
    degree : int, default=3
    coef0 : float, default=1.0
        The polynomial kernel ``(gamma <x, y> + coef0)^degree``.
    eigenvalue_cutoff : float, default=1e-10
        Eigenvalues of ``K_LL`` at or below this fraction of the largest are dropped.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions(set(_kernels.ALL))],
        **_BANDWIDTH,
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "eigenvalue_cutoff": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        n_components=100,
        *,
        kernel="gaussian",
        gamma=None,
        sigma=None,
        nu=1.5,
        degree=3,
        coef0=1.0,
        eigenvalue_cutoff=1e-10,
        random_state=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.nu = nu
        self.degree = degree
        self.coef0 = coef0
        self.eigenvalue_cutoff = eigenvalue_cutoff
        self.random_state = random_state

    def _kernel(self):
        if self.kernel == "polynomial":
            gamma = 1.0 if self.gamma is None else self.gamma
            return _kernels.polynomial(self.degree, gamma, self.coef0)
        if self.kernel == "linear":
            return _kernels.linear()
        return _kernels.shift_invariant(self.kernel, self.gamma, self.sigma, self.nu)

    def _fit_map(self, X, seed):
        n_components = self.n_components
        if n_components > X.shape[0]:
            warnings.warn(
                f"n_components={n_components} is larger than the {X.shape[0]} training rows: "
                f"every row is a landmark (n_components={X.shape[0]})"
            )
            n_components = X.shape[0]
        return _rfbench.nystroem(
            self._kernel(), n_components, self.eigenvalue_cutoff, rows_for_rust(X), seed
        )


class PseudoRandomFourierFeatures(MapTransformer):
    """PRFF (Chang et al. 2017): random Fourier features of the Gaussian kernel whose frequencies
    and phases are then optimised, one feature at a time, by mini-batch gradient steps on the
    Gram-matrix error over the training rows.

    Parameters
    ----------
    n_components : int, default=100
    gamma, sigma : the Gaussian's bandwidth (module ``rfbench._kernels``).
    batch_size : int, default=128
        Rows per mini-batch (capped at the number of rows).
    learning_rate : float, default=50.0
    l2_penalty : float, default=0.0
    max_iterations : int, default=100
        Descent steps per feature; 0 gives random Fourier features (phase form) with the same
        draws.
    tolerance : float, default=1e-8
        A feature's descent stops once the batch loss changes by less than this.
    weighting : {"average", "residual"}, default="average"
        Which line of the paper's eq. (4) the loss of feature j follows: "average" weights every
        feature 2/j (its second line), "residual" the new feature 2 against the average of the
        ones before (its first line). docs/papers.md compares them.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": _BANDWIDTH["gamma"],
        "sigma": _BANDWIDTH["sigma"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "l2_penalty": [Interval(Real, 0, None, closed="left")],
        "max_iterations": [Interval(Integral, 0, None, closed="left")],
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "weighting": [StrOptions({"average", "residual"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components=100,
        *,
        gamma=None,
        sigma=None,
        batch_size=128,
        learning_rate=50.0,
        l2_penalty=0.0,
        max_iterations=100,
        tolerance=1e-8,
        weighting="average",
        random_state=None,
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.sigma = sigma
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.l2_penalty = l2_penalty
        self.max_iterations = max_iterations
        self.tolerance = tolerance
        self.weighting = weighting
        self.random_state = random_state

    def _fit_map(self, X, seed):
        kernel = _kernels.shift_invariant("gaussian", self.gamma, self.sigma)
        return _rfbench.prff(
            kernel,
            self.n_components,
            self.batch_size,
            self.learning_rate,
            self.l2_penalty,
            self.max_iterations,
            self.tolerance,
            self.weighting,
            rows_for_rust(X),
            seed,
        )
