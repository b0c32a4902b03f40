"""Maps fitted on the training rows: Nystroem (landmarks sampled from them) and PRFF
(frequencies optimised on them).

``NystroemMap`` is the crate's Nystroem with its own parameters (``sigma``, Matern's ``nu``,
``eigenvalue_cutoff``); ``rfbench.Nystroem`` (module ``sklearn_classes``) is scikit-learn's class,
parameters and defaults, on the same fit.
"""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from . import _kernels, _pairwise, _registry, _rfbench
from ._base import MapTransformer, fitted_attribute, rows_for_rust
from .fourier import _BANDWIDTH, _NU


class NystroemMap(MapTransformer):
    """Nystroem (Williams & Seeger 2001): ``K(x, L) K_LL^{-1/2}`` for ``n_components`` landmark
    rows ``L`` sampled without replacement from the training rows. Approximates every kernel.

    The crate's parameters (``sigma``, ``nu``, ``eigenvalue_cutoff``, ``degree=3`` and
    ``coef0=1`` set); ``rfbench.Nystroem`` is scikit-learn's ``Nystroem`` (its parameters and
    defaults) on the same fit.

    Parameters
    ----------
    n_components : int, default=100
        Landmarks; with fewer training rows, every row is a landmark (a warning says so, as
        scikit-learn's Nystroem does).
    kernel : str or callable, default="gaussian"
        The crate's kernels: ``"gaussian"`` (scikit-learn's ``"rbf"``), ``"laplacian"``,
        ``"matern"``, ``"polynomial"`` (``"poly"``), ``"linear"``. scikit-learn's other kernels
        (``"sigmoid"``, ``"cosine"``, ``"chi2"``, ``"additive_chi2"``) and a callable
        ``kernel(x, y, **kernel_params) -> float`` are computed by scikit-learn's
        ``pairwise_kernels``, as its ``Nystroem`` does, on the landmarks the crate's sampler picks
        (module ``rfbench._pairwise``); so is any scikit-learn kernel given ``kernel_params``.
        ``"precomputed"``: ``fit`` takes the training rows' ``n x n`` kernel matrix and
        ``transform`` rows as their kernel values against the ``n`` training rows; the
        features are ``X[:, component_indices_] @ normalization_.T``, for any
        ``n_components`` (scikit-learn's fits only with every row a landmark).
    gamma : float, default=None
        ``exp(-gamma ||x - y||^2)`` (Gaussian), ``exp(-gamma ||x - y||_1)`` (Laplacian), the
        polynomial's scale ``(gamma <x, y> + coef0)^degree``. None is ``1 / n_features``, as
        scikit-learn's kernels (``rbf_kernel``, ``laplacian_kernel``, ``polynomial_kernel``) take
        it, so that the swapped import approximates the same kernel.
    sigma : float, default=None
        The crate's bandwidth instead of gamma (module ``rfbench._kernels``); the Matern length
        scale (default 1).
    nu : float, default=1.5
        Matern smoothness, one of 0.5, 1.5, 2.5.
    degree : int, default=3
    coef0 : float, default=1.0
        The polynomial kernel ``(gamma <x, y> + coef0)^degree``; any real, as in scikit-learn
        (a negative one makes the kernel indefinite: the eigenvalues of ``K_LL`` at or below the
        cutoff, negative ones among them, are dropped).
    kernel_params : dict, default=None
        Further keyword arguments of the kernel, as scikit-learn's ``Nystroem`` takes them: a
        callable's parameters (gamma, degree and coef0 are then not used), or extra parameters
        of a scikit-learn kernel. One that names a parameter this class sets (``degree`` and
        ``coef0`` always are) with another value is a ValueError: scikit-learn would let the
        parameter win, which silently ignored ``kernel_params={"degree": 2}`` here.
    eigenvalue_cutoff : float, default=1e-10
        Eigenvalues of ``K_LL`` at or below this fraction of the largest are dropped; in [0, 1)
        (0 keeps every positive eigenvalue).
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads (None: ``rfbench.set_num_threads``'s setting, every core unless limited).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The landmarks (scikit-learn's name); with ``kernel="precomputed"``, their rows of the
        training kernel matrix, as scikit-learn's.
    component_indices_ : ndarray of shape (n_components,)
        Their indices among the training rows.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K_LL^{-1/2}`` (symmetric); the features are ``K(X, components_) @ normalization_.T``.
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _registry_maps = {"nystroem": {}}
    _registry_params = {
        "n_components": ("map", "nystroem", "n_components"),
        "eigenvalue_cutoff": ("map", "nystroem", "eigenvalue_cutoff"),
        "nu": _NU,
        "degree": ("kernel", "polynomial", "degree"),
    }
    _parameter_constraints = {
        **_registry.constraints(_registry_params),
        "kernel": [
            StrOptions(
                _kernels.names(_kernels.ALL) | _pairwise.SKLEARN_ONLY | {_pairwise.PRECOMPUTED}
            ),
            callable,
        ],
        "kernel_params": [dict, None],
        **_BANDWIDTH,
        # scikit-learn's Nystroem takes no "scale".
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        # scikit-learn's: any real (the registry's offset, for the sketches, is >= 0).
        "coef0": [Interval(Real, None, None, closed="neither")],
    }
    # Estimators pickled before kernel_params existed have no such instance attribute: this
    # class default keeps them loading, transforming and cloning as before (the crate's kernels).
    kernel_params = None
    components_ = fitted_attribute("components_", "The landmarks, one per row.")
    normalization_ = fitted_attribute("normalization_", "K_LL^{-1/2}.")

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
        kernel_params=None,
        eigenvalue_cutoff=_registry.default(("map", "nystroem", "eigenvalue_cutoff")),
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.nu = nu
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.eigenvalue_cutoff = eigenvalue_cutoff
        self.random_state = random_state
        self.n_jobs = n_jobs

    # kernel_params naming a parameter the class sets: refused (module ``_pairwise``).
    _KERNEL_PARAMS_CONFLICT = "refuse"

    def _degree_coef0(self):
        """The polynomial kernel's degree and offset."""
        return self.degree, self.coef0

    def _polynomial(self, n_features):
        if self._pairwise() or _kernels.canonical(self.kernel) != "polynomial":
            return None
        gamma = 1.0 / n_features if self.gamma is None else self.gamma
        degree, coef0 = self._degree_coef0()
        return degree, gamma, coef0

    def _pairwise(self):
        """Whether scikit-learn computes this kernel (module ``_pairwise``), not the crate."""
        return _pairwise.handles(self.kernel, self.kernel_params)

    def _kernel(self, n_features):
        kernel = _kernels.canonical(self.kernel)
        # scikit-learn's kernels read gamma=None as 1 / n_features (not for sigma or Matern).
        gamma = self.gamma
        if gamma is None and kernel != "matern" and (self.sigma is None or kernel == "polynomial"):
            gamma = 1.0 / n_features
        if kernel == "polynomial":
            degree, coef0 = self._degree_coef0()
            return _kernels.polynomial(degree, gamma, coef0)
        if kernel == "linear":
            return _kernels.linear()
        return _kernels.shift_invariant(kernel, gamma, self.sigma, self.nu)

    def _size_params(self, X):
        return {"n_components": min(self.n_components, X.shape[0])}

    def _fit_map(self, X, seed):
        n_components = self.n_components
        if n_components > X.shape[0]:
            warnings.warn(
                f"n_components={n_components} is larger than the {X.shape[0]} training rows: "
                f"every row is a landmark (n_components={X.shape[0]})"
            )
            n_components = X.shape[0]
        threads = self._n_threads()
        if self._pairwise():
            fitted, self.component_indices_ = _pairwise.fit(self, X, n_components, seed, threads)
            return fitted
        rows, kernel = rows_for_rust(X), self._kernel(X.shape[1])
        fitted, indices = _rfbench.nystroem(
            kernel, n_components, self.eigenvalue_cutoff, rows, seed, threads
        )
        self.component_indices_ = np.asarray(indices, dtype=np.int64)
        return fitted


