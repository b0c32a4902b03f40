#!/usr/bin/env python3
"""Issue 41, item 5: how typical is the tutorial spec's one draw of the data?

`rff-vs-nystroem`'s full run, like the tutorial it reproduces, trains on one draw of
make_classification. Its profile `draws` runs the linear SVM, RFF and Nystroem (c = 500 and 800)
on 25 draws, each repetition with its own rows. This prints, for each method, the draws' accuracy
(mean, sd, range), then where the full run's draw falls among them (its percentile: the share of
draws below it, ties counted half) and where the tutorial's own numbers fall. For the linear SVM it
also places the full run's draw among the 50 draws of scripts/studies/make_classification_draws.py
(scikit-learn's generator and ours, fitted by scikit-learn's LinearSVC), an independent sample.

With `--sklearn` it also regenerates every draw's rows by their `data_seed` (the example
`make_classification_rows`, the runner's generator) and refits scikit-learn's
LinearSVC(dual=False) on the same 75,000 / 25,000 split, standardised, beside our linear SVM's
accuracy: an independent check that a draw's accuracy is the data's, not the learner's.

    RFBENCH_MIRROR=... just reproduce rff-vs-nystroem --profile draws --require-clean
    cargo build --release -p rfbench-data --example make_classification_rows
    python3 scripts/studies/tutorial_draws.py --sklearn > results/studies/tutorial-draws.txt

Without --sklearn: standard library only; reads the committed CSVs.
"""
import csv
import statistics
import sys

RESULTS = "results/rff-vs-nystroem"
REFERENCE = "results/studies/make-classification-draws.csv"
# The tutorial's accuracies (%), by (map, c); its linear SVM has no c.
TUTORIAL = {("none", ""): 86.8, ("rff", "800"): 88.1, ("nystroem", "500"): 88.6}
LABEL = {"none": "linear SVM", "rff": "RFF + linear SVM", "nystroem": "Nystroem + linear SVM"}


