"""Maps fitted on the training rows: Nystroem (landmarks sampled from them) and PRFF
(frequencies optimised on them)."""

import warnings

from sklearn.utils._param_validation import StrOptions

from . import _kernels, _registry, _rfbench
from ._base import MapTransformer, rows_for_rust
from .fourier import _BANDWIDTH, _NU


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
        Eigenvalues of ``K_LL`` at or below this fraction of the largest are dropped; in [0, 1)
        (0 keeps every positive eigenvalue).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _registry_maps = {"nystroem": {}}
    _registry_params = {
        "n_components": ("map", "nystroem", "n_components"),
        "eigenvalue_cutoff": ("map", "nystroem", "eigenvalue_cutoff"),
        "nu": _NU,
        "degree": ("kernel", "polynomial", "degree"),
        "coef0": ("kernel", "polynomial", "offset"),
    }
    _parameter_constraints = {
        **_registry.constraints(_registry_params),
        "kernel": [StrOptions(set(_kernels.ALL))],
        **_BANDWIDTH,
    }

    def __init__(
        self,
        n_components=100,
        *,
        kernel="gaussian",
        gamma=None,
        sigma=None,
        nu=_registry.default(_NU),
        degree=3,
        coef0=1.0,
        eigenvalue_cutoff=_registry.default(("map", "nystroem", "eigenvalue_cutoff")),
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


def _prff(name):
    """The registry's default of PRFF's parameter ``name``."""
    return _registry.default(("map", "prff", name))


class PseudoRandomFourierFeatures(MapTransformer):
    """PRFF (Damodaran, Courty & Gosselin 2017): random Fourier features of the Gaussian kernel
    whose frequencies and phases are then optimised, one feature at a time, by mini-batch gradient
    steps on the Gram-matrix error over the training rows.

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

    _registry_maps = {"prff": {}}
    _registry_params = {
        name: ("map", "prff", name)
        for name in (
            "n_components",
            "batch_size",
            "learning_rate",
            "l2_penalty",
            "max_iterations",
            "tolerance",
            "weighting",
        )
    }
    _parameter_constraints = {
        **_registry.constraints(_registry_params),
        "gamma": _BANDWIDTH["gamma"],
        "sigma": _BANDWIDTH["sigma"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components=100,
        *,
        gamma=None,
        sigma=None,
        batch_size=_prff("batch_size"),
        learning_rate=_prff("learning_rate"),
        l2_penalty=_prff("l2_penalty"),
        max_iterations=_prff("max_iterations"),
        tolerance=_prff("tolerance"),
        weighting=_prff("weighting"),
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
