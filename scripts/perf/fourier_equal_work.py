#!/usr/bin/env python3
"""The Fourier maps against RBFSampler at equal work, in float64 and float32, with the achieved
GFLOP/s of the dense products beside the machine's FMA peak (issue 45).

    cargo build --release -p rfbench-maps --example fma_peak
    PY/bin/python scripts/perf/fourier_equal_work.py [--rounds 7] [--fma-peak target/release/examples/fma_peak]

Equal work: every map in the phase form, ``sqrt(2/D) cos(X W + b)`` with D = 4000 frequencies,
which is what RBFSampler computes (the package's default paired form computes half the
projections for the same D). The matrix is python_vs_sklearn.py's: 10,000 x 780 MNIST-like rows.
Each pair is fitted once (untimed), then timed in rounds alternating which side goes first;
medians; ratio = RBFSampler / ours (above 1: ours is faster).

GFLOP/s counts the product's 2 n d D flops over the whole transform's time, for the maps that
compute that product (RFF, ORF, RBFSampler) and for NumPy's bare ``X @ W`` (its bundled BLAS; the
product alone, no cosine): how close each side's transform is to the product's bound. SORF and
Fastfood replace the product by O(D log d) transforms per row and have no such count. With
--fma-peak, the fma_peak example's measured peak of all cores is printed beside it.

The peer's kernels: the header names the kernels each of scikit-learn's OpenBLAS copies chose. On a
processor OpenBLAS does not know (AMD Zen 5 with OpenBLAS 0.3.31 and older) it falls back to its
Haswell kernels, half the width of the machine's; run with ``OPENBLAS_CORETYPE=SkylakeX`` (any
AVX-512 processor) so that scikit-learn runs its best kernels (docs/performance.md, the Zen 5
rows of "Fourier maps at equal work"). Our Fourier maps use no OpenBLAS.
"""

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler

import rfbench
from python_vs_sklearn import blas_description, mnist_like

D, GAMMA = 4000, 1.0


def ours():
    """(label, unfitted map in the phase form, whether it computes the dense product)."""
    kw = dict(gamma=GAMMA, form="phase", random_state=0)
    return [
        ("RandomFourierFeatures", rfbench.RandomFourierFeatures(D, **kw), True),
        ("OrthogonalRandomFeatures", rfbench.OrthogonalRandomFeatures(D, **kw), True),
        ("StructuredOrthogonalRandomFeatures", rfbench.StructuredOrthogonalRandomFeatures(D, **kw), False),
        ("Fastfood (Hadamard)", rfbench.Fastfood(D, **kw), False),
    ]


def median_time(call, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(a, b, rounds):
    """Medians of a() and b(), alternating which goes first."""
    times = {0: [], 1: []}
    for r in range(rounds):
        for side in (0, 1) if r % 2 == 0 else (1, 0):
            start = time.perf_counter()
            (a, b)[side]()
            times[side].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def fma_peak(binary):
    """{"F64": GFLOP/s, "F32": GFLOP/s} on all cores, from the fma_peak example's output."""
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    peaks = {}
    for line in out.splitlines():
        if "thread(s):" in line:
            precision, rest = line.split(", ", 1)
            peaks[precision] = float(rest.split(": ")[1].split()[0])  # the last line wins: all threads
    return peaks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--fma-peak", metavar="BINARY", help="the fma_peak example, to print the peak")
    args = parser.parse_args()

    x64 = mnist_like(args.rows)
    flops = 2.0 * x64.shape[0] * x64.shape[1] * D
    peaks = fma_peak(args.fma_peak) if args.fma_peak else {}
    print(f"# {args.rows} x {x64.shape[1]} rows, D = {D}, phase form, {args.rounds} interleaved rounds")
    print(f"# scikit-learn's BLAS: {blas_description()}")
    print("| precision | ours | ours (s) | RBFSampler (s) | ratio | ours GFLOP/s | RBFSampler GFLOP/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for precision, dtype in (("F64", np.float64), ("F32", np.float32)):
        x = x64.astype(dtype)
        theirs = RBFSampler(gamma=GAMMA, n_components=D, random_state=0).fit(x)
        for label, map_, dense in ours():
            map_.fit(x)
            a, b = interleaved(lambda: map_.transform(x), lambda: theirs.transform(x), args.rounds)
            rate = f"{flops / a / 1e9:.0f}" if dense else "-"
            print(f"| {precision} | {label} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {rate} | {flops / b / 1e9:.0f} |",
                  flush=True)
        w = theirs.random_weights_.astype(dtype)
        bare = median_time(lambda: x @ w, args.rounds)
        peak = f"; the FMA peak of all cores: {peaks[precision]:.0f} GFLOP/s" if precision in peaks else ""
        print(f"| {precision} | NumPy's bare X @ W: {bare:.3f} s, {flops / bare / 1e9:.0f} GFLOP/s{peak} | | | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
