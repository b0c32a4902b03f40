"""The package's own conventions: typed errors as ValueError with the library's message, sparse
input, seeds, float32, the GIL released during transforms."""

import pickle
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

from rfbench import (
    Fastfood,
    NystroemMap,
    RandomBinning,
    RandomFourierFeatures,
    RandomMaclaurin,
    StructuredOrthogonalRandomFeatures,
    TensorSketch,
    _rfbench,
)

from conftest import every_estimator

X = np.random.RandomState(0).randn(50, 6)


def test_library_errors_are_value_errors_with_the_librarys_message():
    with pytest.raises(ValueError, match="paired .* form needs an even n_components"):
        RandomFourierFeatures(7, form="paired").fit(X)
    with pytest.raises(ValueError, match="(?i)laplacian"):
        StructuredOrthogonalRandomFeatures(kernel="laplacian").fit(X)
    with pytest.raises(ValueError, match="matern kernel: nu = 1 is out of range"):
        RandomFourierFeatures(kernel="matern", nu=1.0).fit(X)
    with pytest.raises(ValueError, match="gaussian kernel: sigma = 0 is out of range"):
        _rfbench.Kernel.gaussian(0.0)


def test_parameter_errors_are_value_errors():
    with pytest.raises(ValueError, match="gamma or sigma, not both"):
        RandomFourierFeatures(gamma=1.0, sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="n_components"):
        TensorSketch(n_components=0).fit(X)
    with pytest.raises(ValueError, match="degree"):
        TensorSketch(degree=-1).fit(X)
    with pytest.raises(ValueError, match="random_state"):
        TensorSketch(random_state=-3).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        TensorSketch().fit(X).transform(np.full((2, 6), np.nan))
    with pytest.raises(ValueError, match="X has 5 features"):
        TensorSketch().fit(X).transform(X[:, :5])


def test_sparse_input_gives_the_dense_features_and_leaves_the_callers_matrix_alone():
    dense = X.copy()
    dense[np.abs(dense) < 0.7] = 0.0
    csr = sp.csr_matrix(dense)
    # Unsorted indices with a duplicate: not canonical; the map must see the same rows.
    coo = sp.coo_matrix(dense)
    rows = np.concatenate([coo.row, [0]])
    cols = np.concatenate([coo.col, [0]])
    vals = np.concatenate([coo.data, [0.0]])
    messy = sp.csr_matrix((vals, (rows, cols)), shape=dense.shape)
    messy.indices = messy.indices.copy()
    before = (messy.data.copy(), messy.indices.copy(), messy.indptr.copy())
    for estimator in [TensorSketch(64), RandomFourierFeatures(64), Fastfood(64), NystroemMap(20)]:
        estimator.set_params(random_state=1).fit(dense)
        expected = estimator.transform(dense)
        np.testing.assert_allclose(estimator.transform(csr), expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(estimator.transform(messy), expected, rtol=1e-12, atol=1e-12)
        for part, saved in zip((messy.data, messy.indices, messy.indptr), before):
            np.testing.assert_array_equal(part, saved)


def test_random_binning_gives_sparse_features_with_one_entry_per_grid():
    Z = RandomBinning(n_grids=8, width=32, random_state=0).fit_transform(X)
    assert sp.issparse(Z) and Z.shape == (50, 8 * 32)
    np.testing.assert_array_equal(np.diff(Z.indptr), 8)
    np.testing.assert_allclose(Z.data, 1 / np.sqrt(8))


def test_seeds():
    a = TensorSketch(32, random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, TensorSketch(32, random_state=5).fit_transform(X))
    assert not np.array_equal(a, TensorSketch(32, random_state=6).fit_transform(X))
    # A RandomState draws the seed: the same state gives the same features.
    b = TensorSketch(32, random_state=np.random.RandomState(1)).fit_transform(X)
    c = TensorSketch(32, random_state=np.random.RandomState(1)).fit_transform(X)
    np.testing.assert_array_equal(b, c)
    # None: a fresh draw each fit.
    estimator = TensorSketch(32)
    assert not np.array_equal(estimator.fit_transform(X), estimator.fit_transform(X))


def test_float32_in_float32_out():
    X32 = X.astype(np.float32)
    for estimator in [RandomFourierFeatures(64), TensorSketch(64), NystroemMap(20)]:
        estimator.set_params(random_state=0).fit(X)
        Z32, Z64 = estimator.transform(X32), estimator.transform(X32.astype(np.float64))
        assert Z32.dtype == np.float32
        np.testing.assert_allclose(Z32, Z64, rtol=0, atol=1e-5)
    assert RandomFourierFeatures().fit(X).map_.native_float32
    assert not TensorSketch().fit(X).map_.native_float32


def test_float32_without_a_single_precision_path_is_the_double_features_rounded():
    # 150 rows: three of the extension's 64-row blocks, the last one short.
    X64 = np.random.RandomState(1).rand(150, 6)
    X32 = X64.astype(np.float32)
    checked = 0
    for estimator in every_estimator():
        estimator.set_params(random_state=0).fit(X64)
        if estimator.map_.sparse_output or estimator.map_.native_float32:
            continue
        Z32 = estimator.transform(X32)
        assert Z32.dtype == np.float32, estimator
        np.testing.assert_array_equal(Z32, estimator.transform(X32.astype(np.float64)).astype(np.float32))
        checked += 1
    assert checked >= 10


def test_form_auto_is_paired_for_an_even_d_and_phase_for_an_odd_one():
    for D, form in ((64, "paired"), (63, "phase")):
        auto = RandomFourierFeatures(D, random_state=2).fit_transform(X)
        explicit = RandomFourierFeatures(D, form=form, random_state=2).fit_transform(X)
        np.testing.assert_array_equal(auto, explicit)


def test_h01_adds_the_exact_low_degree_terms():
    Z = RandomMaclaurin(40, h01=True, random_state=0).fit_transform(X)
    assert Z.shape == (50, 40 + 1 + X.shape[1])
    names = RandomMaclaurin(40, h01=True, random_state=0).fit(X).get_feature_names_out()
    assert len(names) == Z.shape[1] and names[0] == "randommaclaurin0"


def test_a_fitted_map_survives_pickling_with_its_draws():
    estimator = Fastfood(64, random_state=3).fit(X)
    copy = pickle.loads(pickle.dumps(estimator))
    np.testing.assert_array_equal(copy.transform(X), estimator.transform(X))
    assert repr(copy.map_) == repr(estimator.map_)
    with pytest.raises(ValueError):
        _rfbench.load_fastfood('{"not": "a map"}')


def test_transforms_release_the_gil():
    big = np.random.RandomState(1).randn(20000, 256)
    estimator = RandomFourierFeatures(2048, random_state=0).fit(big)
    done = threading.Event()
    took = []

    def work():
        start = time.perf_counter()
        estimator.transform(big)
        took.append(time.perf_counter() - start)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    # With the GIL held for the whole transform this thread could not run while it lasted: about
    # one tick per millisecond of it shows it ran throughout (a quarter of that allows for sleeps
    # that overshoot on a loaded machine).
    assert took[0] > 0.05
    assert ticks > took[0] * 1000 / 4
