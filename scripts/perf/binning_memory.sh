#!/usr/bin/env bash
# Peak memory of random binning + ridge at Forest's size (issue 13): 522,910 training rows and
# 58,102 test rows of make_classification data with d = 54, P = 50 grids hashed into 64 columns
# each (3,200 features), ridge with lambda by 5-fold cross-validation. Dense features would be
# 522,910 x 3,200 x 8 B = 13.4 GB; the learning kind streams them to ridge a block of rows at a
# time. Writes into a temporary workspace; prints the run's report and /usr/bin/time's numbers.
# Usage: scripts/perf/binning_memory.sh [RFBENCH_BINARY]
set -euo pipefail
bin="${1:-target/release/rfbench}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
root="$(pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/experiments"
cp "$root/datasets.toml" "$work/"
cat > "$work/experiments/binning-memory.toml" <<'SPEC'
name = "binning-memory"
title = "Random binning + ridge at Forest's size (synthetic)"
paper = "none"
kind = "learning"

[data]
dataset = "make-classification"
n = 581012
n_test = 58102
d = 54
n_informative = 10
preprocess = ["standardize"]

[run]
master_seed = 1
repetitions = 2

[kernel]
name = "laplacian"
sigma = 8.0

[grid]
map = "random-binning"
learner = "ridge"
n_grids = 50
width = 64

[check]
columns = ["accuracy"]
SPEC
cd "$work"
/usr/bin/time -f "peak RSS %M KiB, %e s wall, %U s user" "$bin" reproduce binning-memory 2>&1 | tail -n 3
python3 - <<'PY'
import csv
for row in csv.DictReader(open("results/binning-memory/full.csv")):
    print({k: row[k] for k in ("repetition", "accuracy", "map_seconds", "train_seconds", "predict_seconds", "lambda_chosen")})
PY