def accuracies(path):
    """Accuracy (%) of every ok row, by (map, n_components)."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] == "ok":
                key = (row["map"], row["n_components"])
                out.setdefault(key, []).append(float(row["accuracy"]))
    return out


def percentile(value, sample):
    """The share of `sample` below `value`, ties counted half, in %."""
    below = sum(v < value for v in sample) + 0.5 * sum(v == value for v in sample)
    return 100.0 * below / len(sample)


def draw_seeds(path):
    """How many distinct data draws a results file holds."""
    with open(path, newline="") as f:
        return len({row["data_seed"] for row in csv.DictReader(f)})


def sklearn_check(paths):
    """Our linear SVM's accuracy beside scikit-learn's LinearSVC on the same draw and split."""
    import os
    import subprocess
    import tempfile

    import numpy as np
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    print()
    print("Each draw refitted by scikit-learn's LinearSVC(dual=False) on the same rows and split:")
    print()
    print("| file | data_seed | ours (%) | scikit-learn (%) |")
    print("|---|---|---|---|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        rows_path = os.path.join(scratch, "rows.f64")
        for path in paths:
            with open(path, newline="") as f:
                linear = [r for r in csv.DictReader(f) if r["map"] == "none" and r["status"] == "ok"]
            for seed, ours in sorted({(r["data_seed"], float(r["accuracy"])) for r in linear}):
                n, n_test = int(linear[0]["n"]), int(linear[0]["n_test"])
                subprocess.run([EXAMPLE, str(n), seed, rows_path], check=True)
                rows = np.fromfile(rows_path, dtype="<f8").reshape(n, -1)
                x, y = rows[:, :-1], rows[:, -1]
                train, test = slice(0, n - n_test), slice(n - n_test, n)
                scaler = StandardScaler().fit(x[train])
                svc = LinearSVC(dual=False).fit(scaler.transform(x[train]), y[train])
                theirs = 100.0 * svc.score(scaler.transform(x[test]), y[test])
                worst = max(worst, abs(theirs - ours))
                print(f"| {path.split('/')[-1]} | {seed} | {ours:.3f} | {theirs:.3f} |")
    print()
    print(f"Largest difference: {worst:.3f} points")


EXAMPLE = "target/release/examples/make_classification_rows"


def print_gains(path):
    """Each map's accuracy minus the linear SVM's on the same draw (repetition), in points."""
    by_draw = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] == "ok":
                key = (row["map"], row["n_components"])
                by_draw.setdefault(row["repetition"], {}).setdefault(key, []).append(
                    float(row["accuracy"]))
    print()
    print("Gain over the linear SVM on the same draw (points): mean ± sd [min, max], and the "
          "tutorial's gain's percentile:")
    print()
    print("| method | c | gain | tutorial's gain | its percentile |")
    print("|---|---|---|---|---|")
    keys = sorted({k for draw in by_draw.values() for k in draw if k[0] != "none"})
    for key in keys:
        gains = [statistics.mean(d[key]) - statistics.mean(d[("none", "")])
                 for d in by_draw.values() if key in d and ("none", "") in d]
        tutorial = TUTORIAL.get(key)
        tutorial_gain = tutorial - TUTORIAL[("none", "")] if tutorial is not None else None
        print(f"| {LABEL[key[0]]} | {key[1]} | {statistics.mean(gains):.2f} ± "
              f"{statistics.stdev(gains):.2f} [{min(gains):.2f}, {max(gains):.2f}] | "
              + (f"{tutorial_gain:.1f} | {percentile(tutorial_gain, gains):.0f} |"
                 if tutorial_gain is not None else "- | - |"))


def main():
    draws = accuracies(f"{RESULTS}/draws.csv")
    full = accuracies(f"{RESULTS}/full.csv")
    print(f"{RESULTS}/draws.csv: {draw_seeds(f'{RESULTS}/draws.csv')} data draws; "
          f"{RESULTS}/full.csv: {draw_seeds(f'{RESULTS}/full.csv')}")
    print()
    print("| method | c | draws: mean ± sd [min, max] (n) | full run's draw | its percentile "
          "| tutorial | its percentile |")
    print("|---|---|---|---|---|---|---|")
    for (map_name, c), sample in sorted(draws.items()):
        ours = full.get((map_name, c))
        committed = statistics.mean(ours) if ours else None
        tutorial = TUTORIAL.get((map_name, c))
        cells = [
            LABEL.get(map_name, map_name),
            c or "-",
            f"{statistics.mean(sample):.2f} ± {statistics.stdev(sample):.2f} "
            f"[{min(sample):.2f}, {max(sample):.2f}] ({len(sample)})",
            f"{committed:.2f}" if committed is not None else "not run",
            f"{percentile(committed, sample):.0f}" if committed is not None else "-",
            f"{tutorial:.1f}" if tutorial is not None else "-",
            f"{percentile(tutorial, sample):.0f}" if tutorial is not None else "-",
        ]
        print("| " + " | ".join(cells) + " |")
    print_gains(f"{RESULTS}/draws.csv")
    linear = statistics.mean(full[("none", "")])
    with open(REFERENCE, newline="") as f:
        rows = list(csv.DictReader(f))
    print()
    print(f"The full run's linear SVM ({linear:.2f} %) among {REFERENCE}'s LinearSVC draws:")
    for generator in sorted({r["generator"] for r in rows}):
        sample = [100.0 * float(r["linear_svc_accuracy"]) for r in rows
                  if r["generator"] == generator]
        print(f"- {generator}: percentile {percentile(linear, sample):.0f} of {len(sample)} "
              f"(mean {statistics.mean(sample):.2f}, min {min(sample):.2f})")
    if "--sklearn" in sys.argv[1:]:
        sklearn_check([f"{RESULTS}/full.csv", f"{RESULTS}/draws.csv"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
