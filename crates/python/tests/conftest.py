"""Shared fixtures: every estimator with small parameters (the checks fit on 10-30 rows)."""

from rfbench import (
    Fastfood,
    Nystroem,
    OrthogonalRandomFeatures,
    PseudoRandomFourierFeatures,
    RandomBinning,
    RandomFourierFeatures,
    RandomMaclaurin,
    StructuredOrthogonalRandomFeatures,
    TensorSketch,
)


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
        Nystroem(n_components=10),
        Nystroem(n_components=10, kernel="polynomial", degree=2),
        PseudoRandomFourierFeatures(n_components=20, max_iterations=5),
    ]
