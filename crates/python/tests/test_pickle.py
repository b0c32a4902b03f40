"""Pickles carry the fitted map's serde form in binary (postcard, each float array one block of
little-endian bytes): as small as scikit-learn's, whose arrays pickle as raw bytes, and far
quicker to load than the JSON pickles written before, which still load and give the same
features."""

import pathlib
import pickle
import time

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler

from conftest import every_estimator
from rfbench import (
    Fastfood,
    Nystroem,
    RandomBinning,
    RandomFourierFeatures,
    TensorSketch,
    _rfbench,
)

DATA = pathlib.Path(__file__).resolve().parent / "data"
# Our load time over scikit-learn's, for the same sizes (about 10 MB of random draws), measured
# in the same run. Issue 44 asks for 2x, which is NOT met: on 2026-11-27 (quiet 2-core machine)
# these loaded in 3.7-4.1 and 5.2-5.6 ms against scikit-learn's 1.1-2.0 ms (2.7-4.1x), since
# each float array is one block of bytes (rfbench_maps' packed module; 8.3x and 8.4x when postcard
# decoded the floats one at a time). What is left: scikit-learn's load is one copy of the
# pickle's bytes into NumPy's buffer; ours is that copy, a second into the map's own arrays and
# the maps' check that every value is finite (an unchecked memcpy instead of the conversion
# measured the same). The bound catches a return to float-by-float decoding or to text (the
# JSON pickles took 640 and 580 ms, over 290x). Not compared: the sketches, whose pickles are a
# few kilobytes of hashes and whose load is dominated by planning their FFTs (TensorSketch(4000)
# about 0.15 ms against PolynomialCountSketch's 0.01 ms).
LOAD_RATIO_BOUND = 6.0


def fastest_load(blob, rounds=9):
    """The fastest of `rounds` loads of a pickle, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        pickle.loads(blob)
        times.append(time.perf_counter() - start)
    return min(times)


def fitted_by_the_crate(estimator):
    """Whether the estimator's map is the extension's (not scikit-learn's kernels, module
    ``rfbench._pairwise``, which pickle as plain Python)."""
    return not (isinstance(estimator, Nystroem) and estimator._pairwise())


@pytest.mark.parametrize(
    "estimator",
    [e for e in every_estimator() if fitted_by_the_crate(e)],
    ids=lambda e: type(e).__name__,
)
def test_the_binary_pickle_round_trips_bit_for_bit(estimator):
    X = np.random.RandomState(0).rand(40, 8)
    fitted = estimator.set_params(random_state=1).fit(X)
    blob = pickle.dumps(fitted)
    loader, (kind, data) = fitted.map_.__reduce__()
    assert loader is _rfbench.load_binary and isinstance(data, bytes)
    copy = pickle.loads(blob)
    a, b = copy.transform(X), fitted.transform(X)
    a, b = (a.toarray(), b.toarray()) if hasattr(a, "toarray") else (a, b)
    np.testing.assert_array_equal(a, b)
    # The same map as the JSON form describes.
    assert copy.map_.to_json() == fitted.map_.to_json()


def test_a_damaged_binary_pickle_is_a_value_error():
    X = np.random.RandomState(0).rand(40, 8)
    _, (kind, data) = RandomFourierFeatures(16, random_state=0).fit(X).map_.__reduce__()
    with pytest.raises(ValueError):
        _rfbench.load_binary(kind, data[: len(data) // 2])
    with pytest.raises(ValueError, match="left over"):
        _rfbench.load_binary(kind, data + b"\0")
    with pytest.raises(ValueError, match="no map type"):
        _rfbench.load_binary("load_nothing", data)


@pytest.mark.parametrize(
    "estimator",
    [e for e in every_estimator() if not fitted_by_the_crate(e)],
    ids=lambda e: str(e.kernel),
)
def test_kernels_scikit_learn_computes_pickle_as_python(estimator):
    X = np.random.RandomState(0).rand(40, 8)
    fitted = estimator.set_params(random_state=1).fit(X)
    copy = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(copy.transform(X), fitted.transform(X))
    np.testing.assert_array_equal(copy.component_indices_, fitted.component_indices_)


def test_json_pickles_of_version_0_1_0_still_load():
    # Written by the JSON-pickling package (commit 88f4edb): the same estimators fitted again on
    # the same rows with the same seeds must give the same features.
    with open(DATA / "json_pickles_0.1.0.pkl", "rb") as f:
        old = pickle.load(f)
    X = np.random.RandomState(0).randn(20, 6)
    fresh = {
        "rff": RandomFourierFeatures(16, random_state=3),
        "fastfood": Fastfood(16, random_state=3),
        "nystroem": Nystroem(8, random_state=3),
        "tensor_sketch": TensorSketch(16, degree=2, random_state=3),
        "random_binning": RandomBinning(4, width=16, random_state=3),
    }
    assert set(old) == set(fresh)
    for name, estimator in fresh.items():
        a, b = old[name].transform(X), estimator.fit(X).transform(X)
        a, b = (a.toarray(), b.toarray()) if hasattr(a, "toarray") else (a, b)
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (
            RandomFourierFeatures(4000, form="phase", random_state=0),
            RBFSampler(n_components=4000, random_state=0),
        ),
        (Nystroem(1000, random_state=0), SkNystroem(n_components=1000, random_state=0)),
    ],
    ids=["rff-rbfsampler", "nystroem"],
)
def test_pickles_load_within_a_small_factor_of_scikit_learns(ours, theirs):
    X = np.random.RandomState(0).rand(2000, 300)
    ours_blob, theirs_blob = pickle.dumps(ours.fit(X)), pickle.dumps(theirs.fit(X))
    # Alternate the sides so that a burst of load elsewhere on the machine hits both.
    ours_time, theirs_time = [], []
    for _ in range(3):
        ours_time.append(fastest_load(ours_blob))
        theirs_time.append(fastest_load(theirs_blob))
    ratio = min(ours_time) / min(theirs_time)
    # The same draws, the same size: 8 bytes a float, as NumPy's.
    assert len(ours_blob) < 1.01 * len(theirs_blob), (len(ours_blob), len(theirs_blob))
    assert ratio < LOAD_RATIO_BOUND, (
        f"{type(ours).__name__} loads in {min(ours_time) * 1e3:.2f} ms, "
        f"{type(theirs).__name__} in {min(theirs_time) * 1e3:.2f} ms: {ratio:.1f}x "
        f"({len(ours_blob)} and {len(theirs_blob)} bytes)"
    )
