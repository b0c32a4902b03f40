"""scikit-learn's own usage of ``sklearn.kernel_approximation`` (Nystroem, RBFSampler,
PolynomialCountSketch: fit, transform, fitted attributes, a grid search with ``n_jobs=2`` inside
``threadpool_limits(1)``) run unchanged with the import swapped to rfbench's classes: the same
kernel approximated (Gram errors within noise of scikit-learn's), attributes of the same shapes,
and attributes that mean what scikit-learn's mean (scikit-learn's own ``transform`` fed our
attributes gives our features)."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.kernel_approximation as sklearn_maps
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import pairwise_kernels, polynomial_kernel, rbf_kernel
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import rfbench
from conftest import gaussian_callable
from test_against_sklearn import T_LIMIT, welch_t

# The swapped import: ``from rfbench import Nystroem, RBFSampler, PolynomialCountSketch``.
SWAPPED = {
    "Nystroem": rfbench.Nystroem,
    "RBFSampler": rfbench.RBFSampler,
    "PolynomialCountSketch": rfbench.PolynomialCountSketch,
}
ORIGINAL = {name: getattr(sklearn_maps, name) for name in SWAPPED}


def data():
    X, y = make_classification(400, 12, n_informative=6, random_state=0)
    return StandardScaler().fit_transform(X), y


def notebook(Nystroem, RBFSampler, PolynomialCountSketch, seed):
    """A researcher's cells, written against scikit-learn (defaults as scikit-learn documents
    them: Nystroem's gamma=None is 1/n_features, RBFSampler's gamma="scale")."""
    X, _ = data()
    out = {}
    nystroem = Nystroem(kernel="rbf", n_components=60, random_state=seed).fit(X)
    out["nystroem"] = nystroem.transform(X)
    out["nystroem shapes"] = (
        nystroem.components_.shape,
        nystroem.component_indices_.shape,
        nystroem.normalization_.shape,
    )
    rbf = RBFSampler(gamma="scale", n_components=300, random_state=seed).fit(X)
    out["rbf"] = rbf.transform(X)
    out["rbf shapes"] = (rbf.random_weights_.shape, rbf.random_offset_.shape)
    sketch = PolynomialCountSketch(degree=2, coef0=1.0, n_components=300, random_state=seed)
    out["sketch"] = sketch.fit_transform(X / np.sqrt(X.shape[1]))
    out["sketch shapes"] = (sketch.indexHash_.shape, sketch.bitHash_.shape)
    return out


def exact_kernels():
    """The kernels scikit-learn's cells approximate, by scikit-learn's own kernel functions."""
    X, _ = data()
    return {
        "nystroem": rbf_kernel(X),  # gamma=None: 1 / n_features
        "rbf": rbf_kernel(X, gamma=1.0 / (X.shape[1] * X.var())),
        "sketch": polynomial_kernel(X / np.sqrt(X.shape[1]), degree=2, gamma=1.0, coef0=1.0),
    }


def misread_kernels():
    """The same kernels with a parameter read another way (gamma=None or "scale" as 1, the
    offset dropped): a map of one of these must not pass for the kernel above."""
    X, _ = data()
    return {
        "nystroem": rbf_kernel(X, gamma=1.0),
        "rbf": rbf_kernel(X, gamma=1.0),
        "sketch": polynomial_kernel(X / np.sqrt(X.shape[1]), degree=2, gamma=1.0, coef0=0.0),
    }


def relative_error(Z, K):
    return np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K)


@pytest.fixture(scope="module")
def runs():
    return {
        which: [notebook(**classes, seed=seed) for seed in range(8)]
        for which, classes in (("ours", SWAPPED), ("theirs", ORIGINAL))
    }


@pytest.mark.parametrize("cell", ["nystroem", "rbf", "sketch"])
def test_the_swapped_import_approximates_the_same_kernel_as_well(runs, cell):
    K = exact_kernels()[cell]
    ours = [relative_error(run[cell], K) for run in runs["ours"]]
    theirs = [relative_error(run[cell], K) for run in runs["theirs"]]
    # Not worse than scikit-learn's beyond chance (one-sided Welch t over 8 seeds each).
    assert welch_t(ours, theirs) < T_LIMIT, (np.mean(ours), np.mean(theirs))
    # And the kernel is the same one: against the kernel with a parameter read another way
    # (gamma = 1 where scikit-learn's None means 1/n_features, say) the error is twice as large.
    misread = [relative_error(run[cell], misread_kernels()[cell]) for run in runs["ours"]]
    assert np.mean(misread) > 2 * np.mean(ours), (np.mean(misread), np.mean(ours))


def test_the_fitted_attributes_have_scikit_learns_shapes(runs):
    for ours, theirs in zip(runs["ours"], runs["theirs"]):
        for cell in ("nystroem shapes", "rbf shapes", "sketch shapes"):
            assert ours[cell] == theirs[cell], cell


def test_a_grid_search_with_two_jobs_under_threadpool_limits():
    """scikit-learn's grid search of a pipeline, processes and thread limits as users write it:
    ``make_pipeline`` names the step after the class, so the grid's names are scikit-learn's
    (``rbfsampler__gamma``) only if the class's name is."""
    X, y = data()
    results = {}
    for which, classes in (("ours", SWAPPED), ("theirs", ORIGINAL)):
        model = make_pipeline(classes["RBFSampler"](random_state=0), LinearSVC())
        grid = {"rbfsampler__gamma": [0.01, 0.1], "rbfsampler__n_components": [100, 200]}
        with threadpool_limits(1):
            search = GridSearchCV(model, grid, cv=3, n_jobs=2).fit(X, y)
        results[which] = search.best_score_
        assert search.best_estimator_["rbfsampler"].random_weights_.shape[0] == X.shape[1]
    # The same estimator and D: the accuracies are close.
    assert abs(results["ours"] - results["theirs"]) < 0.05, results


