#!/usr/bin/env python3
"""Exact kernel ridge with lambda by 5-fold cross-validation over 21 candidates (2^-10..2^10),
ours against scikit-learn's GridSearchCV(KernelRidge), on the same rows (Insurance's shape:
5,822 training and 4,000 test rows, d = 85, Gaussian kernel), the same folds and the same
candidates, interleaved: scikit-learn, ours, scikit-learn, ours, ...

    cargo build --release -p rfbench-learners --example kernel_ridge_vs_sklearn
    python3 scripts/perf/kernel_ridge_cv_sklearn.py [DIR] [ROUNDS]

The rows and folds are written by the Rust example into DIR (default target/kernel-ridge-cv) on
its first run. Each side's time covers the cross-validation and the final fit on all training
rows (scikit-learn: GridSearchCV.fit with refit=True; ours: fit_cross_validated). Prints each
round, the chosen lambda and test RMSE of both, and the ratio of the medians.
"""
import statistics
import subprocess
import sys
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, PredefinedSplit

EXAMPLE = "target/release/examples/kernel_ridge_vs_sklearn"
SIGMA = 85 ** 0.5


def ours(directory):
    out = subprocess.run([EXAMPLE, directory], check=True, capture_output=True, text=True)
    seconds, lam, rmse = out.stdout.split()
    return float(seconds), float(lam), float(rmse)


def theirs(x, y, folds, x_test, y_test):
    search = GridSearchCV(
        KernelRidge(kernel="rbf", gamma=1.0 / (2.0 * SIGMA**2)),
        {"alpha": [2.0**c for c in range(-10, 11)]},
        cv=PredefinedSplit(folds),
        scoring="neg_mean_squared_error",
        refit=True,
    )
    start = time.perf_counter()
    search.fit(x, y)
    seconds = time.perf_counter() - start
    rmse = float(np.sqrt(np.mean((search.predict(x_test) - y_test) ** 2)))
    return seconds, search.best_params_["alpha"], rmse


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "target/kernel-ridge-cv"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    ours(directory)  # writes the rows and folds on its first run (not timed here)
    load = lambda name: np.loadtxt(f"{directory}/{name}.csv", delimiter=",")
    x, y = load("x_train"), load("y_train")
    x_test, y_test = load("x_test"), load("y_test")
    folds = load("folds").astype(int)
    print(f"{x.shape[0]} training rows, {x_test.shape[0]} test rows, d = {x.shape[1]}, 5 folds, 21 lambdas")
    times = {"scikit-learn": [], "ours": []}
    for r in range(rounds):
        for name, run in [("scikit-learn", lambda: theirs(x, y, folds, x_test, y_test)),
                          ("ours", lambda: ours(directory))]:
            seconds, lam, rmse = run()
            times[name].append(seconds)
            print(f"round {r}: {name:12s} {seconds:8.2f} s  lambda {lam:<10g} test RMSE {rmse:.10f}")
    a, b = statistics.median(times["ours"]), statistics.median(times["scikit-learn"])
    print(f"median: ours {a:.2f} s, scikit-learn {b:.2f} s: ours / scikit-learn = {a / b:.3f}")


if __name__ == "__main__":
    main()
