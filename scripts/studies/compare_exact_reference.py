"""Is `rfbench compare`'s exact kernel machine as good as a scikit-learn one tuned for itself?

For each of scikit-learn's bundled data sets (no download: breast cancer, wine, digits; diabetes
for regression), writes the data as a CSV, runs `rfbench compare FILE` with each binary given,
and reads the exact machine's test score (mean over compare's repetitions) from
OUT/results/compare/full.csv. Beside it, the reference: scikit-learn's SVC (or KernelRidge) with
the RBF kernel, standardised columns, gamma and C (alpha) chosen by GridSearchCV (3-fold) on the
training rows of each of SPLITS random stratified 75/25 splits, then scored on the test rows:
mean and sd over the splits. The splits are not compare's (it writes no indices), so the check is
"within noise": |ours - reference| against the reference's standard error and ours.

Usage: [ONLY=a,b] python compare_exact_reference.py OUT_DIR NAME=BINARY [NAME=BINARY ...]
Appends to OUT_DIR/compare-exact-reference.csv (header each time) and prints a table; a failed
compare is a row with an empty score (NaN) and its last error line on stderr.
"""

import csv
import math
import os
import subprocess
import sys
import time

import numpy as np
from sklearn import datasets
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

SPLITS = 10
GAMMAS = [2.0**k for k in range(-13, 3, 2)]
CS = [2.0**k for k in range(-3, 13, 2)]
ALPHAS = [10.0**k for k in range(-4, 2)]


def write_csv(path, x, y, regression):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([f"x{i}" for i in range(x.shape[1])] + ["target"])
        for row, label in zip(x, y):
            w.writerow([f"{v:.6g}" for v in row] + [f"{label:.6g}" if regression else str(label)])


def data_sets():
    """(name, (x, y), regression, compare's --budget in seconds), those named in $ONLY if set:
    digits' tuning and pilot alone take about two minutes on two cores."""
    only = os.environ.get("ONLY", "").split(",") if os.environ.get("ONLY") else None
    sets = [
        ("breast-cancer", datasets.load_breast_cancer(return_X_y=True), False, 120),
        ("wine", datasets.load_wine(return_X_y=True), False, 120),
        ("digits", datasets.load_digits(return_X_y=True), False, 400),
        ("diabetes", datasets.load_diabetes(return_X_y=True), True, 120),
    ]
    return [s for s in sets if only is None or s[0] in only]


def write_table(path, header, lines, mode="w"):
    with open(path, mode, newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(lines)


def tuned_exact(xtr, ytr, xte, yte, regression):
    """scikit-learn's exact machine, tuned by GridSearchCV on the training rows: its test score
    (RMSE for regression, accuracy in % otherwise)."""
    if regression:
        model = make_pipeline(StandardScaler(), KernelRidge(kernel="rbf"))
        grid = {"kernelridge__gamma": GAMMAS, "kernelridge__alpha": ALPHAS}
        search = GridSearchCV(model, grid, cv=3, scoring="neg_root_mean_squared_error")
    else:
        model = make_pipeline(StandardScaler(), SVC(kernel="rbf"))
        grid = {"svc__gamma": GAMMAS, "svc__C": CS}
        search = GridSearchCV(model, grid, cv=3)
    search.fit(xtr, ytr)
    pred = search.predict(xte)
    if regression:
        return math.sqrt(np.mean((pred - yte) ** 2))
    return 100.0 * np.mean(pred == yte)


def reference(x, y, regression):
    scores = []
    for split in range(SPLITS):
        strat = None if regression else y
        xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25, stratify=strat, random_state=split)
        scores.append(tuned_exact(xtr, ytr, xte, yte, regression))
    return float(np.mean(scores)), float(np.std(scores, ddof=1))


def ours(binary, data, out, metric, budget):
    start = time.time()
    done = subprocess.run(
        [binary, "compare", data, "--budget", str(budget), "--out", out],
        capture_output=True,
        text=True,
    )
    seconds = time.time() - start
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no message"
        print(f"{binary} compare {data} failed: {last}", file=sys.stderr, flush=True)
        return float("nan"), 0, seconds
    with open(os.path.join(out, "results", "compare", "full.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["map"] == "exact" and r[metric]]
    values = [float(r[metric]) for r in rows]
    return float(np.mean(values)), len(values), seconds


def main():
    out_dir = sys.argv[1]
    binaries = dict(a.split("=", 1) for a in sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    sets = data_sets()
    lines = []
    for name, (x, y), regression, budget in sets:
        data = os.path.join(out_dir, f"{name}.csv")
        write_csv(data, x, y, regression)
        metric = "rmse" if regression else "accuracy"
        ref_mean, ref_sd = reference(x, y, regression)
        for label, binary in binaries.items():
            out = os.path.join(out_dir, f"{name}-{label}")
            mean, n, seconds = ours(binary, data, out, metric, budget)
            lines.append([name, metric, label, f"{mean:.3f}", n, f"{ref_mean:.3f}", f"{ref_sd:.3f}",
                          SPLITS, f"{mean - ref_mean:+.3f}", budget, f"{seconds:.0f}"])
            print("\t".join(map(str, lines[-1])), flush=True)
    header = ["data", "metric", "binary", "exact_mean", "repetitions", "sklearn_mean", "sklearn_sd",
              "sklearn_splits", "difference", "compare_budget", "compare_seconds"]
    write_table(os.path.join(out_dir, "compare-exact-reference.csv"), header, lines, "a")


if __name__ == "__main__":
    main()
