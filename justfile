# rfbench tasks. Prerequisites: the Rust toolchain and `just` (cargo install just); everything else
# (data, crates) is fetched by these recipes. Offline, point RFBENCH_MIRROR at a directory holding
# the dataset files (e.g. RFBENCH_MIRROR=../shared/datasets/adult).

set shell := ["bash", "-euo", "pipefail", "-c"]

rfbench := "target/release/rfbench"

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

# Build the runner (release).
build: setup
    cargo build --release -p rfbench

# Run experiments/NAME.toml: results/NAME.csv, figures/NAME.png and a report (add --quick for the CI profile).
reproduce NAME *FLAGS: build
    {{rfbench}} reproduce {{NAME}} {{FLAGS}}

# Build and run the whole test suite (and make sure the benchmarks compile).
test: setup
    cargo test --workspace
    cargo bench --workspace --no-run

# Regenerate every experiment's quick profile and compare it with the committed reference.
check *FLAGS: build
    for spec in experiments/*.toml; do \
        name=$(basename "$spec" .toml); \
        if [ -f "results/$name.quick.csv" ]; then {{rfbench}} check "$name" --quick {{FLAGS}}; fi; \
    done

# Criterion benchmarks, then the comparisons with scikit-learn (needs python3 with scikit-learn).
bench: setup
    cargo bench -p rfbench-maps
    python3 scripts/compare_bench.py
    python3 scripts/compare_rff_sklearn.py
    cargo bench -p rfbench-learners

# List the experiments.
list: build
    {{rfbench}} list
