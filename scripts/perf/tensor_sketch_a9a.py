#!/usr/bin/env python3
"""Tensor Sketch on sparse rows (a9a: 32,561 x 123, 14 ones a row) from Python, against
scikit-learn's PolynomialCountSketch, interleaved in one process: issue 45's d = 123 target.

    python3 -m venv v && v/bin/pip install target/wheels/rfbench-*.whl scikit-learn
    v/bin/python scripts/perf/tensor_sketch_a9a.py [--mirror ../shared/datasets/adult] [--rounds 7]

Both sides map (gamma <x, y> + coef0)^4 with gamma = coef0 = 1 to D = 4000 features, fitted once
(untimed) on the same CSR matrix, and each has one untimed warm-up transform; each round times one whole transform on each side, the side
that goes first alternating, and the last result of each side is dropped before the next call
(so both allocate their output afresh). Prints every round and the medians; ratio =
PolynomialCountSketch / ours (above 1: ours is faster).
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.kernel_approximation import PolynomialCountSketch

import rfbench

D, DEGREE = 4000, 4


def timed(transformer, X):
    start = time.perf_counter()
    Z = transformer.transform(X)
    seconds = time.perf_counter() - start
    assert Z.shape == (X.shape[0], D)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "..", "shared", "datasets", "adult")
    parser.add_argument("--mirror", default=os.environ.get("RFBENCH_MIRROR", default))
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    path = os.path.join(args.mirror, "a9a")
    if not os.path.exists(path):
        sys.exit(f"error: no a9a at {path} (--mirror names the folder holding it)")
    X, _ = load_svmlight_file(path, n_features=123)
    X = X.tocsr().astype(np.float64)
    print(
        f"a9a: {X.shape[0]} x {X.shape[1]}, {X.nnz / X.shape[0]:.1f} non-zeros a row; "
        f"D = {D}, degree {DEGREE}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; rfbench threads {rfbench.get_num_threads()}"
    )
    ours = rfbench.TensorSketch(degree=DEGREE, gamma=1.0, coef0=1.0, n_components=D, random_state=0)
    theirs = PolynomialCountSketch(
        degree=DEGREE, gamma=1.0, coef0=1.0, n_components=D, random_state=0
    )
    ours.fit(X)
    theirs.fit(X)
    # One untimed call each first: PolynomialCountSketch's first transform of a process took 30 s
    # against 5 s for the next ones (the allocator mapping its 4 GB of intermediates).
    timed(ours, X)
    timed(theirs, X)
    sides = {"rfbench TensorSketch": ours, "PolynomialCountSketch": theirs}
    times = {name: [] for name in sides}
    for r in range(args.rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for name in order:
            times[name].append(timed(sides[name], X))
        print(f"round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.3f} s" for n in sides))
    medians = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        print(f"{name}: {min(t):.3f}-{max(t):.3f} s, median {medians[name]:.3f} s")
    ratio = medians["PolynomialCountSketch"] / medians["rfbench TensorSketch"]
    print(f"ratio PolynomialCountSketch / ours: {ratio:.2f}x")


if __name__ == "__main__":
    main()
