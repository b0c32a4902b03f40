"""scikit-learn's classes by name: ``RBFSampler``, ``PolynomialCountSketch`` and ``Nystroem``
with scikit-learn's parameters (names, order, defaults, ``get_params``) and estimators, computed
by the crate, so that swapping ``from sklearn.kernel_approximation import ...`` for
``from rfbench import ...`` changes nothing else: a pipeline's step is still ``rbfsampler``, a
grid on ``rbfsampler__gamma`` still applies.

Each is the crate's map in scikit-learn's form: ``RBFSampler`` is random Fourier features in the
phase form ``sqrt(2/D) cos(Wx + b)`` (``RandomFourierFeatures(form="phase")``),
``PolynomialCountSketch`` is ``TensorSketch``, ``Nystroem`` is ``NystroemMap`` with the crate's
``eigenvalue_cutoff``. Where a parameter's range or a fitted attribute cannot be scikit-learn's,
the class's docstring says so. None takes ``n_jobs`` beyond scikit-learn's (only ``Nystroem``
has one): the others run on the package's thread count (``rfbench.set_num_threads``).
"""

from numbers import Integral, Real

from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS
from sklearn.utils._param_validation import Interval, StrOptions

from . import _kernels, _registry, _rfbench
from ._base import MapTransformer, fitted_attribute
from .data_dependent import NystroemMap
from .fourier import _NU
from .polynomial import _PolynomialMap

_PACKAGE_THREADS = 0  # the extension's "the package's setting" (rfbench.set_num_threads)


class RBFSampler(MapTransformer):
    """scikit-learn's ``RBFSampler``, computed by the crate: random Fourier features of the
    Gaussian kernel ``exp(-gamma ||x - y||^2)`` (Rahimi & Recht 2007) in the phase form,
    ``sqrt(2 / n_components) cos(X W + b)`` with ``W ~ N(0, 2 gamma)`` and
    ``b ~ U[0, 2 pi)``: the same estimator as scikit-learn's, drawn by the crate
    (``RandomFourierFeatures(form="phase")``, bit for bit for the same seed).

    Parameters
    ----------
    gamma : "scale" or float, default=1.0
        ``"scale"``: ``1 / (n_features * X.var())`` from the training rows. Must be > 0 (for
        scikit-learn ``0`` is allowed and gives constant features; here it is an error).
    n_components : int, default=100
        D, the number of features.
    random_state : int, RandomState instance or None, default=None
        An int is the crate's seed: the draws are the crate's, not NumPy's, so the same
        ``random_state`` gives other (equally distributed) weights than scikit-learn's.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
        ``W``, as scikit-learn's.
    random_offset_ : ndarray of shape (n_components,)
        ``b``, as scikit-learn's.
    n_features_in_ : int
    map_ : rfbench._rfbench.FittedMap
        The crate's fitted map (not in scikit-learn's).
    """

    _parameter_constraints = {
        "gamma": [StrOptions({"scale"}), Interval(Real, 0.0, None, closed="neither")],
        "n_components": _registry.constraint(("map", "rff", "n_components")),
        "random_state": ["random_state"],
    }
    # The registry's map, for the memory estimate.
    _registry_maps = {"rff": {}}
    _registry_params = {"n_components": ("map", "rff", "n_components")}
    random_weights_ = fitted_attribute("random_weights_", "W, one column per feature.")
    random_offset_ = fitted_attribute("random_offset_", "b, one phase per feature.")

    def __init__(self, *, gamma=1.0, n_components=100, random_state=None):
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state

    def _n_threads(self):
        return _PACKAGE_THREADS

    def _fit_map(self, X, seed):
        kernel = _kernels.shift_invariant("gaussian", _kernels.resolve_gamma(self.gamma, X))
        return _rfbench.random_fourier(
            kernel, self.n_components, "phase", X.shape[1], seed, _PACKAGE_THREADS
        )


class PolynomialCountSketch(_PolynomialMap):
    """scikit-learn's ``PolynomialCountSketch``, computed by the crate: Tensor Sketch (Pham &
    Pagh 2013) of ``(gamma <x, y> + coef0)^degree``, the FFT of ``degree`` count sketches
    (``TensorSketch``, bit for bit for the same seed).

    Parameters
    ----------
    gamma : float, default=1.0
        Must be > 0 (scikit-learn's also takes 0, whose kernel is the constant ``coef0^degree``).
    degree : int, default=2
        1 to 64 (the registry's range; scikit-learn sets no upper bound).
    coef0 : float, default=0.0
        Must be >= 0: the sketch appends the constant coordinate ``sqrt(coef0)``, and for a
        negative ``coef0`` scikit-learn's features are NaN where this is an error.
    n_components : int, default=100
    random_state : int, RandomState instance or None, default=None
        An int is the crate's seed: other hashes than scikit-learn's for the same value.

    Attributes
    ----------
    indexHash_ : ndarray of shape (degree, n_features + (coef0 > 0)), dtype int64
        Each input coordinate's bucket in each count sketch, as scikit-learn's (the constant
        coordinate last).
    bitHash_ : ndarray of the same shape, dtype int64
        Their signs, +-1.
    n_features_in_ : int
    map_ : rfbench._rfbench.FittedMap
        The crate's fitted map (not in scikit-learn's).
    """

    _parameter_constraints = {
        name: constraint
        for name, constraint in _PolynomialMap._parameter_constraints.items()
        if name != "n_jobs"
    }
    _registry_maps = {"tensor-sketch": {}}
    indexHash_ = fitted_attribute("indexHash_", "Buckets, degree x (n_features + (coef0 > 0)).")
    bitHash_ = fitted_attribute("bitHash_", "Signs, +-1.")

    def __init__(self, *, gamma=1.0, degree=2, coef0=0.0, n_components=100, random_state=None):
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
        self.random_state = random_state

    def _n_threads(self):
        return _PACKAGE_THREADS

    def _fit_map(self, X, seed):
        kernel, n_features = self._sketch_kernel(), X.shape[1]
        return _rfbench.tensor_sketch(
            kernel, self.n_components, n_features, seed, _PACKAGE_THREADS
        )


