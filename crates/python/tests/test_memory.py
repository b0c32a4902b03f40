"""Never an abort: a request the memory cannot hold is a Python exception (``MemoryError``, or
``ValueError`` for sizes past the registry's ranges or an address), raised before the Rust side
allocates, for every map the registry has; and features that overflow are a ``ValueError``."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import REGISTRY_CLASSES, every_estimator
from rfbench import NystroemMap, RandomFourierFeatures, RandomMaclaurin, TensorSketch, _memory

CLASSES = sorted({cls for cls, _ in REGISTRY_CLASSES.values()}, key=lambda cls: cls.__name__)
# Enough rows that Nystroem's landmarks are not capped at a handful (1.6 MB).
X = np.random.RandomState(0).randn(100_000, 2)


def size_parameter(cls):
    """The registry parameter that sets a class's size: D (n_components) or random binning's
    number of grids."""
    names = [name for name in cls._registry_params if name in ("n_components", "n_grids")]
    assert len(names) == 1, (cls, names)
    return names[0]


def huge(cls, value, selects):
    return cls(**{size_parameter(cls): value, **selects})


@pytest.mark.parametrize("name", sorted(REGISTRY_CLASSES))
def test_a_size_past_the_registrys_range_is_a_value_error(name):
    cls, selects = REGISTRY_CLASSES[name]
    with pytest.raises(ValueError, match=size_parameter(cls)):
        huge(cls, 10**12, selects).fit(X[:10])


@pytest.mark.parametrize("name", sorted(REGISTRY_CLASSES))
def test_the_largest_size_in_range_is_a_memory_error_before_any_allocation(name, monkeypatch):
    """2^31 features or grids on 2 input columns: tens of GiB of state or working buffers for
    every map (Nystroem: 100,000 landmarks, an 80 GB kernel matrix). With 1 GiB said to be
    available the refusal cannot depend on this machine's memory; the same call with the real
    figure (22 GiB here) must refuse too, or the process would abort."""
    cls, selects = REGISTRY_CLASSES[name]
    monkeypatch.setattr(_memory, "available_bytes", lambda: 2**30)
    with pytest.raises(MemoryError, match="GiB"):
        huge(cls, 2**31, selects).fit(X)
    monkeypatch.undo()
    if _memory.available_bytes() is not None and _memory.available_bytes() < 2**36:
        with pytest.raises(MemoryError):
            huge(cls, 2**31, selects).fit(X)


def test_the_issues_requests_raise():
    X_small = X[:50]
    with pytest.raises(ValueError):
        RandomFourierFeatures(10**12).fit(X_small)
    with pytest.raises(ValueError, match="degree"):
        TensorSketch(64, degree=10**6).fit(X_small)


def test_a_transform_whose_features_would_not_fit_is_refused(monkeypatch):
    estimator = RandomFourierFeatures(100_000, form="phase", random_state=0).fit(X[:10])
    # 100,000 rows x 100,000 features: 80 GB, refused on this machine (22 GiB) and, with 1 GiB
    # said to be available, on any.
    if _memory.available_bytes() is not None and _memory.available_bytes() < 2**36:
        with pytest.raises(MemoryError, match="transform"):
            estimator.transform(X)
    monkeypatch.setattr(_memory, "available_bytes", lambda: 2**30)
    with pytest.raises(MemoryError, match="transform"):
        estimator.transform(X)
    monkeypatch.setattr(_memory, "available_bytes", lambda: 2**20)
    with pytest.raises(MemoryError, match="transform"):
        NystroemMap(50, random_state=0).fit(X[:100]).transform(X)


def test_a_byte_count_past_an_address_is_a_value_error():
    with pytest.raises(ValueError, match="address"):
        _memory.check("Map", "fit", 2**70)
    _memory.check("Map", "fit", 1)


def test_every_estimator_fits_and_transforms_under_its_estimate():
    """The checks refuse nothing ordinary: every configuration of the package's own list."""
    rows = np.random.RandomState(1).randn(60, 5)
    for estimator in every_estimator():
        estimator.set_params(random_state=0).fit(rows).transform(rows)


