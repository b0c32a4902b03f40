#!/usr/bin/env python3
"""Our linear solvers against scikit-learn's and LIBLINEAR's on the same rows, interleaved.

    cargo build --release -p rfbench-learners --example linear_solver_timer
    python3 scripts/perf/linear_solvers_vs_sklearn.py [--rounds 5] [--shapes]

1. The tutorial's rows (scikit-learn's make_classification(100000, random_state=0), the first
   75,000 after train_test_split(random_state=0) standardised, 75,000 x 20), C = 1, bias 1:
   ours (primal Newton, `svm-primal`; dual CD, `svm-dual`; logistic, Newton) against
   LinearSVC(dual=False) / LinearSVC(dual=True) / LogisticRegression(solver="liblinear") and
   `liblinear-train -s 2` / `-s 1` / `-s 0` (whole process, reading the file included, as a user
   runs it). Our time is the training alone (the example reads the rows first).
2. With --shapes, the choice `auto` makes on shapes of the catalogue: dual and primal timed on
   each (raw tutorial rows; random Fourier features of them, D = 800; Adult's raw rows; Tensor
   Sketch features of Adult, D = 1000; and two shapes with more columns than rows: 2,000 rows
   of Adult or of the tutorial with D = 4000), and which one `auto` takes.

Rounds alternate which side goes first; medians over rounds. Single-threaded sides: LIBLINEAR and
scikit-learn's liblinear-based solvers; ours use rayon over both cores for the primal method's
passes (the dual method is sequential).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

ROOT = Path(__file__).resolve().parents[2]
TIMER = ROOT / "target" / "release" / "examples" / "linear_solver_timer"


def tutorial_rows():
    X, y = make_classification(100_000, random_state=0)
    X_train, _, y_train, _ = train_test_split(X, y, random_state=0)
    return StandardScaler().fit_transform(X_train), y_train


def adult_rows():
    mirror = os.environ.get("RFBENCH_MIRROR", str(ROOT.parent / "shared" / "datasets" / "adult"))
    X, y = load_svmlight_file(str(Path(mirror) / "a9a"), n_features=123)
    return X.toarray(), y.astype(np.int64)


class Ours:
    """The Rust timer on rows written once to files."""

    def __init__(self, X, y, folder):
        self.n, self.d = X.shape
        folder.mkdir(exist_ok=True)
        self.rows, self.labels = folder / f"rows{self.d}.f64", folder / f"labels{self.d}.i64"
        np.ascontiguousarray(X, dtype="<f8").tofile(self.rows)
        np.asarray(y, dtype="<i8").tofile(self.labels)

    def run(self, model, features=None):
        args = [str(TIMER), str(self.rows), str(self.labels), str(self.n), str(self.d), model]
        out = subprocess.run(args + ([features] if features else []), check=True,
                             capture_output=True, text=True).stdout.split()
        return float(out[0]), out[1], float(out[2]), float(out[3])


def liblinear(solver, path):
    start = time.perf_counter()
    subprocess.run(["liblinear-train", "-s", str(solver), "-c", "1", "-B", "1", "-q", str(path),
                    str(path) + f".model{solver}"], check=True)
    return time.perf_counter() - start


def sklearn_fit(make, X, y):
    start = time.perf_counter()
    model = make().fit(X, y)
    return time.perf_counter() - start, 100 * model.score(X, y)


def interleave(rounds, sides):
    """sides: name -> callable returning seconds; median per side, order rotated by round."""
    times = {name: [] for name in sides}
    names = list(sides)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(sides[name]())
    return {name: statistics.median(values) for name, values in times.items()}


def tutorial(rounds, folder):
    X, y = tutorial_rows()
    ours = Ours(X, y, folder)
    svmlight = folder / "tutorial.svm"
    from sklearn.datasets import dump_svmlight_file
    dump_svmlight_file(X, y, str(svmlight), zero_based=False)
    rows = [
        ("L2-loss SVM, primal", "svm-primal", lambda: LinearSVC(dual=False, C=1.0), 2),
        ("L2-loss SVM, dual", "svm-dual", lambda: LinearSVC(dual=True, C=1.0, max_iter=1000), 1),
        ("logistic regression", "logistic", lambda: LogisticRegression(C=1.0, solver="liblinear"), 0),
    ]
    print(f"## The tutorial's rows, {X.shape[0]} x {X.shape[1]}, {rounds} rounds\n")
    print("| problem | ours (s) | scikit-learn (s) | liblinear-train (s) | ours / scikit-learn | accuracy ours / scikit-learn (train) |")
    print("|---|---:|---:|---:|---:|---|")
    for label, model, make, solver in rows:
        accuracy = {}

        def ours_side(model=model):
            seconds, _, _, acc = ours.run(model)
            accuracy["ours"] = acc
            return seconds

        def sklearn_side(make=make):
            seconds, acc = sklearn_fit(make, X, y)
            accuracy["sklearn"] = acc
            return seconds

        t = interleave(rounds, {"ours": ours_side, "sklearn": sklearn_side,
                                "liblinear": lambda s=solver: liblinear(s, svmlight)})
        print(f"| {label} | {t['ours']:.3f} | {t['sklearn']:.3f} | {t['liblinear']:.3f} | "
              f"{t['ours'] / t['sklearn']:.2f} | {accuracy['ours']:.2f} / {accuracy['sklearn']:.2f} |",
              flush=True)


def shapes(rounds, folder):
    X, y = tutorial_rows()
    tutorial_data = Ours(X, y, folder)
    A, b = adult_rows()
    adult = Ours(A, b, folder)
    adult_head = Ours(A[:2000], b[:2000], folder / "head")
    tutorial_head = Ours(X[:2000], y[:2000], folder / "head")
    cases = [
        ("tutorial rows, 75,000 x 20", tutorial_data, None),
        ("RFF of the tutorial rows, 75,000 x 800", tutorial_data, "rff:800:3.0"),
        ("Adult, 32,561 x 123", adult, None),
        ("Tensor Sketch of Adult, 32,561 x 1000", adult, "ts:1000:2"),
        ("Tensor Sketch of 2,000 Adult rows, 2,000 x 4000", adult_head, "ts:4000:2"),
        ("RFF of 2,000 tutorial rows, 2,000 x 4000", tutorial_head, "rff:4000:3.0"),
    ]
    print(f"\n## Which solver `auto` takes, {rounds} rounds\n")
    print("| shape | dual (s) | primal (s) | auto (s) | auto's model from | auto / faster of the two |")
    print("|---|---:|---:|---:|---|---:|")
    for label, data, features in cases:
        used = {}

        def auto():
            seconds, solver, _, _ = data.run("svm-auto", features)
            used["auto"] = solver
            return seconds

        t = interleave(rounds, {"dual": lambda: data.run("svm-dual", features)[0],
                                "primal": lambda: data.run("svm-primal", features)[0],
                                "auto": auto})
        ratio = t["auto"] / min(t["dual"], t["primal"])
        print(f"| {label} | {t['dual']:.3f} | {t['primal']:.3f} | {t['auto']:.3f} | {used['auto']} | "
              f"{ratio:.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shapes", action="store_true", help="also the table of shapes")
    parser.add_argument("--only-shapes", action="store_true", help="only the table of shapes")
    args = parser.parse_args()
    if not TIMER.exists():
        sys.exit(f"{TIMER} is missing: cargo build --release -p rfbench-learners --example linear_solver_timer")
    with tempfile.TemporaryDirectory() as folder:
        if not args.only_shapes:
            tutorial(args.rounds, Path(folder))
        if args.shapes or args.only_shapes:
            shapes(args.rounds, Path(folder))


if __name__ == "__main__":
    main()
