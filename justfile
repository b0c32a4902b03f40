# rfbench tasks. Prerequisites: the Rust toolchain and `just` (cargo install just); everything else
# (data, crates) is fetched by these recipes. Offline, point RFBENCH_MIRROR at a directory holding
# the dataset files (e.g. RFBENCH_MIRROR=../shared/datasets/adult).

set shell := ["bash", "-euo", "pipefail", "-c"]

# The runner: the release build, unless RFBENCH_BIN names one already built (CI points it at the
# test build's target/debug/rfbench, built by `just test`, instead of a second, optimised build of
# every dependency).
rfbench := env_var_or_default("RFBENCH_BIN", "target/release/rfbench")

# List the recipes.
default:
    @just --list

# Install the system libraries the build links against (OpenBLAS for ndarray-linalg), if missing.
setup:
    #!/usr/bin/env bash
    set -euo pipefail
    if ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so ' || [ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ]; then exit 0; fi
    echo "installing libopenblas-dev (OpenBLAS, for ndarray-linalg)" >&2
    sudo=""; if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libopenblas-dev

# Build the runner (release; with RFBENCH_BIN set, check that it names an executable instead).
build: setup
    if [ -z "${RFBENCH_BIN:-}" ]; then cargo build --release -p rfbench; \
    elif [ ! -x "$RFBENCH_BIN" ]; then echo "RFBENCH_BIN=$RFBENCH_BIN: no such executable" >&2; exit 1; fi

# Run experiments/NAME.toml: results/NAME/full.csv, figures/NAME/full*.png and a report (add --quick
# for the CI profile: results/NAME/quick.csv).
reproduce NAME *FLAGS: build
    {{rfbench}} reproduce {{NAME}} {{FLAGS}}

# Which map, at what D, on DATA (a registry name or a file): tunes, estimates, sweeps within a
# time budget and recommends; writes OUT/report.md and the specs it ran (see `rfbench compare --help`).
compare DATA *FLAGS: build
    {{rfbench}} compare {{DATA}} {{FLAGS}}

# Check the structure (no import cycles, no function over 150 lines, in any crate:
# scripts/ci/check_structure.py), build and run the whole test suite (and make sure the benchmarks
# compile: built with the test profile, which reuses the test build's dependencies; `just bench`
# builds them optimised).
test: setup
    python3 scripts/ci/check_structure.py --self-test
    cargo test --workspace --exclude rfbench-python
    cargo test --workspace --exclude rfbench-python --benches --no-run
    just test-python

# The Python package (crates/python): built by maturin into a virtual environment in
# target/python-venv, with scikit-learn and pytest from PyPI, then its tests (scikit-learn's own
# estimator checks, bit-for-bit agreement with the crate's example reference_features, Gram errors
# against scikit-learn's estimators).
test-python: setup
    cargo build --profile test -p rfbench-maps --example reference_features
    [ -x target/python-venv/bin/python ] || python3 -m venv target/python-venv
    target/python-venv/bin/pip install -q scikit-learn pytest
    target/python-venv/bin/pip install -q --force-reinstall --no-deps ./crates/python
    RFBENCH_REFERENCE_FEATURES=${CARGO_TARGET_DIR:-target}/debug/examples/reference_features \
        target/python-venv/bin/python -m pytest -q -p no:cacheprovider crates/python/tests

# Regenerate every experiment's quick profile and compare it with the committed reference.
check *FLAGS: build
    for spec in experiments/*.toml; do \
        name=$(basename "$spec" .toml); \
        if [ -f "results/$name/quick.csv" ]; then {{rfbench}} check "$name" --quick {{FLAGS}}; fi; \
    done

# Criterion benchmarks, the comparisons with scikit-learn (needs python3 with scikit-learn), and the
# Adult binary-cache timing (needs the Adult files: RFBENCH_MIRROR or network).
bench: setup
    cargo bench -p rfbench-maps
    python3 scripts/perf/compare_bench.py
    python3 scripts/perf/compare_rff_sklearn.py
    cargo bench -p rfbench-learners
    cargo run --release -p rfbench --example adult_cache

# List the experiments.
list: build
    {{rfbench}} list

# Fuzz the LIBSVM and CSV parsers with cargo-fuzz (cargo install cargo-fuzz), SECONDS each.
# Works on the stable toolchain: `--sanitizer none` leaves out the nightly-only -Zsanitizer flag,
# and libFuzzer's coverage instrumentation (-Cpasses=sancov-module) is a stable flag. The first
# build compiles every dependency instrumented (tens of minutes). Corpora and crash artifacts stay
# in fuzz/ (ignored by git); a crash stops the loop with its input in fuzz/artifacts/TARGET/.
fuzz SECONDS="300":
    cd fuzz && for target in libsvm csv; do \
        cargo fuzz run --sanitizer none "$target" -- -max_total_time={{SECONDS}} -print_final_stats=1; \
    done