# The kernels the crate computes itself (others, and any kernel_params, go to scikit-learn's
# pairwise_kernels: module _pairwise).
_CRATE_KERNELS = frozenset({"rbf", "laplacian", "poly", "polynomial", "linear"})
_MAX_DEGREE = _registry.param(("kernel", "polynomial", "degree"))["max"]


class Nystroem(NystroemMap):
    """scikit-learn's ``Nystroem``, computed by the crate (Williams & Seeger 2001):
    ``K(x, components_) @ normalization_.T`` for ``n_components`` landmark rows sampled
    without replacement from the training rows, ``normalization_ = K_LL^{-1/2}``.

    The kernel is scikit-learn's in every case: the crate computes ``"rbf"``, ``"laplacian"``,
    ``"poly"``/``"polynomial"`` and ``"linear"`` (gamma None is ``1 / n_features``, the
    polynomial's degree 3 and coef0 1, as ``pairwise_kernels``); scikit-learn's
    ``pairwise_kernels`` computes the others, a callable, and any kernel given
    ``kernel_params``, on the crate's landmarks (module ``rfbench._pairwise``). As in
    scikit-learn, a parameter set here wins over the same name in ``kernel_params``, and a
    callable or ``"precomputed"`` kernel takes none of gamma, coef0, degree.

    Parameters
    ----------
    kernel : str or callable, default="rbf"
        A name of ``sklearn.metrics.pairwise.PAIRWISE_KERNEL_FUNCTIONS``, ``"precomputed"``
        (``fit`` takes the training rows' ``n x n`` kernel matrix, ``transform`` rows' kernel
        values against the training rows; any ``n_components``, where scikit-learn's fits only
        with every row a landmark) or a callable ``kernel(x, y, **kernel_params) -> float``.
    gamma : float, default=None
    coef0 : float, default=None
    degree : float, default=None
        The kernel's parameters; None is the kernel's own default.
    kernel_params : dict, default=None
        Further keyword arguments of the kernel.
    n_components : int, default=100
        Landmarks; with fewer training rows, every row is one (with a warning).
    random_state : int, RandomState instance or None, default=None
        An int is the crate's seed: the landmarks are the crate's sample, not those NumPy's
        permutation picks for the same value.
    n_jobs : int, default=None
        Threads of the fit and the transforms (None: ``rfbench.set_num_threads``'s setting).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The landmarks (dense even for sparse input, where scikit-learn's keeps them sparse).
    component_indices_ : ndarray of shape (n_components,)
        Their indices among the training rows.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K_LL^{-1/2}`` with the eigenvalues at or below ``1e-10`` times the largest dropped
        (the crate's ``eigenvalue_cutoff``); scikit-learn clamps them at ``1e-12`` instead, so
        on a rank-deficient ``K_LL`` its ``normalization_`` weighs the null directions by up to
        ``1e6`` where this one weighs them 0. Equal otherwise.
    n_features_in_ : int
    map_ : rfbench._rfbench.FittedMap
        The fitted map (not in scikit-learn's).
    """

    _parameter_constraints = {
        "kernel": [StrOptions(set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"}), callable],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "coef0": [Interval(Real, None, None, closed="neither"), None],
        "degree": [Interval(Real, 1, None, closed="left"), None],
        "kernel_params": [dict, None],
        "n_components": _registry.constraint(("map", "nystroem", "n_components")),
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }
    # NystroemMap's parameters that scikit-learn's class does not have, at their defaults.
    sigma = None
    nu = _registry.default(_NU)
    eigenvalue_cutoff = _registry.default(("map", "nystroem", "eigenvalue_cutoff"))
    # A parameter set here wins over kernel_params, as in scikit-learn (module _pairwise).
    _KERNEL_PARAMS_CONFLICT = "override"

    def __init__(
        self,
        kernel="rbf",
        *,
        gamma=None,
        coef0=None,
        degree=None,
        kernel_params=None,
        n_components=100,
        random_state=None,
        n_jobs=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.kernel_params = kernel_params
        self.n_components = n_components
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _degree_coef0(self):
        # scikit-learn's polynomial_kernel defaults.
        degree = 3 if self.degree is None else int(self.degree)
        return degree, 1.0 if self.coef0 is None else float(self.coef0)

    def _pairwise(self):
        """Whether scikit-learn computes the kernel: any but the crate's, any with
        kernel_params, and the crate's where it cannot take the parameters (gamma 0, a degree
        that is not an integer of the registry's range)."""
        if callable(self.kernel) or self.kernel not in _CRATE_KERNELS:
            return True
        if self.kernel_params is not None or self.gamma == 0:
            return True
        degree = self.degree
        return degree is not None and not (float(degree).is_integer() and degree <= _MAX_DEGREE)

    def _fit_map(self, X, seed):
        own = (self.gamma, self.coef0, self.degree)
        if (callable(self.kernel) or self.kernel == "precomputed") and own != (None,) * 3:
            raise ValueError(
                "Nystroem: a callable or precomputed kernel takes no gamma, coef0 or degree "
                "(give a callable's parameters in kernel_params)"
            )
        return super()._fit_map(X, seed)