# The pickles of version 0.1.0 name this class ``rfbench.data_dependent.Nystroem``: they load as
# the class they were (``rfbench.Nystroem`` is now scikit-learn's signature).
Nystroem = NystroemMap


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
    gamma : float or "scale", default=None
        ``exp(-gamma ||x - y||^2)``; with neither gamma nor sigma, gamma = 1; ``"scale"``:
        ``1 / (n_features * X.var())`` (``RBFSampler``'s).
    sigma : float, default=None
        The crate's bandwidth instead of gamma (module ``rfbench._kernels``).
    batch_size : int, default=128
        Rows per mini-batch (capped at the number of rows).
    learning_rate : float or "auto", default="auto"
        The gradient step. A frequency ``w`` has the units of ``1 / x`` and the loss's curvature
        in ``w`` grows as ``|x|^2``, so a fixed step that works at one scale of the data
        diverges at another: the Rust crate's 50 suits unit-norm rows, but on standardised rows
        (``|x|^2 = d``) it gave a Gram error 2.4 times RFF's (tests/test_prff_defaults.py).
        ``"auto"`` is ``AUTO_LEARNING_RATE / mean_i ||x_i||^2`` over the training rows, with
        ``AUTO_LEARNING_RATE = 200``: of the multipliers 25 to 1800 scanned on 8 data sets
        (standardised with ``gamma = 1/d``, unit-norm with ``gamma`` 1 and 0.25; D = 100;
        2026-11-27), it is below RFF's Gram error on all 8 and within 16 % of the best
        multiplier on each, where 1800 (50 at d = 36) is 2.6 times RFF's on one.
    l2_penalty : float, default=0.0
    max_iterations : int, default=100
        Descent steps per feature; 0 gives random Fourier features (phase form) with the same
        draws.
    tolerance : float, default=1e-8
        A feature's descent stops once the batch loss changes by less than this.
    weighting : {"average"}, default="average"
        Which line of the paper's eq. (4) the loss of feature j follows: "average" weights every
        feature 2/j (its second line). Its first line, "residual" (the new feature weighted 2
        against the average of the ones before), is refused here: the final map weights every
        feature 2/M, so those losses drive the features away from the kernel (Gram errors of 1
        and more, worse than all-zero features). The runner keeps it as a reading of the paper
        for prff-fig2 and prff-fig3 (docs/papers.md compares them).
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads (None: ``rfbench.set_num_threads``'s setting, every core unless limited).

    Attributes
    ----------
    learning_rate_ : float
        The step used (``learning_rate``, or what ``"auto"`` chose).
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
        "n_jobs": _BANDWIDTH["n_jobs"],
    }
    # The registry's range, and "auto" (``_registry.DEVIATIONS``).
    _parameter_constraints["learning_rate"] = [
        *_parameter_constraints["learning_rate"],
        StrOptions({"auto"}),
    ]
    # The step per unit of mean squared row norm (the learning_rate doc says how it was chosen).
    AUTO_LEARNING_RATE = 200.0

    def __init__(
        self,
        n_components=100,
        *,
        gamma=None,
        sigma=None,
        batch_size=_prff("batch_size"),
        learning_rate="auto",
        l2_penalty=_prff("l2_penalty"),
        max_iterations=_prff("max_iterations"),
        tolerance=_prff("tolerance"),
        weighting=_prff("weighting"),
        random_state=None,
        n_jobs=None,
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
        self.n_jobs = n_jobs

    def _learning_rate(self, X):
        """``learning_rate``, or ``"auto"``'s step for the rows ``X``."""
        if not (isinstance(self.learning_rate, str) and self.learning_rate == "auto"):
            return float(self.learning_rate)
        squares = X.multiply(X).sum() if sp.issparse(X) else np.einsum("ij,ij->", X, X)
        mean_square = float(squares) / X.shape[0]
        if not np.isfinite(mean_square):
            # Else the step is 200 / inf = 0, refused as a learning_rate the user never gave.
            raise ValueError(
                f"{type(self).__name__}: learning_rate='auto' divides by the rows' mean squared "
                "norm, which overflows for this X (values near the float range): scale X down"
            )
        return self.AUTO_LEARNING_RATE / mean_square if mean_square > 0 else self.AUTO_LEARNING_RATE

    def _fit_map(self, X, seed):
        if self.weighting == "residual":
            raise ValueError(
                f"{type(self).__name__}: weighting='residual' (eq. (4)'s first line) gives "
                "features far from the kernel (Gram errors of 1 and more): the final map weights "
                "every feature 2/M, not as that loss assumes. Use weighting='average'; the "
                "residual reading is kept only in the runner's prff-fig2/prff-fig3 specs"
            )
        gamma = _kernels.resolve_gamma(self.gamma, X)
        kernel = _kernels.shift_invariant("gaussian", gamma, self.sigma)
        self.learning_rate_ = self._learning_rate(X)
        return _rfbench.prff(
            kernel,
            self.n_components,
            self.batch_size,
            self.learning_rate_,
            self.l2_penalty,
            self.max_iterations,
            self.tolerance,
            self.weighting,
            rows_for_rust(X),
            seed,
            self._n_threads(),
        )
