#!/usr/bin/env bash
# Pham & Pagh Table 1's exact kernel SVM column on all of Adult, ours against LIBSVM's svm-train in
# the same session: unit-norm a9a / a9a.t (the spec's preprocessing), C = 1, eps = 1e-3, the
# four kernels <x,y>^2, (1+<x,y>)^2, <x,y>^4, (1+<x,y>)^4 (svm-train -t 1 -g 1 -d D -r R),
# CACHE_MB of kernel cache for both (default 200: the spec's cache_mb).
#
#   RFBENCH_MIRROR=../shared/datasets/adult scripts/perf/table1_kernel_svm.sh [THREADS] [CACHE_MB]
#
# Needs python3, svm-train/svm-predict (Debian libsvm-tools) and the Adult files a9a, a9a.t in
# the first RFBENCH_MIRROR directory that has them. Builds the release example
# kernel_svm_vs_libsvm of crates/learners (or uses $EXAMPLE).
set -euo pipefail
cd "$(dirname "$0")/../.."
threads="${1:-2}"
cache="${2:-200}"
src=""
IFS=: read -ra dirs <<< "${RFBENCH_MIRROR:-../shared/datasets/adult}"
for d in "${dirs[@]}"; do
    if [ -f "$d/a9a" ] && [ -f "$d/a9a.t" ]; then src="$d"; break; fi
done
[ -n "$src" ] || { echo "no a9a and a9a.t in RFBENCH_MIRROR" >&2; exit 2; }
unit="$(mktemp -d)"
trap 'rm -rf "$unit"' EXIT
# Every row divided by its Euclidean norm, written with 17 significant digits (exact round trip).
python3 - "$src" "$unit" <<'PY'
import math, sys
src, out = sys.argv[1], sys.argv[2]
for name in ("a9a", "a9a.t"):
    with open(f"{src}/{name}") as f, open(f"{out}/{name}", "w") as g:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            pairs = [p.split(":") for p in parts[1:]]
            norm = math.sqrt(sum(float(v) ** 2 for _, v in pairs))
            g.write(parts[0] + "".join(f" {i}:{float(v) / norm:.17g}" for i, v in pairs) + "\n")
PY
example="${EXAMPLE:-}"
if [ -z "$example" ]; then
    cargo build --release -q -p rfbench-learners --example kernel_svm_vs_libsvm
    example="${CARGO_TARGET_DIR:-target}/release/examples/kernel_svm_vs_libsvm"
fi
for kernel in poly-2-0 poly-2-1 poly-4-0 poly-4-1; do
    RFBENCH_MIRROR="$unit" "$example" both 0 "$cache" "$kernel" "$threads"
done
