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


def _live_threads():
    return len(os.listdir("/proc/self/task"))


def _settled_thread_count(at_most):
    """The process's thread count once exiting pool threads are gone: a dropped rayon pool's
    workers exit on their own, shortly after the drop, so poll (the bound, not a duration, is
    what the test checks)."""
    import time

    for _ in range(200):
        count = _live_threads()
        if count <= at_most:
            return count
        time.sleep(0.025)
    return _live_threads()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_distinct_thread_counts_do_not_keep_their_pools():
    """Each count asked for once used to keep its pool (and its threads) for the process's life:
    counts 1..8 left 36 threads. Now at most one idle pool is kept, so the process holds at most
    the largest count's threads more than before."""
    model = rfbench.RandomFourierFeatures(16, random_state=0)
    model.set_params(n_jobs=1).fit_transform(X)
    baseline = _live_threads()
    for n in range(1, 9):
        model.set_params(n_jobs=n).fit_transform(X)
    before = rfbench.set_num_threads(5)
    try:
        rfbench.RandomFourierFeatures(16, random_state=0).fit_transform(X)
    finally:
        rfbench.set_num_threads(before)
    assert _settled_thread_count(baseline + 8) <= baseline + 8


def test_thread_counts_above_the_cap_are_refused_before_any_thread_starts():
    """4096 threads took 26 s to start and 2**40 hung: counts above the cap are a ValueError
    that names the cap, raised before a pool is built (so this test starts no thread)."""
    cap = rfbench._threads.max_num_threads()
    assert cap >= 64
    threads = _live_threads()
    for n in (cap + 1, 2**40):
        with pytest.raises(ValueError, match=f"at most {cap}"):
            rfbench.set_num_threads(n)
        with pytest.raises(ValueError, match=f"at most {cap}"):
            rfbench.RandomFourierFeatures(16, n_jobs=n).fit(X)
    with pytest.raises(ValueError, match=f"at most {cap}"):
        rfbench.set_num_threads(2**70)
    assert rfbench.get_num_threads() <= cap
    assert _live_threads() <= threads
    # The cap itself is accepted (set only: nothing is built until a call runs).
    before = rfbench.set_num_threads(cap)
    assert rfbench.set_num_threads(before) == cap


def test_an_environment_count_above_the_cap_is_clamped():
    """``OMP_NUM_THREADS=100000`` is not an argument to refuse, but it must not start 100,000
    threads: the default is capped (checked in a child process, whose environment it is)."""
    import subprocess
    import sys

    env = dict(os.environ, OMP_NUM_THREADS="100000")
    env.pop("RAYON_NUM_THREADS", None)
    code = "import rfbench; print(rfbench.get_num_threads(), rfbench._threads.max_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got, cap = out.stdout.split()
    assert got == cap
