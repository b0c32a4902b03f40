"""Maps of shift-invariant kernels that draw their randomness from the input dimension alone:
random Fourier features, orthogonal and structured orthogonal random features, Fastfood, random
binning. Bandwidths: ``gamma`` (scikit-learn's) or ``sigma`` (the crate's), module ``_kernels``.
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from . import _kernels, _registry, _rfbench
from ._base import MapTransformer, fitted_attribute

_BANDWIDTH = {
    # "scale": RBFSampler's 1 / (n_features * X.var()) (module _kernels).
    "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither"), None],
    "sigma": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": ["random_state"],
    # None: the package's thread count (rfbench.set_num_threads; every core by default).
    "n_jobs": [Integral, None],
}

# Matern's smoothness: the registry's range; the library takes its closed forms only (0.5, 1.5,
# 2.5) and refuses another value at fit with its own message.
_NU = ("kernel", "matern", "nu")

# Python name -> the registry's parameter (module ``_registry``).
_REGISTRY_PARAMS = {
    "n_components": ("map", "rff", "n_components"),
    "nu": _NU,
    "form": ("map", "rff", "form"),
}

_FOURIER = {
    **_registry.constraints(_REGISTRY_PARAMS),
    "kernel": [StrOptions(_kernels.names(_kernels.SHIFT_INVARIANT))],
    # The registry's forms and "auto" (``_registry.DEVIATIONS``).
    "form": [StrOptions(_registry.constraint(_REGISTRY_PARAMS["form"])[0].options | {"auto"})],
    **_BANDWIDTH,
}

_DOC_PARAMETERS = """
    Parameters
    ----------
    n_components : int, default=100
        D, the number of features (even for ``form="paired"``).
    kernel : {"gaussian", "rbf", "laplacian", "matern"}, default="gaussian"
        ``"rbf"`` is scikit-learn's name of the Gaussian. Not every map approximates every
        kernel; an unsupported one is a ValueError at fit.
    gamma : float or "scale", default=None
        scikit-learn's bandwidth: ``exp(-gamma ||x - y||^2)`` (Gaussian), ``exp(-gamma ||x - y||_1)``
        (Laplacian). With neither gamma nor sigma, gamma = 1 (``RBFSampler``'s default).
        ``"scale"``: ``1 / (n_features * X.var())`` from the training rows, as ``RBFSampler``.
    sigma : float, default=None
        The crate's bandwidth: ``exp(-||x - y||^2 / (2 sigma^2))``, ``exp(-||x - y||_1 / sigma)``,
        the Matern length scale (default 1).
    nu : float, default=1.5
        Matern smoothness, one of 0.5, 1.5, 2.5 (the closed forms; another value in [0.5, 2.5]
        is refused at fit by the library, one outside it by the parameter check).
    form : {"auto", "paired", "phase"}, default="auto"
        ``paired``: ``[cos(Wx), sin(Wx)] / sqrt(D/2)`` from D/2 frequencies (the Rust crate's
        default): lower variance at equal D and half the projections, D must be even;
        ``phase``: ``sqrt(2/D) cos(Wx + b)`` from D frequencies (scikit-learn's RBFSampler), any
        D; ``auto``: paired when D is even, else phase.
    random_state : int, RandomState instance or None, default=None
        An int is the Rust map's seed (the same features as the Rust crate for the same seed).
    n_jobs : int, default=None
        Threads of the fit and the transforms: None is the package's setting
        (``rfbench.set_num_threads``, which ``threadpoolctl.threadpool_limits`` also sets; every
        core unless limited), -1 every core, -2 all but one. The features do not depend on it.

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
"""

_DOC_RFF_ATTRIBUTES = """    random_weights_ : ndarray of shape (n_features, n_components)
        scikit-learn's ``RBFSampler`` attribute: the features are
        ``sqrt(2 / n_components) * cos(X @ random_weights_ + random_offset_)`` in both forms (the
        paired form's ``D/2`` frequencies appear twice, with phases 0 and ``3 pi / 2``).
    random_offset_ : ndarray of shape (n_components,)
        The phases (uniform on ``[0, 2 pi)`` in the phase form).
"""


class _FourierMap(MapTransformer):
    _registry_params = _REGISTRY_PARAMS
    _parameter_constraints = _FOURIER
    _fit_function = None

    def __init__(
        self,
        n_components=100,
        *,
        kernel="gaussian",
        gamma=None,
        sigma=None,
        nu=_registry.default(_NU),
        form="auto",
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.nu = nu
        self.form = form
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _kernel(self, X):
        gamma = _kernels.resolve_gamma(self.gamma, X)
        return _kernels.shift_invariant(self.kernel, gamma, self.sigma, self.nu)

    def _form(self):
        """The form ``auto`` stands for: paired when D is even, else phase."""
        if self.form != "auto":
            return self.form
        return "paired" if self.n_components % 2 == 0 else "phase"

    def _fit_map(self, X, seed):
        fit = type(self)._fit_function
        n_features = X.shape[1]
        return fit(
            self._kernel(X), self.n_components, self._form(), n_features, seed, self._n_threads()
        )


class RandomFourierFeatures(_FourierMap):
    __doc__ = (
        "Random Fourier features (Rahimi & Recht 2007): i.i.d. frequencies from the kernel's "
        "spectral density. Gaussian, Laplacian and Matern kernels. scikit-learn's "
        "``RBFSampler`` is this map with ``form=\"phase\"``.\n"
        + _DOC_PARAMETERS
        + _DOC_RFF_ATTRIBUTES
    )
    _registry_maps = {"rff": {}}
    _fit_function = staticmethod(_rfbench.random_fourier)
    random_weights_ = fitted_attribute("random_weights_", "RBFSampler's random_weights_.")
    random_offset_ = fitted_attribute("random_offset_", "RBFSampler's random_offset_.")


class OrthogonalRandomFeatures(_FourierMap):
    __doc__ = (
        "Orthogonal random features (Yu et al. 2016): frequencies orthogonal within blocks of d, "
        "norms from the kernel's radial density. Gaussian and Matern kernels.\n" + _DOC_PARAMETERS
    )
    _registry_maps = {"orf": {}}
    _fit_function = staticmethod(_rfbench.orthogonal)


class StructuredOrthogonalRandomFeatures(_FourierMap):
    __doc__ = (
        "Structured orthogonal random features (Yu et al. 2016): ``sqrt(d)/sigma HD1 HD2 HD3``, "
        "O(D log d) per row. Gaussian kernel only.\n" + _DOC_PARAMETERS
    )
    _registry_maps = {"sorf": {}}
    _fit_function = staticmethod(_rfbench.structured_orthogonal)


class Fastfood(_FourierMap):
    __doc__ = (
        "Fastfood (Le, Sarlos & Smola 2013): ``S H G Pi H B`` per block of d, O(D log d) per row "
        "and O(D) memory. Gaussian and Matern kernels.\n"
        + _DOC_PARAMETERS.replace(
            "    random_state :",
            "    method : {\"hadamard\", \"fft\"}, default=\"hadamard\"\n"
            "        The fast transform in each block: Walsh-Hadamard (the paper's) or a random\n"
            "        circulant by FFT (\"Fastfood FFT\").\n    random_state :",
        )
    )
    _registry_maps = {"fastfood": {"method": "hadamard"}, "fastfood-fft": {"method": "fft"}}
    _parameter_constraints = {**_FOURIER, "method": [StrOptions({"hadamard", "fft"})]}

    def __init__(
        self,
        n_components=100,
        *,
        kernel="gaussian",
        gamma=None,
        sigma=None,
        nu=_registry.default(_NU),
        form="auto",
        method="hadamard",
        random_state=None,
        n_jobs=None,
    ):
        super().__init__(
            n_components,
            kernel=kernel,
            gamma=gamma,
            sigma=sigma,
            nu=nu,
            form=form,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.method = method

    def _fit_map(self, X, seed):
        fft = self.method == "fft"
        kernel, n_features = self._kernel(X), X.shape[1]
        return _rfbench.fastfood(
            kernel, self.n_components, self._form(), fft, n_features, seed, self._n_threads()
        )


# RandomBinning's default width: 2^12, not the registry's 2^20 (its docstring says why).
WIDTH = 2**12


class RandomBinning(MapTransformer):
    """Random binning (Rahimi & Recht 2007): ``n_grids`` randomly shifted grids with pitches from
    the Laplacian kernel's density; a row's features are its ``n_grids`` hashed bins. The output
    is a SciPy CSR matrix of ``n_grids * width`` columns with ``n_grids`` entries per row.

    Parameters
    ----------
    n_grids : int, default=100
        P, the number of grids (non-zeros per row).
    width : int, default=4096
        Hashed bins per grid: collisions bias the kernel up by about ``1 / width``. 2^12 here,
        where the library and the runner's specs default to 2^20: the bias, 2.4e-4, is far below
        the estimate's own standard deviation (up to ``0.5 / sqrt(n_grids)``, 0.05 at 100
        grids), and the output has 409,600 columns instead of 104,857,600, which a user's dense
        step can hold (scikit-learn's ``check_estimator`` densifies the features: at 2^20 it was
        killed for memory, at 2^12 it peaks at 0.6 GB). The features are sparse, so a wide grid
        costs no memory here; a learner that stores its weights densely pays
        ``n_grids * width`` of them.
    gamma : float or "scale", default=None
        ``exp(-gamma ||x - y||_1)``; with neither gamma nor sigma, gamma = 1; ``"scale"``:
        ``1 / (n_features * X.var())``.
    sigma : float, default=None
        ``exp(-||x - y||_1 / sigma)``.
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads (None: ``rfbench.set_num_threads``'s setting, every core unless limited).

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _registry_maps = {"random-binning": {}}
    _registry_params = {
        "n_grids": ("map", "random-binning", "n_grids"),
        "width": ("map", "random-binning", "width"),
    }
    _parameter_constraints = {
        **_registry.constraints(_registry_params),
        "gamma": _BANDWIDTH["gamma"],
        "sigma": _BANDWIDTH["sigma"],
        "random_state": ["random_state"],
        "n_jobs": _BANDWIDTH["n_jobs"],
    }
    _sparse_output = True

    def __init__(
        self,
        n_grids=100,
        *,
        width=WIDTH,
        gamma=None,
        sigma=None,
        random_state=None,
        n_jobs=None,
    ):
        self.n_grids = n_grids
        self.width = width
        self.gamma = gamma
        self.sigma = sigma
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _nonzeros_per_row(self):
        return self.n_grids

    def _fit_map(self, X, seed):
        gamma = _kernels.resolve_gamma(self.gamma, X)
        kernel = _kernels.shift_invariant("laplacian", gamma, self.sigma)
        n_features = X.shape[1]
        return _rfbench.random_binning(
            kernel, self.n_grids, self.width, n_features, seed, self._n_threads()
        )
