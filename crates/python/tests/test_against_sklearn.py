"""Our maps against scikit-learn's estimators of the same algorithm at equal D: the Gram-matrix
errors over ten seeds each must not differ by more than chance allows, and a map with twice the D
must be told apart (so the test can fail). Then a pipeline in a grid search."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import PolynomialCountSketch, RBFSampler
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from conftest import assert_covers_the_registry
from rfbench import Fastfood, NystroemMap, RandomFourierFeatures, TensorSketch
from test_kernels import relative_error, rows

SEEDS = range(10)
# Welch's t statistic of the two sets of ten errors must stay below this: under equal means its
# two-sided false-alarm probability is below 0.1 % (t quantile 0.9995 at 18 degrees of freedom is
# 3.92).
T_LIMIT = 4.0


def welch_t(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))


def errors(make, X, K):
    return [relative_error(make(seed).fit_transform(X), K) for seed in SEEDS]


PAIRS = {
    "RBFSampler": (
        lambda D, s: RandomFourierFeatures(D, gamma=0.25, form="phase", random_state=s),
        lambda D, s: RBFSampler(gamma=0.25, n_components=D, random_state=s),
        lambda X: rbf_kernel(X, gamma=0.25),
        500,
    ),
    "PolynomialCountSketch": (
        # Homogeneous: with an offset both sketches' errors are bimodal over seeds (a collision
        # of the constant coordinate), and ten seeds cannot tell D from 2D.
        lambda D, s: TensorSketch(D, degree=3, random_state=s),
        lambda D, s: PolynomialCountSketch(degree=3, n_components=D, random_state=s),
        lambda X: polynomial_kernel(X, degree=3, gamma=1.0, coef0=0.0),
        500,
    ),
    "Nystroem": (
        lambda D, s: NystroemMap(D, gamma=0.25, random_state=s),
        lambda D, s: SkNystroem(gamma=0.25, n_components=D, random_state=s),
        lambda X: rbf_kernel(X, gamma=0.25),
        20,
    ),
}


# The registry's maps scikit-learn has no estimator of: their Gram errors are checked against the
# exact kernel alone (test_kernels.CASES). A registry map neither here nor in PAIRS fails
# test_every_registry_map_is_paired_or_has_no_counterpart.
NO_SCIKIT_LEARN_ESTIMATOR = (
    "random-maclaurin",
    "random-maclaurin-h01",
    "orf",
    "sorf",
    "fastfood",
    "fastfood-fft",
    "random-binning",
    "prff",
)


def test_every_registry_map_is_paired_or_has_no_counterpart():
    ours = [make(64, 0) for make, _, _, _ in PAIRS.values()]
    assert_covers_the_registry(ours, "test_against_sklearn.PAIRS", NO_SCIKIT_LEARN_ESTIMATOR)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_gram_error_equals_scikit_learns_at_equal_d(name):
    ours, theirs, kernel, D = PAIRS[name]
    X = rows()
    K = kernel(X)
    ours_errors = errors(lambda s: ours(D, s), X, K)
    their_errors = errors(lambda s: theirs(D, s), X, K)
    assert abs(welch_t(ours_errors, their_errors)) < T_LIMIT
    # The same test tells a map with twice the features apart.
    doubled = errors(lambda s: ours(2 * D, s), X, K)
    assert abs(welch_t(doubled, their_errors)) > T_LIMIT


def test_a_pipeline_in_a_grid_search():
    X, y = make_classification(600, 10, n_informative=6, random_state=0)
    model = make_pipeline(Fastfood(256, random_state=0), LinearSVC())
    search = GridSearchCV(model, {"fastfood__gamma": [0.01, 0.1, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["fastfood__gamma"] in (0.01, 0.1, 1.0)
    assert search.best_estimator_[0].n_features_in_ == 10
    assert search.best_estimator_[0].map_.output_dim == 256
    # Better than chance, and the best candidate's cross-validated accuracy is what it reports.
    assert search.best_score_ > 0.75
    assert search.best_score_ == pytest.approx(search.cv_results_["mean_test_score"].max())


def test_the_readmes_examples_run():
    """The Python examples of the repository's README and of the package's own README."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[3]
    for readme in (root / "README.md", root / "crates" / "python" / "README.md"):
        blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)
        assert blocks, readme
        for block in blocks:
            exec(compile(block, str(readme), "exec"), {})
