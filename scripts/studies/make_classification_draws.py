#!/usr/bin/env python3
"""Issue 27, item 5: is our make_classification the same distribution as scikit-learn's?

The tutorial (004) calls make_classification(n_samples=100000) without a random_state, so its
rows are one unrepeatable draw; what can be matched is the distribution. Per draw, the quantity
that matters downstream is how separable the classes are, and it varies a lot from draw to draw
(each cluster's covariance is a random 2 x 2 matrix). So for K seeds on each side (scikit-learn:
random_state = 0..K-1; ours: seed 0..K-1) this fits, on the same split as the tutorial (75/25,
train_test_split(random_state=42)) and standardised with the training rows' statistics:

- LinearSVC(dual=False) (the tutorial's linear SVM) on all 75,000 training rows;
- SVC(kernel='rbf') (the tutorial's exact SVM, gamma='scale') on the first 7,500 training rows
  (the full 75,000 take a minute per fit), scored on the first 2,500 test rows;

and compares the two samples of accuracies (means, standard deviations, quantiles, Welch's t,
the two-sample Kolmogorov-Smirnov test), then says where the tutorial's numbers (0.868 and
0.891) and our spec's draw fall.

    cargo build --release -p rfbench-data --example make_classification_rows
    python3 scripts/studies/make_classification_draws.py [K] [OUT.csv]

Writes every draw's accuracies to OUT.csv (default results/studies/make-classification-draws.csv).
The committed files: make-classification-draws.before.{csv,txt} (our generator before issue 27
item 5, vertices in random order) and make-classification-draws.{csv,txt} (after), each the
printed summary (.txt) and the per-draw accuracies (.csv) of `python3 scripts/studies/make_classification_draws.py 25`.
"""
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

EXAMPLE = "target/release/examples/make_classification_rows"
N = 100_000
RBF_TRAIN, RBF_TEST = 7_500, 2_500


def ours(seed, scratch):
    path = os.path.join(scratch, "rows.f64")
    subprocess.run([EXAMPLE, str(N), str(seed), path], check=True)
    rows = np.fromfile(path, dtype="<f8").reshape(N, 21)
    return rows[:, :20], rows[:, 20].astype(int)


def theirs(seed):
    return make_classification(n_samples=N, random_state=seed)


def accuracies(x, y):
    x_train, x_test, y_train, y_test = train_test_split(x, y, random_state=42)
    scaler = StandardScaler().fit(x_train)
    x_train, x_test = scaler.transform(x_train), scaler.transform(x_test)
    linear = LinearSVC(dual=False).fit(x_train, y_train).score(x_test, y_test)
    rbf = SVC(kernel="rbf").fit(x_train[:RBF_TRAIN], y_train[:RBF_TRAIN])
    return linear, rbf.score(x_test[:RBF_TEST], y_test[:RBF_TEST])


def summary(name, values):
    v = np.asarray(values)
    q = np.quantile(v, [0.1, 0.5, 0.9])
    return f"{name}: mean {v.mean():.4f} sd {v.std(ddof=1):.4f} 10/50/90 % {q[0]:.4f} {q[1]:.4f} {q[2]:.4f} min {v.min():.4f} max {v.max():.4f}"


def main():
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    out = sys.argv[2] if len(sys.argv) > 2 else "results/studies/make-classification-draws.csv"
    records = []
    with tempfile.TemporaryDirectory() as scratch:
        for seed in range(k):
            for side, draw in [("scikit-learn", lambda: theirs(seed)), ("ours", lambda: ours(seed, scratch))]:
                x, y = draw()
                linear, rbf = accuracies(x, y)
                records.append((side, seed, linear, rbf))
                print(f"{side:12s} seed {seed:3d}: linear {linear:.4f} rbf {rbf:.4f}", flush=True)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["generator", "seed", "linear_svc_accuracy", "rbf_svc_accuracy"])
        w.writerows(records)
    for column, label, tutorial in [(2, "LinearSVC(dual=False), 75,000 rows", 0.868), (3, "SVC(rbf), 7,500 rows", 0.891)]:
        a = [r[column] for r in records if r[0] == "scikit-learn"]
        b = [r[column] for r in records if r[0] == "ours"]
        print(label)
        print("  " + summary("scikit-learn", a))
        print("  " + summary("ours        ", b))
        t = stats.ttest_ind(a, b, equal_var=False)
        ks = stats.ks_2samp(a, b)
        print(f"  Welch t {t.statistic:.2f} (p {t.pvalue:.3f}); KS D {ks.statistic:.3f} (p {ks.pvalue:.3f})")
        share = np.mean(np.asarray(a + b) <= tutorial)
        print(f"  the tutorial's {tutorial}: {100 * share:.0f} % of all {len(a) + len(b)} draws are at or below it")


if __name__ == "__main__":
    main()
