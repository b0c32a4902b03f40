"""Maps of shift-invariant kernels that draw their randomness from the input dimension alone:
random Fourier features, orthogonal and structured orthogonal random features, Fastfood, random
binning. Bandwidths: ``gamma`` (scikit-learn's) or ``sigma`` (the crate's), module ``_kernels``.
"""

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from . import _kernels, _registry, _rfbench
from ._base import MapTransformer

_BANDWIDTH = {
    "gamma": [Interval(Real, 0, None, closed="neither"), None],
    "sigma": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": ["random_state"],
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
    "kernel": [StrOptions(set(_kernels.SHIFT_INVARIANT))],
    # The registry's forms and "auto" (``_registry.DEVIATIONS``).
    "form": [StrOptions(_registry.constraint(_REGISTRY_PARAMS["form"])[0].options | {"auto"})],
    **_BANDWIDTH,
}

_DOC_PARAMETERS = """
    Parameters
    ----------
    n_components : int, default=100
        D, the number of features (even for ``form="paired"``).
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        Not every map approximates every kernel; an unsupported one is a ValueError at fit.
    gamma : float, default=None
        scikit-learn's bandwidth: ``exp(-gamma ||x - y||^2)`` (Gaussian), ``exp(-gamma ||x - y||_1)``
        (Laplacian). With neither gamma nor sigma, gamma = 1.
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

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
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
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.nu = nu
        self.form = form
        self.random_state = random_state

    def _kernel(self):
        return _kernels.shift_invariant(self.kernel, self.gamma, self.sigma, self.nu)

    def _form(self):
        """The form ``auto`` stands for: paired when D is even, else phase."""
        if self.form != "auto":
            return self.form
        return "paired" if self.n_components % 2 == 0 else "phase"

    def _fit_map(self, X, seed):
        fit = type(self)._fit_function
        return fit(self._kernel(), self.n_components, self._form(), X.shape[1], seed)


class RandomFourierFeatures(_FourierMap):
    __doc__ = (
        "Random Fourier features (Rahimi & Recht 2007): i.i.d. frequencies from the kernel's "
        "spectral density. Gaussian, Laplacian and Matern kernels.\n" + _DOC_PARAMETERS
    )
    _registry_maps = {"rff": {}}
    _fit_function = staticmethod(_rfbench.random_fourier)


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
    ):
        super().__init__(
            n_components,
            kernel=kernel,
            gamma=gamma,
            sigma=sigma,
            nu=nu,
            form=form,
            random_state=random_state,
        )
        self.method = method

    def _fit_map(self, X, seed):
        fft = self.method == "fft"
        return _rfbench.fastfood(
            self._kernel(), self.n_components, self._form(), fft, X.shape[1], seed
        )


class RandomBinning(MapTransformer):
    """Random binning (Rahimi & Recht 2007): ``n_grids`` randomly shifted grids with pitches from
    the Laplacian kernel's density; a row's features are its ``n_grids`` hashed bins. The output
    is a SciPy CSR matrix of ``n_grids * width`` columns with ``n_grids`` entries per row.

    Parameters
    ----------
    n_grids : int, default=100
        P, the number of grids (non-zeros per row).
    width : int, default=1048576
        Hashed bins per grid (2^20, the library's default): collisions bias the kernel up by
        about ``1 / width``. The features are sparse, so a wide grid costs no memory here; a
        learner that stores its weights densely pays ``n_grids * width`` of them.
    gamma : float, default=None
        ``exp(-gamma ||x - y||_1)``; with neither gamma nor sigma, gamma = 1.
    sigma : float, default=None
        ``exp(-||x - y||_1 / sigma)``.
    random_state : int, RandomState instance or None, default=None

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
    }

    def __init__(
        self,
        n_grids=100,
        *,
        width=_registry.default(("map", "random-binning", "width")),
        gamma=None,
        sigma=None,
        random_state=None,
    ):
        self.n_grids = n_grids
        self.width = width
        self.gamma = gamma
        self.sigma = sigma
        self.random_state = random_state

    def _fit_map(self, X, seed):
        kernel = _kernels.shift_invariant("laplacian", self.gamma, self.sigma)
        return _rfbench.random_binning(kernel, self.n_grids, self.width, X.shape[1], seed)