def test_the_classes_have_scikit_learns_signatures_and_defaults():
    for name, ours in SWAPPED.items():
        theirs = ORIGINAL[name]
        assert ours.__name__ == name
        a, b = inspect.signature(ours).parameters, inspect.signature(theirs).parameters
        assert [(p.name, p.kind, p.default) for p in a.values()] == [
            (p.name, p.kind, p.default) for p in b.values()
        ], name
        assert ours().get_params() == theirs().get_params(), name
        assert make_pipeline(ours(), LinearSVC()).steps[0][0] == name.lower()


def test_rbf_sampler_is_the_phase_form_of_the_crates_features():
    """RBFSampler is ``RandomFourierFeatures(form="phase")``, the crate's map, bit for bit (any
    D, odd too), and scikit-learn's own transform of its attributes gives its features."""
    X, _ = data()
    for D in (64, 65):
        ours = rfbench.RBFSampler(gamma=0.1, n_components=D, random_state=3).fit(X)
        crate = rfbench.RandomFourierFeatures(D, gamma=0.1, form="phase", random_state=3)
        np.testing.assert_array_equal(ours.transform(X), crate.fit_transform(X))
        theirs = sklearn_maps.RBFSampler(gamma=0.1, n_components=D).fit(X)
        theirs.random_weights_, theirs.random_offset_ = ours.random_weights_, ours.random_offset_
        np.testing.assert_allclose(theirs.transform(X), ours.transform(X), atol=1e-12)
    scale = rfbench.RBFSampler(gamma="scale", random_state=0).fit_transform(X)
    gamma = 1.0 / (X.shape[1] * X.var())
    np.testing.assert_array_equal(scale, rfbench.RBFSampler(gamma=gamma, random_state=0).fit_transform(X))
    sketch = rfbench.PolynomialCountSketch(degree=3, coef0=1.0, n_components=64, random_state=3)
    crate = rfbench.TensorSketch(64, degree=3, coef0=1.0, random_state=3)
    np.testing.assert_array_equal(sketch.fit_transform(X), crate.fit_transform(X))


