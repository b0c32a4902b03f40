"""Kernels from scikit-learn-style parameters, in the Rust crate's one bandwidth convention.

The one conversion between scikit-learn's ``gamma`` and the crate's ``sigma``:

* Gaussian ``exp(-gamma ||x - y||^2) = exp(-||x - y||^2 / (2 sigma^2))``: ``sigma = 1 / sqrt(2 gamma)``;
* Laplacian ``exp(-gamma ||x - y||_1) = exp(-||x - y||_1 / sigma)``: ``sigma = 1 / gamma``;
* Matern: ``sigma`` is scikit-learn's ``length_scale`` (there is no ``gamma``).

Give ``gamma`` or ``sigma``, not both. With neither, ``gamma = 1`` (scikit-learn's ``RBFSampler``
default) for the Gaussian and the Laplacian, and ``sigma = 1`` (``Matern``'s default length scale)
for the Matern kernel; ``Nystroem`` passes ``gamma = 1 / n_features`` instead, as scikit-learn's
kernels do for ``gamma=None``. ``gamma="scale"`` is ``RBFSampler``'s: ``1 / (n_features * X.var())``
(1 when ``X`` is constant).

scikit-learn's kernel names are accepted beside the crate's: ``"rbf"`` is ``"gaussian"``,
``"poly"`` is ``"polynomial"`` (``ALIASES``).
"""

import scipy.sparse as sp

from . import _rfbench

SHIFT_INVARIANT = ("gaussian", "laplacian", "matern")
ALL = SHIFT_INVARIANT + ("polynomial", "linear")
# scikit-learn's names -> the crate's.
ALIASES = {"rbf": "gaussian", "poly": "polynomial"}


def names(canonical):
    """The names a ``kernel`` parameter accepts for the kernels ``canonical``: theirs and
    scikit-learn's aliases of them."""
    return set(canonical) | {alias for alias, name in ALIASES.items() if name in canonical}


def canonical(name):
    """The crate's name of kernel ``name`` (scikit-learn's ``"rbf"`` is ``"gaussian"``)."""
    return ALIASES.get(name, name)


def scale_gamma(X):
    """scikit-learn's ``gamma="scale"`` (``RBFSampler``): ``1 / (n_features * X.var())``, the
    variance over every entry (of the sparse matrix with its zeros), 1 for constant ``X``."""
    if sp.issparse(X):
        variance = X.multiply(X).mean() - X.mean() ** 2
    else:
        variance = X.var()
    return 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0


def resolve_gamma(gamma, X):
    """A number for ``gamma``: ``"scale"`` computed from ``X``; a number or None as given."""
    return scale_gamma(X) if isinstance(gamma, str) and gamma == "scale" else gamma


def _bandwidth(name, gamma, sigma):
    if gamma is not None and sigma is not None:
        raise ValueError(f"give gamma or sigma, not both (got gamma={gamma}, sigma={sigma})")
    if name == "matern" and gamma is not None:
        raise ValueError("the Matern kernel takes sigma (its length scale), not gamma")
    return gamma, sigma


def _gaussian(gamma, sigma, nu):
    if sigma is not None:
        return _rfbench.Kernel.gaussian(sigma)
    return _rfbench.Kernel.gaussian_from_gamma(1.0 if gamma is None else gamma)


def _laplacian(gamma, sigma, nu):
    if sigma is None:
        gamma = 1.0 if gamma is None else gamma
        if not gamma > 0:
            raise ValueError(f"laplacian kernel: gamma = {gamma} must be > 0")
        sigma = 1.0 / gamma
    return _rfbench.Kernel.laplacian(sigma)


def _matern(gamma, sigma, nu):
    return _rfbench.Kernel.matern(nu, 1.0 if sigma is None else sigma)


_BUILDERS = {"gaussian": _gaussian, "laplacian": _laplacian, "matern": _matern}


def shift_invariant(name, gamma=None, sigma=None, nu=1.5):
    """The Rust kernel named ``name`` (one of ``SHIFT_INVARIANT`` or an alias), bandwidth from
    gamma (a number or None, ``resolve_gamma`` done) or sigma."""
    name = canonical(name)
    gamma, sigma = _bandwidth(name, gamma, sigma)
    return _BUILDERS[name](gamma, sigma, nu)


def polynomial(degree, gamma=1.0, coef0=0.0):
    """``(gamma <x, y> + coef0)^degree``, as scikit-learn's ``polynomial_kernel``."""
    return _rfbench.Kernel.polynomial(degree, gamma, coef0)


def linear():
    """``<x, y>`` (a degree-1 polynomial without offset)."""
    return _rfbench.Kernel.polynomial(1, 1.0, 0.0)
