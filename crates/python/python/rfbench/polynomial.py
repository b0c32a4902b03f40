"""Maps of the polynomial kernel ``(gamma <x, y> + coef0)^degree``: Tensor Sketch and Random
Maclaurin, with scikit-learn's ``PolynomialCountSketch`` parameter names.

The Rust sketches approximate ``(<x, y> + c)^p``. Since
``(gamma <x, y> + coef0)^p = gamma^p (<x, y> + coef0 / gamma)^p``, a ``gamma`` other than 1 is the
map for offset ``coef0 / gamma`` with its features multiplied by ``gamma^(p/2)``: no copy of the
input, and at ``gamma = 1`` the features are the Rust crate's to the bit.
"""

from numbers import Integral

from . import _kernels, _registry, _rfbench
from ._base import MapTransformer, fitted_attribute

# Python name -> the registry's parameter (module ``_registry``).
_REGISTRY_PARAMS = {
    "n_components": ("map", "tensor-sketch", "n_components"),
    "degree": ("kernel", "polynomial", "degree"),
    "gamma": ("kernel", "polynomial", "gamma"),
    "coef0": ("kernel", "polynomial", "offset"),
}
_GAMMA = _registry.default(_REGISTRY_PARAMS["gamma"])
_COEF0 = _registry.default(_REGISTRY_PARAMS["coef0"])


class _PolynomialMap(MapTransformer):
    _registry_params = _REGISTRY_PARAMS
    _parameter_constraints = {
        **_registry.constraints(_REGISTRY_PARAMS),
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def _sketch_kernel(self):
        return _kernels.polynomial(self.degree, 1.0, self.coef0 / self.gamma)

    def _feature_scale(self):
        return self.gamma ** (self.degree / 2)

    def _polynomial(self, n_features):
        return self.degree, self.gamma, self.coef0


class TensorSketch(_PolynomialMap):
    """Tensor Sketch (Pham & Pagh 2013): the FFT of ``degree`` count sketches, an unbiased map of
    ``(gamma <x, y> + coef0)^degree``, O(nnz + D log D) per row.

    Parameters
    ----------
    n_components : int, default=100
        D, the number of features.
    degree : int, default=2
        1 to 64 (the registry's polynomial degree).
    gamma : float, default=1.0
    coef0 : float, default=0.0
        The kernel's offset (>= 0; the registry's ``offset``).
    random_state : int, RandomState instance or None, default=None
        An int is the Rust map's seed (same features as the Rust crate for the same seed).
    n_jobs : int, default=None
        Threads (None: ``rfbench.set_num_threads``'s setting, every core unless limited).

    Attributes
    ----------
    indexHash_ : ndarray of shape (degree, n_features + (coef0 > 0)), dtype int64
        scikit-learn's ``PolynomialCountSketch`` attribute: the bucket in ``[0, n_components)``
        of each input coordinate in each of the ``degree`` count sketches (the constant
        coordinate ``sqrt(coef0 / gamma)`` last).
    bitHash_ : ndarray of the same shape, dtype int64
        Their signs, +-1.
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _registry_maps = {"tensor-sketch": {}}
    indexHash_ = fitted_attribute("indexHash_", "PolynomialCountSketch's indexHash_.")
    bitHash_ = fitted_attribute("bitHash_", "PolynomialCountSketch's bitHash_.")

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=_GAMMA,
        coef0=_COEF0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit_map(self, X, seed):
        kernel, n_features = self._sketch_kernel(), X.shape[1]
        return _rfbench.tensor_sketch(
            kernel, self.n_components, n_features, seed, self._n_threads()
        )


class RandomMaclaurin(_PolynomialMap):
    """Random Maclaurin (Kar & Karnick 2012): products of ``N`` Rademacher projections with
    ``P[N = n] = 2^-(n+1)``, an unbiased map of ``(gamma <x, y> + coef0)^degree``.

    Parameters
    ----------
    n_components : int, default=100
    degree : int, default=2
    gamma : float, default=1.0
    coef0 : float, default=0.0
    h01 : bool, default=False
        H0/1 (Hamid et al. 2014): the degree-0 and degree-1 terms exactly (``1 + d`` more
        features), the higher degrees by ``n_components`` random ones.
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads (None: ``rfbench.set_num_threads``'s setting, every core unless limited).

    Attributes
    ----------
    map_ : rfbench._rfbench.FittedMap
    n_features_in_ : int
    """

    _registry_maps = {"random-maclaurin": {"h01": False}, "random-maclaurin-h01": {"h01": True}}
    _parameter_constraints = {**_PolynomialMap._parameter_constraints, "h01": ["boolean"]}

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=_GAMMA,
        coef0=_COEF0,
        h01=False,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.h01 = h01
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit_map(self, X, seed):
        kernel, n_features = self._sketch_kernel(), X.shape[1]
        return _rfbench.random_maclaurin(
            kernel, self.n_components, self.h01, n_features, seed, self._n_threads()
        )