def test_nystroem_honours_kernel_params():
    """Issue 68: ``kernel_params={"degree": 2}`` was overwritten by the class's own degree=3.
    With every row a landmark, Z Z' is the kernel: scikit-learn's quadratic one."""
    X = data()[0][:60]
    quadratic = polynomial_kernel(X, degree=2)
    for params in ({"degree": 2}, {"degree": 2, "coef0": 1.0}):
        nystroem = rfbench.Nystroem(kernel="poly", kernel_params=params, n_components=60)
        Z = nystroem.set_params(random_state=0).fit_transform(X)
        np.testing.assert_allclose(Z @ Z.T, quadratic, atol=1e-8)
    # A parameter set wins over kernel_params, as in scikit-learn; the crate's kernel then.
    Z = rfbench.Nystroem(
        kernel="poly", degree=2, kernel_params={"degree": 5}, n_components=60, random_state=0
    ).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, quadratic, atol=1e-8)
    theirs = sklearn_maps.Nystroem(kernel="poly", kernel_params={"degree": 2}, n_components=60)
    Z = theirs.fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, quadratic, atol=1e-8)
    # NystroemMap sets degree=3 itself: a kernel_params that says otherwise is refused.
    with pytest.raises(ValueError, match="kernel_params\\['degree'\\] = 2 but degree = 3"):
        rfbench.NystroemMap(kernel="poly", kernel_params={"degree": 2}).fit(X)


def test_scikit_learns_classes_refuse_what_they_cannot_compute():
    X, _ = data()
    with pytest.raises(InvalidParameterError, match="gamma"):
        rfbench.RBFSampler(gamma=0.0).fit(X)
    with pytest.raises(InvalidParameterError, match="coef0"):
        rfbench.PolynomialCountSketch(coef0=-1.0).fit(X)
    with pytest.raises(ValueError, match="takes no gamma, coef0 or degree"):
        rfbench.Nystroem(kernel=gaussian_callable, degree=2).fit(X)
    with pytest.raises(InvalidParameterError, match="kernel"):
        rfbench.Nystroem(kernel="gaussian").fit(X)
    # Where the crate cannot take a parameter, scikit-learn's kernel computes it.
    X = X[:50]
    Z = rfbench.Nystroem(kernel="poly", degree=2.5, coef0=3.0, n_components=50, random_state=0)
    Z = Z.fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, polynomial_kernel(X, degree=2.5, coef0=3.0), atol=1e-8)


def test_scikit_learns_transforms_fed_our_attributes_give_our_features():
    X, _ = data()
    for form in ("phase", "paired"):
        ours = rfbench.RandomFourierFeatures(64, gamma=0.1, form=form, random_state=3).fit(X)
        theirs = sklearn_maps.RBFSampler(gamma=0.1, n_components=64, random_state=0).fit(X)
        theirs.random_weights_, theirs.random_offset_ = ours.random_weights_, ours.random_offset_
        np.testing.assert_allclose(theirs.transform(X), ours.transform(X), atol=1e-12)
    for coef0 in (0.0, 1.5):
        ours = rfbench.TensorSketch(128, degree=3, coef0=coef0, random_state=3).fit(X)
        theirs = sklearn_maps.PolynomialCountSketch(degree=3, coef0=coef0, n_components=128)
        theirs.fit(X)
        assert ours.indexHash_.shape == theirs.indexHash_.shape
        assert set(np.unique(ours.bitHash_)) == {-1, 1}
        theirs.indexHash_, theirs.bitHash_ = ours.indexHash_, ours.bitHash_
        np.testing.assert_allclose(theirs.transform(X), ours.transform(X), atol=1e-9)
    ours = rfbench.Nystroem(kernel="rbf", n_components=40, random_state=3).fit(X)
    np.testing.assert_array_equal(ours.components_, X[ours.component_indices_])
    theirs = sklearn_maps.Nystroem(kernel="rbf", n_components=40, random_state=0).fit(X)
    theirs.components_, theirs.normalization_ = ours.components_, ours.normalization_
    np.testing.assert_allclose(theirs.transform(X), ours.transform(X), atol=1e-10)


def test_attributes_are_absent_before_fit_and_on_maps_without_them():
    assert not hasattr(rfbench.RandomFourierFeatures(), "random_weights_")
    assert not hasattr(rfbench.Nystroem(), "components_")
    assert not hasattr(rfbench.TensorSketch(), "indexHash_")
    X, _ = data()
    assert rfbench.Fastfood(64, random_state=0).fit(X).map_.sklearn_attributes() == {}


