"""Shared fixtures: every estimator with small parameters (the checks fit on 10-30 rows), and the
component registry's maps with the class of each."""

import numpy as np

from rfbench import _REGISTRY_CLASSES as REGISTRY_CLASSES
from rfbench import _rfbench
from rfbench import (
    Fastfood,
    Nystroem,
    PolynomialCountSketch,
    RBFSampler,
    NystroemMap,
    OrthogonalRandomFeatures,
    PseudoRandomFourierFeatures,
    RandomBinning,
    RandomFourierFeatures,
    RandomMaclaurin,
    StructuredOrthogonalRandomFeatures,
    TensorSketch,
)


def gaussian_callable(x, y, gamma=1.0):
    """``exp(-gamma |x - y|^2)`` on two rows: a callable kernel as scikit-learn takes one
    (module-level, so an estimator holding it pickles)."""
    return float(np.exp(-gamma * np.sum((x - y) ** 2)))


def every_estimator():
    """One instance of every transformer, each map and variant the package offers."""
    return [
        TensorSketch(n_components=40, degree=3, coef0=1.0),
        RandomMaclaurin(n_components=40, degree=2, coef0=1.0),
        RandomMaclaurin(n_components=40, degree=2, coef0=1.0, h01=True),
        RandomFourierFeatures(n_components=40),
        RandomFourierFeatures(n_components=40, kernel="laplacian"),
        RandomFourierFeatures(n_components=40, kernel="matern", nu=2.5, sigma=2.0),
        OrthogonalRandomFeatures(n_components=40, gamma=0.5),
        StructuredOrthogonalRandomFeatures(n_components=40),
        Fastfood(n_components=40),
        Fastfood(n_components=40, method="fft"),
        RandomBinning(n_grids=20, width=64),
        NystroemMap(n_components=10),
        NystroemMap(n_components=10, kernel="polynomial", degree=2),
        # Kernels scikit-learn computes (rfbench._pairwise): one of its names, and a callable.
        NystroemMap(n_components=10, kernel="cosine"),
        NystroemMap(n_components=10, kernel=gaussian_callable, kernel_params={"gamma": 0.5}),
        PseudoRandomFourierFeatures(n_components=20, max_iterations=5),
    ]


def sklearn_named_estimators():
    """scikit-learn's classes by name (module ``rfbench.sklearn_classes``): not registry maps of
    their own, so not in ``every_estimator()``; at small sizes and with the parameters their
    own paths take (the crate's kernel, and scikit-learn's given kernel_params)."""
    return [
        RBFSampler(n_components=40),
        RBFSampler(gamma="scale", n_components=41),
        PolynomialCountSketch(degree=3, coef0=1.0, n_components=40),
        Nystroem(n_components=10),
        Nystroem(kernel="poly", kernel_params={"degree": 2}, n_components=10),
    ]


def feature_maps():
    """The registry's random feature maps by name (not ``exact`` or ``none``), in its order."""
    return [m["name"] for m in _rfbench.registry()["maps"] if m["is_feature_map"]]


def registry_name(estimator):
    """The registry map an estimator is: its class's, selected by its parameters."""
    params = estimator.get_params()
    names = [
        name
        for name, (cls, selects) in REGISTRY_CLASSES.items()
        if cls is type(estimator) and all(params[k] == v for k, v in selects.items())
    ]
    assert len(names) == 1, (estimator, names)
    return names[0]


def assert_covers_the_registry(estimators, what, exempt=()):
    """Fails naming every registry map none of ``estimators`` is (and none of ``exempt``)."""
    covered = {registry_name(e) for e in estimators} | set(exempt)
    missing = [name for name in feature_maps() if name not in covered]
    assert not missing, f"{what} does not cover the registry's maps {missing}"
