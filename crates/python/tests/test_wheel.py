"""The installed wheel (`just wheel`) carries its own OpenBLAS: with RFBENCH_WHEEL_TEST=1 (which
`just test-python` sets when it runs these tests against the wheel in a clean virtual
environment, with LD_LIBRARY_PATH empty and no Rust toolchain on PATH), the extension must be the
installed one and the OpenBLAS the process maps must be the copy in the wheel's ``rfbench.libs``
folder, not the system's. From a source install (`pip install ./crates/python`), which links the
system OpenBLAS, these tests are skipped."""

import os
import pathlib
import shutil
import sys

import numpy as np
import pytest

from rfbench import NystroemMap, OrthogonalRandomFeatures, _rfbench

pytestmark = pytest.mark.skipif(
    os.environ.get("RFBENCH_WHEEL_TEST") != "1",
    reason="tests of the installed wheel: set RFBENCH_WHEEL_TEST=1 (just test-python does)",
)

EXTENSION = pathlib.Path(_rfbench.__file__).resolve()
# auditwheel's layout: the grafted libraries go to a folder named after the distribution beside
# the package, with the extension's RPATH pointing there.
WHEEL_LIBS = EXTENSION.parent.parent / "rfbench.libs"


def mapped_files():
    """The files the process has mapped (the shared objects among them), from /proc/self/maps."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5].startswith("/"):
                paths.add(pathlib.Path(fields[5].strip()))
    return paths


def test_the_extension_is_the_installed_wheel_not_the_source_tree():
    assert EXTENSION.is_relative_to(pathlib.Path(sys.prefix).resolve()), EXTENSION
    assert WHEEL_LIBS.is_dir(), f"no {WHEEL_LIBS}: the wheel was not repaired"


def test_no_rust_toolchain_and_no_library_path():
    # What `just test-python` promises about this environment, checked from inside it.
    assert shutil.which("cargo") is None, shutil.which("cargo")
    assert shutil.which("rustc") is None, shutil.which("rustc")
    assert os.environ.get("LD_LIBRARY_PATH", "") == ""


def test_the_openblas_loaded_is_the_wheels_own():
    # Work that goes through LAPACK (Nystroem's eigendecomposition, the orthogonal features' QR),
    # so the library is not only mapped but used.
    X = np.random.RandomState(0).randn(60, 8)
    assert np.isfinite(NystroemMap(n_components=20, random_state=0).fit_transform(X)).all()
    assert np.isfinite(OrthogonalRandomFeatures(32, random_state=0).fit_transform(X)).all()

    openblas = sorted(p for p in mapped_files() if p.name.startswith("libopenblas"))
    ours = [p for p in openblas if p.parent.resolve() == WHEEL_LIBS.resolve()]
    assert ours, f"no libopenblas from {WHEEL_LIBS} among the mapped files: {openblas}"
    # NumPy and SciPy map their own bundled copies from their *.libs folders; none may come from
    # the system's library directories.
    system = [p for p in openblas if str(p).startswith(("/usr/lib", "/usr/local/lib", "/lib"))]
    assert not system, f"the system's OpenBLAS is mapped: {system}"
