#!/usr/bin/env python3
"""Issue 41, item 5: how typical is the tutorial spec's one draw of the data?

`rff-vs-nystroem`'s full run, like the tutorial it reproduces, trains on one draw of
make_classification. Its profile `draws` runs the linear SVM, RFF and Nystroem (c = 500 and 800)
on 25 draws, each repetition with its own rows. This prints, for each method, the draws' accuracy
(mean, sd, range), then where the full run's draw falls among them (its percentile: the share of
draws below it, ties counted half) and where the tutorial's own numbers fall. For the linear SVM it
also places the full run's draw among the 50 draws of scripts/studies/make_classification_draws.py
(scikit-learn's generator and ours, fitted by scikit-learn's LinearSVC), an independent sample.

    RFBENCH_MIRROR=... just reproduce rff-vs-nystroem --profile draws --require-clean
    python3 scripts/studies/tutorial_draws.py > results/studies/tutorial-draws.txt

Standard library only; reads the committed CSVs.
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
