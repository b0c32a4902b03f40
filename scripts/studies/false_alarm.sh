#!/usr/bin/env bash
# Measures the false-alarm rate of `rfbench check --master-seed`: reruns an experiment's quick
# profile with N other master seeds (1..N) against the committed reference and counts the runs
# the statistical check fails. With correct code every failure is a false alarm; the spec's
# `[check] false_alarm` (1 % by default) bounds its probability.
#
#   scripts/studies/false_alarm.sh [NAME] [N]     (default: tensor-sketch-fig1 100)
#
# Uses RFBENCH_BIN (default target/release/rfbench); datasets as for `just reproduce`.
set -euo pipefail
name="${1:-tensor-sketch-fig1}"
runs="${2:-100}"
bin="${RFBENCH_BIN:-target/release/rfbench}"
failed=0
start=$(date +%s)
for seed in $(seq 1 "$runs"); do
    if ! "$bin" check "$name" --quick --master-seed "$seed" >/dev/null 2>"/tmp/rfbench-false-alarm-$seed.log"; then
        failed=$((failed + 1))
        echo "seed $seed: FAILED (see /tmp/rfbench-false-alarm-$seed.log)" >&2
    else
        rm -f "/tmp/rfbench-false-alarm-$seed.log"
    fi
done
echo "$name --quick: $failed of $runs reruns with master seeds 1..$runs failed the statistical check ($(( $(date +%s) - start )) s)"