def test_scikit_learns_kernel_names_and_gamma_conventions():
    X, _ = data()
    d = X.shape[1]

    def features(estimator):
        return estimator.set_params(random_state=1).fit_transform(X)

    np.testing.assert_array_equal(
        features(rfbench.NystroemMap(30, kernel="rbf")),
        features(rfbench.NystroemMap(30, kernel="gaussian", gamma=1.0 / d)),
    )
    np.testing.assert_array_equal(
        features(rfbench.NystroemMap(30, kernel="poly", degree=2)),
        features(rfbench.NystroemMap(30, kernel="polynomial", degree=2, gamma=1.0 / d)),
    )
    np.testing.assert_array_equal(
        features(rfbench.NystroemMap(30, kernel="laplacian")),
        features(rfbench.NystroemMap(30, kernel="laplacian", gamma=1.0 / d)),
    )
    scale = 1.0 / (d * X.var())
    for cls in (rfbench.RandomFourierFeatures, rfbench.Fastfood, rfbench.PseudoRandomFourierFeatures):
        np.testing.assert_array_equal(
            features(cls(32, gamma="scale")), features(cls(32, gamma=scale))
        )
    np.testing.assert_array_equal(
        features(rfbench.RandomFourierFeatures(32, kernel="rbf", gamma=0.3)),
        features(rfbench.RandomFourierFeatures(32, kernel="gaussian", gamma=0.3)),
    )
    # RBFSampler's rule on sparse input, and for constant X (gamma = 1).
    sparse = sp.random(50, 8, density=0.3, random_state=0, format="csr")
    expected = 1.0 / (8 * sparse.toarray().var())
    np.testing.assert_allclose(
        rfbench.RandomFourierFeatures(16, gamma="scale", random_state=0).fit_transform(sparse),
        rfbench.RandomFourierFeatures(16, gamma=expected, random_state=0).fit_transform(sparse),
        atol=1e-12,
    )
    constant = np.ones((20, 3))
    np.testing.assert_array_equal(
        rfbench.RandomFourierFeatures(16, gamma="scale", random_state=0).fit_transform(constant),
        rfbench.RandomFourierFeatures(16, gamma=1.0, random_state=0).fit_transform(constant),
    )


def test_nystroem_takes_a_negative_coef0_as_scikit_learn_does():
    """scikit-learn's ``polynomial_kernel`` with ``coef0 < 0`` (an indefinite kernel): our
    features are ``K(X, components_) @ normalization_.T`` with scikit-learn's own kernel values,
    so the kernel is read the same way; the sketches, which need ``sqrt(coef0)``, refuse it."""
    X, _ = data()
    ours = rfbench.NystroemMap(30, kernel="poly", degree=2, coef0=-1.0, random_state=0).fit(X)
    K = polynomial_kernel(X, ours.components_, degree=2, gamma=1.0 / X.shape[1], coef0=-1.0)
    np.testing.assert_allclose(ours.transform(X), K @ ours.normalization_.T, atol=1e-10)
    for cls in (rfbench.TensorSketch, rfbench.RandomMaclaurin):
        with pytest.raises(ValueError, match="coef0"):
            cls(coef0=-1.0).fit(X)


def test_a_callable_kernel_gets_the_crates_landmarks_and_features():
    """A callable Gaussian, computed by scikit-learn's ``pairwise_kernels``, against the crate's
    own Gaussian: the same landmarks for the same seed and the same features to rounding."""
    X, _ = data()
    gamma = 0.05
    ours = rfbench.NystroemMap(30, kernel="rbf", gamma=gamma, random_state=4).fit(X)
    callable_ = rfbench.NystroemMap(
        30, kernel=gaussian_callable, kernel_params={"gamma": gamma}, random_state=4
    ).fit(X)
    np.testing.assert_array_equal(callable_.component_indices_, ours.component_indices_)
    np.testing.assert_allclose(callable_.transform(X), ours.transform(X), atol=1e-10)
    # kernel_params with one of the crate's kernels goes the same way (scikit-learn's rbf).
    rbf_params = rfbench.NystroemMap(30, kernel="rbf", kernel_params={"gamma": gamma}, random_state=4)
    np.testing.assert_allclose(rbf_params.fit_transform(X), ours.transform(X), atol=1e-10)


