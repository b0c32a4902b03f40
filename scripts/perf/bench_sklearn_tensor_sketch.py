#!/usr/bin/env python3
"""Time scikit-learn's PolynomialCountSketch.transform on the matrix the Rust bench measured.

`cargo bench -p rfbench-maps` (crates/maps/benches/polynomial_maps.rs) writes its input to
`<target>/bench-data/mnist_like_10000x780.f64`: raw little-endian float64, row-major, no header,
10,000 rows of d = 780 ("MNIST-like": ~19% non-zero, values in (0, 1], unit-norm rows). This script
fits `PolynomialCountSketch(degree=4, coef0=1, gamma=1, n_components=4000)` on it (outside the
timing), runs one warm-up transform, then times `repeats` transforms and prints their median in
seconds. The kernel is (1 + <x, y>)^4, the same as the Rust bench's Tensor Sketch.

scikit-learn's transform is single-threaded (numpy element-wise loops and scipy.fft with its
default workers=1); its peak memory at this size is about 4 GB (a complex128 n x 4 x D array).

Usage:  python3 scripts/perf/bench_sklearn_tensor_sketch.py [--data PATH] [--repeats 5] [--json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
N_ROWS, DIM = 10_000, 780
DEGREE, COEF0, GAMMA, N_COMPONENTS = 4, 1.0, 1.0, 4000


def require_sklearn():
    """Import numpy and scikit-learn or exit with a message saying what is missing."""
    try:
        import numpy  # noqa: F401
        import sklearn
        from sklearn.kernel_approximation import PolynomialCountSketch  # noqa: F401
    except ImportError as err:
        sys.exit(
            f"error: this benchmark needs numpy and scikit-learn (>= 0.24, for "
            f"PolynomialCountSketch) in {sys.executable}: {err}.\n"
            f"Install them into this interpreter (e.g. `{sys.executable} -m pip install "
            f"scikit-learn`) and rerun."
        )
    return sklearn.__version__


def target_dir():
    """Cargo's target directory, found as criterion finds it: $CARGO_TARGET_DIR (a relative
    one is relative to crates/maps, the bench's working directory), else `cargo metadata`,
    else <repo>/target."""
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        return (REPO / "crates" / "maps" / env).resolve()
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=REPO, capture_output=True, text=True, check=True,
        ).stdout
        return Path(json.loads(out)["target_directory"])
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        return REPO / "target"


def default_data_path():
    return target_dir() / "bench-data" / f"mnist_like_{N_ROWS}x{DIM}.f64"


def load_data(path, n_rows=N_ROWS, dim=DIM):
    import numpy as np

    path = Path(path)
    if not path.exists():
        sys.exit(
            f"error: {path} does not exist. It is written by the Rust bench: run "
            f"`cargo bench -p rfbench-maps` first (same CARGO_TARGET_DIR)."
        )
    expected = n_rows * dim * 8
    if path.stat().st_size != expected:
        sys.exit(f"error: {path} has {path.stat().st_size} bytes, expected {expected} "
                 f"({n_rows} x {dim} float64)")
    return np.fromfile(path, dtype="<f8").reshape(n_rows, dim)


def time_sklearn(x, repeats=5, seed=0):
    """Median wall time (s) of `repeats` transforms after one warm-up, and all the times."""
    from sklearn.kernel_approximation import PolynomialCountSketch

    ts = PolynomialCountSketch(
        degree=DEGREE, coef0=COEF0, gamma=GAMMA, n_components=N_COMPONENTS, random_state=seed
    ).fit(x)
    z = ts.transform(x)  # warm-up (page faults, FFT plan cache)
    assert z.shape == (x.shape[0], N_COMPONENTS)
    del z
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        z = ts.transform(x)
        times.append(time.perf_counter() - t0)
        del z  # free outside the timed region
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None,
                        help="raw f64 file written by the Rust bench (default: %(default)s → "
                             "<target>/bench-data/...)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    version = require_sklearn()
    path = args.data or default_data_path()
    x = load_data(path)
    median, times = time_sklearn(x, args.repeats)
    if args.json:
        print(json.dumps({"sklearn_version": version, "data": str(path), "median_s": median,
                          "times_s": times}))
    else:
        print(f"scikit-learn {version} PolynomialCountSketch(degree={DEGREE}, coef0={COEF0}, "
              f"gamma={GAMMA}, n_components={N_COMPONENTS}).transform on {path}")
        print(f"times (s): {' '.join(f'{t:.3f}' for t in times)}")
        print(f"median: {median:.3f} s")


if __name__ == "__main__":
    main()
