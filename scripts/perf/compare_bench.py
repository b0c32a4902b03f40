#!/usr/bin/env python3
"""Ratios from one benchmark run: rfbench's Tensor Sketch vs scikit-learn, and TS vs RM.

Run after `cargo bench -p rfbench-maps` (the `just bench` recipe runs both):

    cargo bench -p rfbench-maps && python3 scripts/perf/compare_bench.py

1. Reads criterion's estimates (`<target>/criterion/**/new/{benchmark,estimates}.json`) of
   group `ts_vs_sklearn` (Tensor Sketch, (1 + <x,y>)^4, 10,000 rows, d = 780, D = 4000), times
   scikit-learn's PolynomialCountSketch.transform on the same matrix (the file the bench wrote,
   see bench_sklearn_tensor_sketch.py) and prints sklearn_time / rfbench_time; the issue's goal
   is a ratio of at least 3 for `ts_transform` (rayon's default pool, allocating output).
2. Prints the TS and RM times of groups `poly4_d=<d>_n=<n>` for every D, and RM / TS.

All times are criterion's median over samples and scikit-learn's median of --repeats runs.
Exit status: 0; 1 with --min-ratio R when the headline ratio is below R, or when scikit-learn or
the bench's data file is missing; 2 when there are no criterion results.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sklearn_tensor_sketch as skl  # noqa: E402

HEADLINE = "ts_transform"
GOAL = 3.0


def load_criterion(root):
    """{full_id: (benchmark.json dict, median s, 95% CI of the median, mtime, fastest sample s)}."""
    results = {}
    for bench in root.glob("**/new/benchmark.json"):
        estimates = bench.with_name("estimates.json")
        if not estimates.exists():
            continue
        meta = json.loads(bench.read_text())
        median = json.loads(estimates.read_text())["median"]
        ci = median["confidence_interval"]
        sample = json.loads(bench.with_name("sample.json").read_text())
        fastest = min(t / i for t, i in zip(sample["times"], sample["iters"])) * 1e-9
        results[meta["full_id"]] = (
            meta,
            median["point_estimate"] * 1e-9,
            (ci["lower_bound"] * 1e-9, ci["upper_bound"] * 1e-9),
            estimates.stat().st_mtime,
            fastest,
        )
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed sklearn transforms")
    parser.add_argument("--min-ratio", type=float, default=None,
                        help=f"exit 1 if sklearn/{HEADLINE} is below this (the goal is {GOAL})")
    args = parser.parse_args()

    version = skl.require_sklearn()
    target = skl.target_dir()
    root = target / "criterion"
    results = load_criterion(root) if root.is_dir() else {}
    headline = {fid: r for fid, r in results.items() if r[0]["group_id"] == "ts_vs_sklearn"}
    if not headline:
        print(f"error: no criterion results of group ts_vs_sklearn under {root}; run "
              f"`cargo bench -p rfbench-maps` first (same CARGO_TARGET_DIR).", file=sys.stderr)
        return 2
    data = skl.default_data_path()
    x = skl.load_data(data)
    if any(r[3] < data.stat().st_mtime for r in headline.values()):
        print("warning: some ts_vs_sklearn estimates are older than the data file: they come "
              "from an earlier `cargo bench` run", file=sys.stderr)

    load, cpus = os.getloadavg()[0], os.cpu_count()
    print(f"load average (1 min) before timing scikit-learn: {load:.2f} on {cpus} CPUs")
    if load > 0.5:
        print("warning: other processes are running; both timings (criterion's earlier, "
              "sklearn's now) may be inflated by different amounts, so the ratio is noisy",
              file=sys.stderr)
    print(f"scikit-learn {version}: timing PolynomialCountSketch(degree={skl.DEGREE}, "
          f"coef0={skl.COEF0}, gamma={skl.GAMMA}, n_components={skl.N_COMPONENTS}).transform, "
          f"median of {args.repeats} after a warm-up, on {data} ...", flush=True)
    sk_median, sk_times = skl.time_sklearn(x, args.repeats)
    print(f"  times (s): {' '.join(f'{t:.3f}' for t in sk_times)}")
    print()
    print("1. Tensor Sketch vs scikit-learn, (1 + <x,y>)^4, n = 10,000, d = 780, D = 4000")
    print(f"   (criterion group ts_vs_sklearn, id <function>/{next(iter(headline.values()))[0]['value_str']})")
    print("   (ratio = sklearn median / rfbench median; in brackets the same ratio of the fastest")
    print("   runs, less sensitive to other load on the machine)")
    print(f"   {'implementation':<44} {'median (s)':>10} {'95% CI of median':>18} "
          f"{'fastest (s)':>11}  {'sklearn / this':>16}")
    sk_fastest = min(sk_times)
    print(f"   {'scikit-learn PolynomialCountSketch.transform':<44} {sk_median:>10.3f} "
          f"{'':>18} {sk_fastest:>11.3f}")
    headline_ratio = None
    for fid in sorted(headline):
        meta, median, (lo, hi), _, fastest = headline[fid]
        ratio = sk_median / median
        if meta["function_id"] == HEADLINE:
            headline_ratio = ratio
        name = f"rfbench {meta['function_id']}"
        print(f"   {name:<44} {median:>10.3f} {f'[{lo:.3f}, {hi:.3f}]':>18} {fastest:>11.3f}  "
              f"{ratio:>6.2f}x [{sk_fastest / fastest:.2f}x]")
    if headline_ratio is not None:
        verdict = "meets" if headline_ratio >= GOAL else "MISSES"
        print(f"   => sklearn_time / rfbench_time = {headline_ratio:.2f} ({HEADLINE}); "
              f"{verdict} the goal of {GOAL:g}x")

    sweep = {}
    for meta, median, *_ in results.values():
        m = re.fullmatch(r"poly4_d=(\d+)_n=(\d+)", meta["group_id"])
        k = re.fullmatch(r"D=(\d+)", meta["value_str"] or "")
        if m and k:
            key = (int(m.group(1)), int(k.group(1)), int(m.group(2)))
            sweep.setdefault(key, {})[meta["function_id"]] = median
    if sweep:
        print()
        print("2. Tensor Sketch (ts) vs Random Maclaurin (rm) as D grows, (1 + <x,y>)^4")
        print(f"   {'d':>4} {'D':>5} {'n':>6}  {'ts (ms)':>9} {'rm (ms)':>9}  "
              f"{'ts us/row':>9} {'rm us/row':>9}  {'rm / ts':>7}")
        for (d, big_d, n), t in sorted(sweep.items()):
            ts, rm = t.get("ts"), t.get("rm")
            cell = lambda v, s: f"{v * s:>9.1f}" if v is not None else f"{'-':>9}"  # noqa: E731
            ratio = f"{rm / ts:>7.1f}" if ts and rm else f"{'-':>7}"
            print(f"   {d:>4} {big_d:>5} {n:>6}  {cell(ts, 1e3)} {cell(rm, 1e3)}  "
                  f"{cell(ts, 1e6 / n)} {cell(rm, 1e6 / n)}  {ratio}")

    if args.min_ratio is not None and (headline_ratio is None or headline_ratio < args.min_ratio):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
