#!/usr/bin/env python3
"""Transform time of every map of the Python package rfbench against scikit-learn's nearest
equivalent, on the same matrix, in the same process, interleaved.

    python3 -m venv v && v/bin/pip install ./crates/python scikit-learn
    v/bin/python scripts/perf/python_vs_sklearn.py [--rounds 7] [--rows 10000] [--check]

The matrix: MNIST-like rows (d = 780, about 19 % non-zero, values in (0, 1], unit norm; numpy
RandomState 780), float64 unless a line says float32. Each pair is fitted once (untimed); then in
every round both sides transform the whole matrix, the side that goes first alternating from
round to round, and the medians over rounds are compared: ratio = scikit-learn / rfbench (above 1:
ours is faster). Nystroem lines time fit + transform on both sides.

Random Fourier features appear twice: in RBFSampler's form (phase, ``sqrt(2/D) cos(Wx + b)``:
the same computation) and in the package's default form (``auto``: paired for an even D, D/2
frequencies giving ``[cos, sin]``, half the projections and a lower Gram error at equal D).
The other Fourier-type maps use their default form. Random binning has no scikit-learn
counterpart and is left out.

--check exits 1 unless the issue's targets hold: Tensor Sketch (D = 4000, p = 4) at least 4x
PolynomialCountSketch, and random Fourier features (D = 4000, the default form) at least 2x
RBFSampler.
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import PolynomialCountSketch, RBFSampler

import rfbench

D, GAMMA, DEGREE = 4000, 1.0, 4
TARGETS = {"TensorSketch p=4": 4.0, "RandomFourierFeatures (default: paired)": 2.0}


def mnist_like(n, d=780, density=0.19, seed=780):
    rng = np.random.RandomState(seed)
    x = np.where(rng.random_sample((n, d)) < density, 1.0 - rng.random_sample((n, d)), 0.0)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def pairs():
    """(label, ours, theirs, what is timed): both estimators unfitted."""
    sk_rbf = lambda: RBFSampler(gamma=GAMMA, n_components=D, random_state=0)  # noqa: E731
    sk_poly = lambda: PolynomialCountSketch(degree=DEGREE, n_components=D, random_state=0)  # noqa: E731
    return [
        ("TensorSketch p=4", rfbench.TensorSketch(D, degree=DEGREE, random_state=0), sk_poly(), "transform"),
        ("RandomMaclaurin p=4", rfbench.RandomMaclaurin(D, degree=DEGREE, random_state=0), sk_poly(), "transform"),
        ("RandomFourierFeatures (phase)", rfbench.RandomFourierFeatures(D, gamma=GAMMA, form="phase", random_state=0), sk_rbf(), "transform"),
        ("RandomFourierFeatures (default: paired)", rfbench.RandomFourierFeatures(D, gamma=GAMMA, random_state=0), sk_rbf(), "transform"),
        ("RandomFourierFeatures (phase), float32", rfbench.RandomFourierFeatures(D, gamma=GAMMA, form="phase", random_state=0), sk_rbf(), "transform32"),
        ("RandomFourierFeatures (default: paired), float32", rfbench.RandomFourierFeatures(D, gamma=GAMMA, random_state=0), sk_rbf(), "transform32"),
        ("OrthogonalRandomFeatures", rfbench.OrthogonalRandomFeatures(D, gamma=GAMMA, random_state=0), sk_rbf(), "transform"),
        ("StructuredOrthogonalRandomFeatures", rfbench.StructuredOrthogonalRandomFeatures(D, gamma=GAMMA, random_state=0), sk_rbf(), "transform"),
        ("Fastfood (Hadamard)", rfbench.Fastfood(D, gamma=GAMMA, random_state=0), sk_rbf(), "transform"),
        ("Fastfood (FFT)", rfbench.Fastfood(D, gamma=GAMMA, method="fft", random_state=0), sk_rbf(), "transform"),
        ("PseudoRandomFourierFeatures", rfbench.PseudoRandomFourierFeatures(D, gamma=GAMMA, max_iterations=0, random_state=0), sk_rbf(), "transform"),
        ("Nystroem m=1000", rfbench.Nystroem(gamma=GAMMA, n_components=1000, random_state=0), SkNystroem(gamma=GAMMA, n_components=1000, random_state=0), "fit+transform"),
    ]


def timed(estimator, what, x, x32):
    start = time.perf_counter()
    if what == "fit+transform":
        estimator.fit(x).transform(x)
    else:
        estimator.transform(x32 if what == "transform32" else x)
    return time.perf_counter() - start


def blas_description():
    """The BLAS libraries scikit-learn's process has loaded, their kernels and threads; with a
    warning appended when OpenBLAS runs AVX2 kernels on an AVX-512 processor (it does not know
    every processor: Zen 5 with 0.3.31 and older), which holds the peer to half its width."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl missing)"
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    text = "; ".join(
        f"{i['internal_api']} {i.get('version')} ({i.get('architecture')}, {i['num_threads']} threads)"
        for i in blas
    )
    narrow = {"Haswell", "Zen", "SandyBridge"}
    if processor_has_avx512() and any(i.get("architecture") in narrow for i in blas):
        text += ("\n# WARNING: this processor has AVX-512 but scikit-learn's OpenBLAS runs narrower "
                 "kernels; rerun with OPENBLAS_CORETYPE=SkylakeX to compare against its best")
    return text


def processor_has_avx512():
    """Whether /proc/cpuinfo lists avx512f (False where there is no such file)."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--check", action="store_true", help="exit 1 unless the targets hold")
    args = parser.parse_args()

    x = mnist_like(args.rows)
    x32 = x.astype(np.float32)
    print(f"# {args.rows} x {x.shape[1]} MNIST-like rows, D = {D}, {args.rounds} interleaved rounds")
    print(f"# machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"rfbench {rfbench.__version__} (Rust: gemm-crate kernels and rayon over all cores); "
          f"scikit-learn's BLAS: {blas_description()}")
    print("| map | ours (s) | scikit-learn's nearest | theirs (s) | ratio |")
    print("|---|---:|---|---:|---:|")
    failed = []
    for label, ours, theirs, what in pairs():
        fit_rows = x[:1000] if isinstance(ours, rfbench.PseudoRandomFourierFeatures) else x
        if what != "fit+transform":
            ours.fit(fit_rows)
            # scikit-learn keeps float32 when it was fitted on float32 (its weights' dtype).
            theirs.fit(x32 if what == "transform32" else x)
        times = {"ours": [], "theirs": []}
        for r in range(args.rounds):
            order = [("ours", ours), ("theirs", theirs)]
            for side, estimator in order if r % 2 == 0 else order[::-1]:
                times[side].append(timed(estimator, what, x, x32))
        a, b = statistics.median(times["ours"]), statistics.median(times["theirs"])
        ratio = b / a
        print(f"| {label} ({what}) | {a:.3f} | {type(theirs).__name__} | {b:.3f} | {ratio:.2f}x |",
              flush=True)
        if label in TARGETS and ratio < TARGETS[label]:
            failed.append(f"{label}: {ratio:.2f}x < {TARGETS[label]}x")
    if args.check and failed:
        print("targets missed: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
