#!/usr/bin/env python3
"""The tutorial's exact RBF SVM (004, section III) by scikit-learn's SVC and by rfbench's
CachedKernelSvm, on the same rows, in the same run.

    python3 scripts/perf/svc_vs_ours.py [--n-samples 100000] [--threads 1 2] [--seed 0] [--binary B]

Data as in the tutorial: make_classification(n_samples) with scikit-learn's defaults (20 features,
2 informative, 2 redundant, 2 clusters per class, 1 % flipped labels; random_state = --seed, the
tutorial sets none), train_test_split(random_state=42) (75/25), StandardScaler fitted on the
training rows. Both solvers: Gaussian kernel, gamma = 1/20 (SVC's 'scale' on standardised data,
written out so both get the same number), C = 1, tol/eps = 1e-3, shrinking, 200 MB cache.

The rows are written to CSV with 17 significant digits (exact round trip) in a temporary
directory, and the release example `kernel_svm_dense_csv` of crates/learners is built and run on
them once per --threads value; scikit-learn (single-threaded libsvm) runs between them. Load
averages are printed before each run: the machine may be shared.

Needs scikit-learn (pip install scikit-learn). Exit status 0, or 1 when a side fails.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAMMA, C, EPS, CACHE_MB = 1.0 / 20, 1.0, 1e-3, 200


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def write_csv(path, x, y):
    np.savetxt(path, np.column_stack([y, x]), delimiter=",", fmt="%.17g")


def example_binary():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "rfbench-learners", "--example",
         "kernel_svm_dense_csv"],
        cwd=ROOT, check=True)
    return os.path.join(target, "release", "examples", "kernel_svm_dense_csv")


def run_ours(binary, train, test, threads):
    print(f"load before ours ({threads} thread(s)): {load()}", flush=True)
    start = time.perf_counter()
    out = subprocess.run(
        [binary, train, test, str(GAMMA), str(C), str(EPS), str(CACHE_MB), str(threads)],
        capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"ours failed: {out.stderr}")
    fields = dict(kv.split("=", 1) for kv in out.stdout.split())
    fields["wall_seconds"] = f"{wall:.1f}"
    print("ours:", " ".join(f"{k}={v}" for k, v in fields.items()), flush=True)
    return fields


def run_sklearn(x, y, xt, yt):
    print(f"load before SVC: {load()}", flush=True)
    clf = SVC(kernel="rbf", gamma=GAMMA, C=C, tol=EPS, cache_size=CACHE_MB)
    start = time.perf_counter()
    clf.fit(x, y)
    train = time.perf_counter() - start
    start = time.perf_counter()
    accuracy = float(np.mean(clf.predict(xt) == yt))
    predict = time.perf_counter() - start
    # Dual objective 1/2 a'Qa - e'a from the support vectors' y_i a_i (dual_coef_).
    coef = clf.dual_coef_[0]
    sv = clf.support_vectors_
    sq = np.sum(sv * sv, axis=1)
    quad = 0.0
    for lo in range(0, len(sq), 2000):  # by blocks of rows: the whole matrix may not fit
        block = sv[lo:lo + 2000]
        d2 = np.maximum(sq[lo:lo + 2000, None] + sq[None, :] - 2 * block @ sv.T, 0)
        quad += coef[lo:lo + 2000] @ np.exp(-GAMMA * d2) @ coef
    objective = 0.5 * quad - np.sum(np.abs(coef))
    fields = {
        "train_seconds": f"{train:.3f}",
        "predict_seconds": f"{predict:.3f}",
        "accuracy": f"{accuracy:.6f}",
        "support_vectors": str(len(clf.support_)),
        "bounded": str(int(np.sum(np.abs(coef) >= C * (1 - 1e-12)))),
        "objective": f"{objective:.6f}",
        "rho": f"{-clf.intercept_[0]:.6f}",
        "steps": str(int(clf.n_iter_[0])),
    }
    print("SVC: ", " ".join(f"{k}={v}" for k, v in fields.items()), flush=True)
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--binary", help="the kernel_svm_dense_csv example, already built "
                    "(default: build it with cargo)")
    args = ap.parse_args()

    x, y = make_classification(n_samples=args.n_samples, random_state=args.seed)
    x_train, x_test, y_train, y_test = train_test_split(x, y, random_state=42)
    scaler = StandardScaler().fit(x_train)
    x_train, x_test = scaler.transform(x_train), scaler.transform(x_test)
    print(f"make_classification(n_samples={args.n_samples}, random_state={args.seed}): "
          f"{len(y_train)} training and {len(y_test)} test rows, gamma {GAMMA}, C {C}, "
          f"eps {EPS}, cache {CACHE_MB} MB", flush=True)
    binary = args.binary or example_binary()
    with tempfile.TemporaryDirectory() as tmp:
        train, test = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        write_csv(train, x_train, y_train)
        write_csv(test, x_test, y_test)
        # Read back what ours reads, so SVC sees exactly the same numbers.
        back = np.loadtxt(train, delimiter=",")
        back_t = np.loadtxt(test, delimiter=",")
        assert np.array_equal(back[:, 1:], x_train) and np.array_equal(back_t[:, 1:], x_test)
        ours = [run_ours(binary, train, test, args.threads[0])]
        theirs = run_sklearn(x_train, y_train, x_test, y_test)
        ours += [run_ours(binary, train, test, t) for t in args.threads[1:]]
    print(f"load after: {load()}")
    print()
    print("| run | train (s) | predict (s) | accuracy | SVs | bounded | dual objective | steps |")
    print("|---|---|---|---|---|---|---|---|")
    rows = [("scikit-learn SVC", theirs)] + [(f"ours, {o['threads']} thread(s)", o) for o in ours]
    for name, f in rows:
        print(f"| {name} | {f['train_seconds']} | {f['predict_seconds']} | "
              f"{100 * float(f['accuracy']):.2f} % | {f['support_vectors']} | {f['bounded']} | "
              f"{f['objective']} | {f['steps']} |")
    base = float(theirs["train_seconds"])
    for o in ours:
        print(f"SVC / ours training time, {o['threads']} thread(s): "
              f"{base / float(o['train_seconds']):.2f}")


if __name__ == "__main__":
    main()