@pytest.mark.parametrize("kernel", ["chi2", "cosine"])
def test_scikit_learns_other_kernels_are_its_kernels(kernel):
    """With every row a landmark the approximation is exact on the training rows: Z Z' is
    scikit-learn's kernel matrix, as it is for scikit-learn's own Nystroem. With fewer, the
    features are ``K(X, components_) @ normalization_.T`` with scikit-learn's kernel values."""
    X = np.abs(data()[0][:80])
    exact = pairwise_kernels(X, metric=kernel)
    Z = rfbench.NystroemMap(80, kernel=kernel, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, exact, atol=1e-9)
    theirs = sklearn_maps.Nystroem(kernel=kernel, n_components=80, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, theirs @ theirs.T, atol=1e-9)
    few = rfbench.NystroemMap(20, kernel=kernel, random_state=0).fit(X)
    K = pairwise_kernels(X, few.components_, metric=kernel)
    np.testing.assert_allclose(few.transform(X), K @ few.normalization_.T, atol=1e-12)
    assert few.transform(X).shape == (80, 20)


def test_kernels_scikit_learn_computes_refuse_what_they_cannot_mean():
    X, _ = data()
    with pytest.raises(ValueError, match="kernel_params, not gamma"):
        rfbench.NystroemMap(10, kernel=gaussian_callable, gamma=0.5).fit(X)
    with pytest.raises(ValueError, match="not the crate's 'gaussian'"):
        rfbench.NystroemMap(10, kernel="gaussian", kernel_params={"gamma": 0.5}).fit(X)
    with pytest.raises(ValueError, match="not the crate's sigma|takes gamma"):
        rfbench.NystroemMap(10, kernel="chi2", sigma=1.0).fit(np.abs(X))
    with pytest.raises(InvalidParameterError, match="kernel"):
        rfbench.NystroemMap(10, kernel="no such kernel").fit(X)
    with pytest.raises(ValueError, match="n x n kernel matrix; got 400 x 12"):
        rfbench.NystroemMap(10, kernel="precomputed").fit(X)
    K = rbf_kernel(X)
    with pytest.raises(ValueError, match="not gamma, sigma or kernel_params"):
        rfbench.NystroemMap(10, kernel="precomputed", gamma=0.5).fit(K)
    with pytest.raises(ValueError, match="features"):
        rfbench.NystroemMap(10, kernel="precomputed").fit(K).transform(X)


def test_a_precomputed_kernel_gives_the_features_of_that_kernel():
    """Fitted on the training kernel and fed rows' kernel against the training rows, Nystroem
    on ``"precomputed"`` is the crate's Nystroem on the kernel itself (same seed, same
    landmarks); with every row a landmark, its ``Z Z'`` is scikit-learn's (which fits
    ``"precomputed"`` only then)."""
    X, _ = data()
    train, new = X[:300], X[300:]
    gamma = 1.0 / X.shape[1]
    direct = rfbench.NystroemMap(40, kernel="rbf", random_state=3).fit(train)
    pre = rfbench.NystroemMap(40, kernel="precomputed", random_state=3).fit(rbf_kernel(train))
    np.testing.assert_array_equal(pre.component_indices_, direct.component_indices_)
    assert pre.components_.shape == (40, 300) and pre.normalization_.shape == (40, 40)
    np.testing.assert_allclose(pre.normalization_, direct.normalization_, atol=1e-8)
    cross = rbf_kernel(new, train, gamma=gamma)
    np.testing.assert_allclose(pre.transform(cross), direct.transform(new), atol=1e-9)
    # Sparse kernel rows give the same features; float32 rows, the same rounded.
    np.testing.assert_array_equal(pre.transform(sp.csr_matrix(cross)), pre.transform(cross))
    assert pre.transform(cross.astype(np.float32)).dtype == np.float32
    small = rbf_kernel(train[:60])
    ours = rfbench.NystroemMap(60, kernel="precomputed", random_state=0).fit_transform(small)
    theirs = sklearn_maps.Nystroem(kernel="precomputed", n_components=60, random_state=0)
    theirs = theirs.fit_transform(small)
    np.testing.assert_allclose(ours @ ours.T, theirs @ theirs.T, atol=1e-9)
    np.testing.assert_allclose(ours @ ours.T, small, atol=1e-9)
