#!/usr/bin/env bash
# `just reproduce-all --slurm` end to end on the cluster `.ci/run` started (SLURM_CONF set):
#
#   scripts/ci/reproduce_all_slurm.sh RFBENCH_BIN [NAME/PROFILE]
#
# In a fresh clone of this checkout (clean by construction, as --require-clean wants), it
# regenerates one small committed result (default prff-fig1/quick) through SLURM, two shards,
# then compares the merged CSV with the committed one: the same rows, and every column but the
# timing and provenance ones equal (numbers to rtol 1e-9, the specs' [check] tolerance for the
# last bits of processor-dependent kernels). The clone is removed afterwards.
set -euo pipefail
bin="$(realpath "$1")"
run="${2:-prff-fig1/quick}"
clone="$PWD/target/reproduce-all-clone"
rm -rf "$clone"
git clone -q . "$clone"
trap 'rm -rf "$clone"' EXIT
cd "$clone"
RFBENCH_BIN="$bin" ONLY="$run" SHARDS=2 just reproduce-all --slurm
git show "HEAD:results/$run.csv" > "$clone/committed.csv"
python3 - "$clone/committed.csv" "results/$run.csv" <<'EOF'
import csv, math, sys

def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

committed, merged = rows(sys.argv[1]), rows(sys.argv[2])
# The provenance columns that describe the run, not its numbers (crates/bench/src/results/csv.rs's
# PROVENANCE but master_seed): `blas` names the kernels OpenBLAS picked for this processor
# (Cooperlake on Zen 4, Haswell on Zen 5), `simd` what the processor offers.
varies = {"rfbench_version", "git_commit", "threads", "cpu", "date", "rustc", "blas", "simd"}
assert len(committed) == len(merged), f"{len(committed)} committed rows, {len(merged)} merged"
for i, (a, b) in enumerate(zip(committed, merged)):
    assert a.keys() == b.keys(), f"row {i}: other columns"
    for column, x in a.items():
        y = b[column]
        if column in varies or "second" in column or x == y:
            continue
        fx, fy = float(x), float(y)
        assert math.isclose(fx, fy, rel_tol=1e-9), f"row {i}, {column}: {x} committed, {y} merged"
print(f"reproduce-all --slurm: {sys.argv[2]}: {len(merged)} rows equal to the committed ones")
EOF
