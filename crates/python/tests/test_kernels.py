"""Each estimator approximates the kernel scikit-learn computes with the same parameters (the
gamma/sigma conversion and the polynomial gamma scaling checked against scikit-learn's own
kernel functions), and its Gram error is that of scikit-learn's estimator of the same algorithm at
equal D, within a stated statistical tolerance."""

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import PolynomialCountSketch, RBFSampler
from sklearn.metrics.pairwise import laplacian_kernel, polynomial_kernel, rbf_kernel

from conftest import assert_covers_the_registry
from rfbench import (
    Fastfood,
    NystroemMap,
    OrthogonalRandomFeatures,
    PseudoRandomFourierFeatures,
    RandomBinning,
    RandomFourierFeatures,
    RandomMaclaurin,
    StructuredOrthogonalRandomFeatures,
    TensorSketch,
)


def rows(n=300, d=16, seed=0):
    X = np.random.RandomState(seed).randn(n, d)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def relative_error(Z, K):
    gram = Z @ Z.T
    gram = gram.toarray() if hasattr(gram, "toarray") else gram  # sparse features (binning)
    return np.linalg.norm(gram - K) / np.linalg.norm(K)


GAMMA = 0.25


def rbf(X, scale=1.0):
    return rbf_kernel(X, gamma=GAMMA * scale)


def laplacian(X, scale=1.0):
    return laplacian_kernel(X, gamma=GAMMA * scale)


def polynomial(X, scale=1.0):
    return polynomial_kernel(X, degree=2, gamma=0.5 * scale, coef0=1.0)


# (estimator, scikit-learn's exact kernel with the same parameters, bound on the relative
# Frobenius error of the Gram matrix). Each bound is 1.5x the largest error over seeds 0-9 on
# these rows (measured 2026-11-25; the measurement in the comment), and the test also asserts that
# the kernel with twice or half the bandwidth parameter is outside it: a bandwidth read in the
# wrong convention cannot pass.
CASES = [
    (RandomFourierFeatures(2000, gamma=GAMMA, form="phase"), rbf, 0.053),  # 0.0347
    (RandomFourierFeatures(2000, gamma=GAMMA, form="paired"), rbf, 0.036),  # 0.0237
    (RandomFourierFeatures(2000, kernel="laplacian", gamma=GAMMA, form="phase"), laplacian, 0.14),  # 0.0930
    (OrthogonalRandomFeatures(2000, gamma=GAMMA, form="phase"), rbf, 0.048),  # 0.0317
    (StructuredOrthogonalRandomFeatures(2048, gamma=GAMMA, form="phase"), rbf, 0.065),  # 0.0428
    (Fastfood(2048, gamma=GAMMA, form="phase"), rbf, 0.079),  # 0.0523
    (Fastfood(2048, gamma=GAMMA, method="fft", form="phase"), rbf, 0.054),  # 0.0357
    (RandomBinning(2000, width=4096, gamma=GAMMA), laplacian, 0.066),  # 0.0434
    (NystroemMap(200, gamma=GAMMA), rbf, 0.0033),  # 0.0022
    (PseudoRandomFourierFeatures(500, gamma=GAMMA, max_iterations=3), rbf, 0.087),  # 0.0578
    (TensorSketch(4000, degree=2, gamma=0.5, coef0=1.0), polynomial, 0.09),  # 0.0600
    (RandomMaclaurin(4000, degree=2, gamma=0.5, coef0=1.0), polynomial, 0.06),  # 0.0395
    (RandomMaclaurin(4000, degree=2, gamma=0.5, coef0=1.0, h01=True), polynomial, 0.0084),  # 0.0056
    (NystroemMap(200, kernel="polynomial", degree=2, gamma=0.5, coef0=1.0), polynomial, 1e-6),  # exact: rank 153 < 200 landmarks
]


def test_every_registry_map_has_a_gram_error_case():
    assert_covers_the_registry([estimator for estimator, _, _ in CASES], "test_kernels.CASES")


def case_id(value):
    return repr(value)[:60] if not callable(value) and not isinstance(value, float) else None


@pytest.mark.parametrize("estimator, kernel, bound", CASES, ids=case_id)
def test_gram_matrix_approximates_scikit_learns_kernel(estimator, kernel, bound):
    X = rows()
    Z = estimator.set_params(random_state=0).fit_transform(X)
    assert relative_error(Z, kernel(X)) < bound
    assert relative_error(Z, kernel(X, 2.0)) > bound
    assert relative_error(Z, kernel(X, 0.5)) > bound


def test_prff_residual_weighting_is_refused():
    """The first line of eq. (4), its weight 2 on the new feature against a target that the
    average of the previous features already nearly cancels, drives the features away from the
    kernel (Gram error 0.92 against 0.056 here, 2026-11-26; the Rust crate's tests compare the
    readings): the package refuses it rather than return such features (issue 68, item 14)."""
    X = rows()

    def fit(weighting, steps):
        prff = PseudoRandomFourierFeatures(
            500, gamma=GAMMA, max_iterations=steps, weighting=weighting, random_state=0
        )
        return prff.fit_transform(X)

    assert relative_error(fit("average", 3), rbf(X)) < 0.087
    # The residual reading is refused, not returned as features far from the kernel.
    with pytest.raises(ValueError, match="weighting='residual'"):
        fit("residual", 3)
