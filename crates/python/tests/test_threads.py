"""Thread control: ``n_jobs`` on every class, ``rfbench.set_num_threads``, and threadpoolctl's
``threadpool_limits`` reaching the extension. The features never depend on the thread count."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import Parallel, cpu_count, delayed
from threadpoolctl import threadpool_info, threadpool_limits

import rfbench
from conftest import assert_covers_the_registry, every_estimator

X = np.random.RandomState(0).randn(300, 12)


def test_every_class_takes_n_jobs():
    estimators = every_estimator()
    assert_covers_the_registry(estimators, "conftest.every_estimator")
    for estimator in estimators:
        assert estimator.get_params()["n_jobs"] is None, type(estimator).__name__


@pytest.mark.parametrize("estimator", every_estimator(), ids=lambda e: repr(e)[:50])
def test_one_and_two_threads_give_the_same_features(estimator):
    def features(n_jobs):
        fitted = estimator.set_params(random_state=0, n_jobs=n_jobs).fit(X)
        Z = fitted.transform(X)
        return Z.toarray() if sp.issparse(Z) else Z

    np.testing.assert_array_equal(features(1), features(2))
    np.testing.assert_array_equal(features(1), features(-1))


def test_n_jobs_zero_is_refused():
    with pytest.raises(ValueError, match="n_jobs"):
        rfbench.RandomFourierFeatures(16, n_jobs=0).fit(X)


def test_set_num_threads_sets_the_default_and_returns_the_previous_one():
    before = rfbench.set_num_threads(1)
    try:
        assert rfbench.get_num_threads() == 1
        assert rfbench.set_num_threads(3) == 1
        assert rfbench.get_num_threads() == 3
    finally:
        rfbench.set_num_threads(before)
    with pytest.raises(ValueError):
        rfbench.set_num_threads(-1)


def test_threadpool_limits_reaches_the_extension():
    entries = [i for i in threadpool_info() if i["user_api"] == "rfbench"]
    assert len(entries) == 1 and entries[0]["version"] == rfbench.__version__
    unlimited = rfbench.get_num_threads()
    with threadpool_limits(1):
        assert rfbench.get_num_threads() == 1
        limited = rfbench.RandomFourierFeatures(64, random_state=0).fit_transform(X)
    assert rfbench.get_num_threads() == unlimited
    with threadpool_limits(limits=1, user_api="rfbench"):
        assert rfbench.get_num_threads() == 1
    np.testing.assert_array_equal(
        limited, rfbench.RandomFourierFeatures(64, random_state=0).fit_transform(X)
    )


@pytest.mark.skipif(
    bool(os.environ.get("RAYON_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")),
    reason="the parent's own setting would reach the workers",
)
def test_joblibs_process_workers_take_their_share_of_the_cores():
    """scikit-learn's ``n_jobs`` runs loky processes, which threadpoolctl's limits in the parent
    do not reach; joblib sets ``OMP_NUM_THREADS`` in each to ``cpu_count // n_jobs``, and the
    extension's default reads it, so a grid search does not start a thread per core per worker."""
    counts = Parallel(n_jobs=2)(delayed(rfbench.get_num_threads)() for _ in range(4))
    assert counts == [max(1, cpu_count() // 2)] * 4