@pytest.mark.parametrize("cls", [TensorSketch, RandomMaclaurin, NystroemMap])
def test_degrees_whose_features_overflow_are_a_value_error(cls):
    """``|x|^degree`` past the largest double: degree 60 (Random Maclaurin's largest) on rows of
    norm 1e6 would give infinite or NaN features (Nystroem: a failed eigendecomposition); the fit
    refuses them naming the degree, and so does a transform of such rows after a fit on small
    ones."""
    small = np.random.RandomState(2).randn(20, 4)
    big = small * 1e6
    kwargs = {"kernel": "polynomial"} if cls is NystroemMap else {}
    with pytest.raises(ValueError, match="degree=60 overflows"):
        cls(8, degree=60, random_state=0, **kwargs).fit(big)
    fitted = cls(8, degree=60, random_state=0, **kwargs).fit(small)
    assert np.isfinite(fitted.transform(small)).all()
    with pytest.raises(ValueError, match="degree=60 overflows"):
        fitted.transform(big)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_non_finite_feature_is_found_wherever_it_is(dtype):
    """The overflow check after a polynomial map's transform (the extension's parallel scan, in
    place of NumPy's boolean copy) finds one NaN or infinity anywhere: first, last, inside a later
    thread's share, in C, Fortran and strided layouts, on 1 and 2 threads; finite features with
    the extremes and signed zeros pass."""
    from rfbench import _rfbench
    from rfbench._base import _check_finite

    all_finite = {np.float64: _rfbench.all_finite_f64, np.float32: _rfbench.all_finite_f32}[dtype]
    rows, cols = 300, 1001  # 300,300 values: several of the scan's 65,536-value chunks
    finite = np.random.RandomState(3).randn(rows, cols).astype(dtype)
    finite[0, :3] = [np.finfo(dtype).max, -0.0, np.finfo(dtype).tiny / 2]
    fitted = TensorSketch(8, random_state=0).fit(np.ones((5, 4)))
    for layout in (lambda z: z, np.asfortranarray, lambda z: z[::2, 1::3]):
        assert all_finite(layout(finite), 1) and all_finite(layout(finite), 2)
        _check_finite(fitted, layout(finite), 2)
    for at in [(0, 0), (0, 1000), (131, 7), (298, 999), (299, 1000)]:
        for bad in [np.nan, np.inf, -np.inf]:
            z = finite.copy()
            z[at] = bad
            for layout in (lambda z: z, np.asfortranarray):
                assert not all_finite(layout(z), 1) and not all_finite(layout(z), 2), (at, bad)
            assert not all_finite(z[at[0] :: 2], 2), (at, bad)
            with pytest.raises(ValueError, match="non-finite features"):
                _check_finite(fitted, z, 0)


# Run under an address-space limit of 1 GiB more than the interpreter already maps: an RFF fit
# (about 3 GiB: 1000 x 200,000 frequencies) and a Tensor Sketch transform (1.5 GiB of features)
# must raise MemoryError, as scikit-learn's would, where the Rust allocation aborted the process.
_ADDRESS_SPACE_PROBE = """
import resource
import subprocess
import sys

import numpy as np
from rfbench import RandomFourierFeatures, TensorSketch

def vm_size():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))

limit = vm_size() + 2**30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
X = np.random.RandomState(0).randn(2000, 1000)
calls = {
    "fit": lambda: RandomFourierFeatures(200_000, form="phase", random_state=0).fit(X[:5]),
    "transform": lambda: TensorSketch(100_000, random_state=0).fit(X[:5, :10]).transform(X[:, :10]),
}
for name, call in calls.items():
    try:
        call()
        print(name, "allocated")
    except MemoryError as error:
        print(name, "MemoryError:", error)
"""


def test_an_address_space_limit_is_a_memory_error_not_an_abort():
    run = subprocess.run(
        [sys.executable, "-c", _ADDRESS_SPACE_PROBE], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    lines = run.stdout.splitlines()
    assert len(lines) == 2, run.stdout
    for line, what in zip(lines, ("fit", "transform")):
        assert line.startswith(f"{what} MemoryError:") and "RLIMIT_AS" in line, line


def test_the_limit_is_the_least_of_memory_address_space_and_cgroup(monkeypatch):
    monkeypatch.setattr(_memory, "available_bytes", lambda: 8 * 2**30)
    monkeypatch.setattr(_memory, "address_space_bytes", lambda: 3 * 2**30)
    monkeypatch.setattr(_memory, "cgroup_bytes", lambda: 5 * 2**30)
    assert _memory.limit_bytes()[0] == 3 * 2**30
    monkeypatch.setattr(_memory, "cgroup_bytes", lambda: 2**30)
    with pytest.raises(MemoryError, match="cgroup"):
        _memory.check("X", "fit", 2 * 2**30)
    for source in ("available_bytes", "address_space_bytes", "cgroup_bytes"):
        monkeypatch.setattr(_memory, source, lambda: None)
    assert _memory.limit_bytes() == (None, None)
    _memory.check("X", "fit", 2**50)


def test_a_cgroup_limit_is_read_from_its_files(tmp_path, monkeypatch):
    (tmp_path / "memory.max").write_text("4294967296\n")
    (tmp_path / "memory.current").write_text(str(3 * 2**30) + "\n")
    (tmp_path / "memory.stat").write_text("anon 1\ninactive_file 536870912\n")
    monkeypatch.setattr(_memory, "_cgroup_paths", lambda: [(2, str(tmp_path))])
    assert _memory.cgroup_bytes() == 2**30 + 2**29
    (tmp_path / "memory.max").write_text("max\n")
    assert _memory.cgroup_bytes() is None
