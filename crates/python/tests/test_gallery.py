"""scikit-learn's two kernel-approximation gallery examples, "Explicit feature map
approximation for RBF kernels" (plot_kernel_approximation.py) and "Scalable learning with
polynomial kernel approximation" (plot_scalable_poly_kernels.py), as their steps run: the same
data preparation, estimators, parameters and pipelines, with the classes taken either from
``sklearn.kernel_approximation`` or, the only change, from ``rfbench``. Over 10 seeds each, the
test accuracies must be equal within noise (two-sided Welch t), and a grid search over
``rbfsampler__gamma`` of ``make_pipeline(RBFSampler(), LinearSVC())`` must run and agree.

The polynomial example reads Covtype, which needs a download; here it runs on a binary task of
scikit-learn's bundled digits (odd against even) at the example's scaling (MinMaxScaler, then Normalizer) and its
``PolynomialCountSketch(degree=4)``. The examples' plots and timings are left out.
"""

import numpy as np
import pytest
import sklearn.kernel_approximation as sklearn_maps
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer
from sklearn.svm import LinearSVC

import rfbench

SEEDS = range(10)
# |t| above this over 10 + 10 seeds is a difference, not noise (p < 0.002 two-sided).
T_LIMIT = 4.0
LIBRARIES = {"rfbench": rfbench, "sklearn": sklearn_maps}


def welch_t(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    spread = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return 0.0 if spread == 0 else (a.mean() - b.mean()) / spread


def assert_equal_within_noise(scores, what):
    ours, theirs = scores["rfbench"], scores["sklearn"]
    t = welch_t(ours, theirs)
    assert abs(t) < T_LIMIT, (what, np.mean(ours), np.mean(theirs), t)


def digits_halves():
    """The RBF example's data: 9 digit classes, pixels / 16, centred, first half to train."""
    digits = load_digits(n_class=9)
    data = digits.data / 16.0
    data -= data.mean(axis=0)
    half = len(data) // 2
    return data[:half], digits.target[:half], data[half:], digits.target[half:]


def rbf_example(library, seed, sizes):
    """Test accuracy of RBFSampler and Nystroem pipelines (gamma 0.2) at each size."""
    train, y_train, test, y_test = digits_halves()
    scores = {}
    for name in ("RBFSampler", "Nystroem"):
        feature_map = getattr(library, name)(gamma=0.2, random_state=seed)
        model = Pipeline([("feature_map", feature_map), ("svm", LinearSVC())])
        for D in sizes:
            model.set_params(feature_map__n_components=D)
            scores[(name, D)] = model.fit(train, y_train).score(test, y_test)
    return scores


@pytest.mark.parametrize("sizes", [(30, 150, 270)])
def test_the_rbf_example_gives_scikit_learns_accuracies(sizes):
    runs = {key: [rbf_example(lib, seed, sizes) for seed in SEEDS] for key, lib in LIBRARIES.items()}
    for cell in runs["sklearn"][0]:
        scores = {key: [run[cell] for run in runs[key]] for key in runs}
        assert_equal_within_noise(scores, cell)


def test_a_grid_search_over_rbfsampler_gamma():
    train, y_train, test, y_test = digits_halves()
    scores, chosen = {}, {}
    for key, library in LIBRARIES.items():
        scores[key], chosen[key] = [], []
        for seed in SEEDS:
            model = make_pipeline(library.RBFSampler(random_state=seed), LinearSVC())
            grid = {"rbfsampler__gamma": [0.02, 0.2, 2.0]}
            search = GridSearchCV(model, grid, cv=3).fit(train, y_train)
            scores[key].append(search.score(test, y_test))
            chosen[key].append(search.best_params_["rbfsampler__gamma"])
    assert_equal_within_noise(scores, "grid search")
    # The grid's ends are chosen alike: 2.0 (a kernel near the identity on these rows) never.
    for key in chosen:
        assert 2.0 not in chosen[key], chosen


def digit_task(seed):
    """The polynomial example's preparation on a bundled stand-in for Covtype: odd digits
    against even ones (a binary task where, as on Covtype, the sketch beats the linear SVM on
    the raw features: 96-98 % against 92 %), 900 rows to train, the rest to test, scaled to
    [0, 1] and normalised to unit length."""
    digits = load_digits()
    y = digits.target % 2
    X_train, X_test, y_train, y_test = train_test_split(
        digits.data, y, train_size=900, random_state=42
    )
    scaling = make_pipeline(MinMaxScaler(), Normalizer())
    return scaling.fit_transform(X_train), y_train, scaling.transform(X_test), y_test


@pytest.mark.parametrize("n_components", [250, 1000])
def test_the_polynomial_example_gives_scikit_learns_accuracies(n_components):
    X_train, y_train, X_test, y_test = digit_task(0)
    scores = {}
    for key, library in LIBRARIES.items():
        scores[key] = []
        for seed in SEEDS:
            sketch = library.PolynomialCountSketch(
                n_components=n_components, degree=4, random_state=seed
            )
            model = Pipeline([("kernel_approximator", sketch), ("linear_classifier", LinearSVC())])
            scores[key].append(model.fit(X_train, y_train).score(X_test, y_test))
    assert_equal_within_noise(scores, n_components)
