#!/usr/bin/env python3
"""Ratios from one run of the shift-invariant benchmarks: rfbench's random Fourier features vs
scikit-learn's RBFSampler, and Fastfood vs random kitchen sinks (Le, Sarlos & Smola, Table 1).

Run after the Rust bench (same CARGO_TARGET_DIR):

    cargo bench -p rfbench-maps --bench shift_invariant_maps && python3 scripts/perf/compare_rff_sklearn.py

1. Reads criterion's estimates of group `rff_vs_sklearn` (Gaussian kernel, gamma = 1, D = 4000
   features of the form sqrt(2/D) cos(w'x + b), 10,000 rows, d = 780, float64), times
   `RBFSampler(gamma=1, n_components=4000).transform` on the same matrix (the file the bench wrote
   to <target>/bench-data/rff_mnist_like_10000x780.f64: raw little-endian float64, row-major) and
   prints sklearn_time / rfbench_time. The goal: a ratio of at least 1 for `rff_transform`.
2. Prints the groups `fastfood_table1_d=<d>_n=<n>`: the time to map one vector with Fastfood
   (Hadamard), Fastfood FFT and RKS, the fitted maps' memory (<target>/bench-data/
   fastfood_table1_memory.csv), and the RKS / Fastfood ratios beside the paper's.
   Then the groups `fastfood_batched_d=<d>_n=<n>`: the same maps on a batch of rows (rows per
   second, and Fastfood / RKS).
3. Prints the FWHT group (fused fast path vs plain radix-2).

Times are criterion's medians and scikit-learn's median of --repeats runs after a warm-up.

With --interleaved ROUNDS the script measures instead of reading criterion: it starts the
`transform_timer` example (built in release mode; it writes the same matrix), and in each round
times, alternately, rfbench and scikit-learn on the same matrix, both in this one run:
RFF f64 (`transform`) vs `RBFSampler` on float64, RFF f32 (`transform_f32`) vs `RBFSampler` on
float32 (scikit-learn keeps float32 since 1.3), and with --nystroem M [M ...] Nystroem fit +
transform vs `Nystroem(kernel="rbf", gamma=1, n_components=M).fit(x).transform(x)`. Rounds
alternate which side goes first; the medians over rounds are compared.

    python3 scripts/perf/compare_rff_sklearn.py --interleaved 7 --nystroem 500 1000 [--csr]
Exit status: 0; 1 with --min-ratio R when the headline ratio is below R, or when scikit-learn or
the data file is missing; 2 when there are no criterion results.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sklearn_tensor_sketch as skl  # noqa: E402  (target_dir, require_sklearn, load_data)
from compare_bench import load_criterion  # noqa: E402

N_ROWS, DIM, N_COMPONENTS, GAMMA = 10_000, 780, 4000, 1.0
HEADLINE = "rff_transform"
GOAL = 1.0
# Le, Sarlos & Smola (ICML 2013), Table 1: (d, n) -> (Fastfood s, RKS s, speedup, RAM ratio).
PAPER_TABLE1 = {
    (1024, 16384): (0.00058, 0.0139, 24, 256),
    (4096, 32768): (0.00136, 0.1224, 90, 1024),
    (8192, 65536): (0.00268, 0.5360, 200, 2048),
}


def data_path():
    return skl.target_dir() / "bench-data" / f"rff_mnist_like_{N_ROWS}x{DIM}.f64"


def time_rbf_sampler(x, repeats=5, seed=0):
    """Median wall time (s) of `repeats` RBFSampler transforms after one warm-up, and all times."""
    from sklearn.kernel_approximation import RBFSampler

    sampler = RBFSampler(gamma=GAMMA, n_components=N_COMPONENTS, random_state=seed).fit(x)
    z = sampler.transform(x)  # warm-up
    assert z.shape == (x.shape[0], N_COMPONENTS)
    del z
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        z = sampler.transform(x)
        times.append(time.perf_counter() - t0)
        del z
    return statistics.median(times), times


def rff_vs_sklearn(results, repeats):
    """Section 1; returns the headline ratio or None."""
    headline = {fid: r for fid, r in results.items() if r[0]["group_id"] == "rff_vs_sklearn"}
    if not headline:
        return None
    path = data_path()
    x = skl.load_data(path, N_ROWS, DIM)
    if any(r[3] < path.stat().st_mtime for r in headline.values()):
        print("warning: some rff_vs_sklearn estimates are older than the data file",
              file=sys.stderr)
    version = skl.require_sklearn()
    load, cpus = os.getloadavg()[0], os.cpu_count()
    print(f"load average (1 min) before timing scikit-learn: {load:.2f} on {cpus} CPUs")
    if load > 0.5:
        print("warning: other processes are running; both timings (criterion's earlier, "
              "sklearn's now) may be inflated by different amounts, so the ratio is noisy",
              file=sys.stderr)
    print(f"scikit-learn {version}: timing RBFSampler(gamma={GAMMA}, n_components={N_COMPONENTS})"
          f".transform, median of {repeats} after a warm-up, on {path} ...", flush=True)
    sk_median, sk_times = time_rbf_sampler(x, repeats)
    sk_fastest = min(sk_times)
    print(f"  times (s): {' '.join(f'{t:.3f}' for t in sk_times)}")
    print()
    print("1. Random Fourier features vs scikit-learn RBFSampler, Gaussian gamma = 1, float64,")
    print(f"   n = {N_ROWS:,}, d = {DIM}, D = {N_COMPONENTS} (sqrt(2/D) cos(w'x + b))")
    print("   (ratio = sklearn median / rfbench median; in brackets the ratio of the fastest runs)")
    print(f"   {'implementation':<40} {'median (s)':>10} {'95% CI of median':>18} "
          f"{'fastest (s)':>11}  {'sklearn / this':>16}")
    print(f"   {'scikit-learn RBFSampler.transform':<40} {sk_median:>10.3f} {'':>18} "
          f"{sk_fastest:>11.3f}")
    ratio_headline = None
    for fid in sorted(headline):
        meta, median, (lo, hi), _, fastest = headline[fid]
        ratio = sk_median / median
        if meta["function_id"] == HEADLINE:
            ratio_headline = ratio
        print(f"   {'rfbench ' + meta['function_id']:<40} {median:>10.3f} "
              f"{f'[{lo:.3f}, {hi:.3f}]':>18} {fastest:>11.3f}  "
              f"{ratio:>6.2f}x [{sk_fastest / fastest:.2f}x]")
    if ratio_headline is not None:
        verdict = "meets" if ratio_headline >= GOAL else "MISSES"
        print(f"   => sklearn_time / rfbench_time = {ratio_headline:.2f} ({HEADLINE}); "
              f"{verdict} the goal of {GOAL:g}x")
    return ratio_headline


def fastfood_table1(results):
    """Section 2."""
    table = {}
    for meta, median, *_ in results.values():
        m = re.fullmatch(r"fastfood_table1_d=(\d+)_n=(\d+)", meta["group_id"])
        if m:
            table.setdefault((int(m.group(1)), int(m.group(2))), {})[meta["function_id"]] = median
    if not table:
        return
    memory = {}
    mem_path = skl.target_dir() / "bench-data" / "fastfood_table1_memory.csv"
    if mem_path.exists():
        for line in mem_path.read_text().splitlines()[1:]:
            d, n, name, size = line.split(",")
            memory[(int(d), int(n), name)] = int(size)
    print()
    print("2. Fastfood vs random kitchen sinks (RKS = random Fourier features, dense d x n), "
          "Gaussian kernel,")
    print("   time to map one vector to n basis functions (2n features), and the fitted map's "
          "memory")
    print(f"   {'d':>5} {'n':>6}  {'fastfood':>9} {'ff_fft':>9} {'rks':>9}  "
          f"{'speedup':>8} {'paper':>6}  {'ff MB':>7} {'rks MB':>8}  {'RAM x':>6} {'paper':>6}"
          f"  {'ff_fft/ff':>9}")
    for (d, n), t in sorted(table.items()):
        ff, fft, rks = t.get("fastfood"), t.get("fastfood_fft"), t.get("rks")
        paper = PAPER_TABLE1.get((d, n), (None, None, None, None))
        cell = lambda v: f"{v * 1e3:>7.3f}ms" if v is not None else f"{'-':>9}"  # noqa: E731
        speed = f"{rks / ff:>7.1f}x" if ff and rks else f"{'-':>8}"
        ff_mb, rks_mb = memory.get((d, n, "fastfood")), memory.get((d, n, "rks"))
        ram = f"{rks_mb / ff_mb:>5.0f}x" if ff_mb and rks_mb else f"{'-':>6}"
        mb = lambda v: f"{v / 1e6:.2f}" if v is not None else "-"  # noqa: E731
        fft_ratio = f"{fft / ff:>8.2f}x" if ff and fft else f"{'-':>9}"
        print(f"   {d:>5} {n:>6}  {cell(ff)} {cell(fft)} {cell(rks)}  {speed} "
              f"{str(paper[2]) + 'x' if paper[2] else '-':>6}  {mb(ff_mb):>7} {mb(rks_mb):>8}  "
              f"{ram} {str(paper[3]) + 'x' if paper[3] else '-':>6}  {fft_ratio}")
    print("   (paper: Fastfood in Spiral, RKS in Eigen, one vector; memory ratio = RKS bytes / "
          "Fastfood bytes)")


def fastfood_batched(results):
    """Section 2b: batched throughput (rows per second) of the Table 1 maps."""
    table = {}
    for meta, median, *_ in results.values():
        m = re.fullmatch(r"fastfood_batched_d=(\d+)_n=(\d+)", meta["group_id"])
        if m:
            rows = int(re.search(r"rows=(\d+)", meta["value_str"]).group(1))
            table.setdefault((int(m.group(1)), int(m.group(2))), {})[meta["function_id"]] = (
                rows / median)
    if not table:
        return
    print()
    print("2b. Batched throughput of the same maps (rows per second; RKS as a matrix product, Fastfood "
          "row by row in parallel)")
    print(f"   {'d':>5} {'n':>6}  {'fastfood':>10} {'ff_fft':>10} {'rks':>10}  "
          f"{'fastfood / rks':>14}")
    for (d, n), t in sorted(table.items()):
        ff, fft, rks = t.get("fastfood"), t.get("fastfood_fft"), t.get("rks")
        cell = lambda v: f"{v:>10.1f}" if v is not None else f"{'-':>10}"  # noqa: E731
        ratio = f"{ff / rks:>13.2f}x" if ff and rks else f"{'-':>14}"
        print(f"   {d:>5} {n:>6}  {cell(ff)} {cell(fft)} {cell(rks)}  {ratio}")


def fwht_table(results):
    """Section 3."""
    rows = {}
    for meta, median, *_ in results.values():
        if meta["group_id"] == "fwht":
            rows.setdefault(int(meta["value_str"]), {})[meta["function_id"]] = median
    if not rows:
        return
    print()
    print("3. FWHT: fused fast path vs plain radix-2 loop (the same additions, same bits)")
    for n, t in sorted(rows.items()):
        fast, plain = t.get("fast"), t.get("radix2")
        if fast and plain:
            print(f"   n = {n:>5}: fast {fast * 1e6:8.2f} us, radix-2 {plain * 1e6:8.2f} us, "
                  f"{plain / fast:.2f}x")


def build_timer():
    """Builds the `transform_timer` example in release mode; returns its path."""
    root = Path(__file__).resolve().parents[2]
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rfbench-maps", "--example",
                    "transform_timer"], cwd=root, check=True)
    return skl.target_dir() / "release" / "examples" / "transform_timer"


class Timer:
    """The rfbench side: one request per line, one time in seconds per answer."""

    def __init__(self, exe, path):
        self.proc = subprocess.Popen([str(exe), str(path), str(N_ROWS)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        ready = self.proc.stdout.readline().split()
        assert ready == ["ready", str(N_ROWS), str(DIM)], ready

    def time(self, request):
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def wall(f):
    t0 = time.perf_counter()
    out = f()
    seconds = time.perf_counter() - t0
    del out
    return seconds


def interleaved(rounds, nystroem_sizes, csr=False):
    """Alternating rfbench / scikit-learn timings in one run; returns the f64 RFF ratio."""
    import numpy as np
    from sklearn.kernel_approximation import Nystroem, RBFSampler

    version = skl.require_sklearn()
    exe = build_timer()
    path = data_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    timer = Timer(exe, path)
    x = skl.load_data(path, N_ROWS, DIM)
    x32 = x.astype(np.float32)
    samplers = {
        "f64": (RBFSampler(gamma=GAMMA, n_components=N_COMPONENTS, random_state=0).fit(x), x),
        "f32": (RBFSampler(gamma=GAMMA, n_components=N_COMPONENTS, random_state=0).fit(x32), x32),
    }
    for precision, (sampler, data) in samplers.items():
        z = sampler.transform(data)  # warm-up, and the dtype check
        assert z.dtype == data.dtype, (precision, z.dtype)
        timer.time("rff" + precision[1:])
    del z
    cases = [(f"RFF {p}", f"rff{p[1:]}", lambda s=s, d=d: s.transform(d))
             for p, (s, d) in samplers.items()]
    if csr:
        import scipy.sparse

        x_csr = scipy.sparse.csr_matrix(x)
        cases.append(("RFF f64 CSR", "rff64csr",
                      lambda: samplers["f64"][0].transform(x_csr)))
        cases.append(("RFF f64 CSR rows", "rff64csr_rows", None))
    for m in nystroem_sizes:
        cases.append((f"Nystroem m={m}", f"nystroem {m}",
                      lambda m=m: Nystroem(kernel="rbf", gamma=GAMMA, n_components=m,
                                           random_state=0).fit(x).transform(x)))
    times = {name: ([], []) for name, _, _ in cases}
    loads = [os.getloadavg()[0]]
    print(f"scikit-learn {version}; {rounds} interleaved rounds on {path} "
          f"({N_ROWS:,} x {DIM}); load average (1 min) at start {loads[0]:.2f} on "
          f"{os.cpu_count()} CPUs", flush=True)
    for r in range(rounds):
        for name, request, sk in cases:
            ours, theirs = times[name]
            if sk is None:
                ours.append(timer.time(request))
            elif r % 2 == 0:
                ours.append(timer.time(request))
                theirs.append(wall(sk))
            else:
                theirs.append(wall(sk))
                ours.append(timer.time(request))
        loads.append(os.getloadavg()[0])
        print(f"  round {r + 1} (rfbench/sklearn): " + ", ".join(
            f"{name} {times[name][0][-1]:.3f}"
            + (f"/{times[name][1][-1]:.3f}" if times[name][1] else "") + "s"
            for name, _, _ in cases), flush=True)
    timer.close()
    print()
    print(f"Gaussian kernel gamma = {GAMMA}; RFF: D = {N_COMPONENTS}, sqrt(2/D) cos(w'x + b); "
          f"median over {rounds} rounds (ours / scikit-learn alternated)")
    print(f"   {'case':<18} {'rfbench (s)':>11} {'sklearn (s)':>11} {'sklearn / rfbench':>18}")
    medians = {}
    for name, _, _ in cases:
        ours = statistics.median(times[name][0])
        theirs = statistics.median(times[name][1]) if times[name][1] else None
        medians[name] = (ours, theirs)
        if theirs is None:
            print(f"   {name:<18} {ours:>11.3f} {'-':>11} {'-':>18}")
        else:
            print(f"   {name:<18} {ours:>11.3f} {theirs:>11.3f} {theirs / ours:>17.2f}x")
    (o64, s64), (o32, s32) = medians["RFF f64"], medians["RFF f32"]
    print(f"   rfbench f32 vs rfbench f64: {o64 / o32:.2f}x faster; rfbench f32 vs sklearn f32: "
          f"{s32 / o32:.2f}x; sklearn f32 vs sklearn f64: {s64 / s32:.2f}x")
    if csr:
        dense, blocked, rows = (medians[k][0] for k in ("RFF f64", "RFF f64 CSR",
                                                        "RFF f64 CSR rows"))
        print(f"   rfbench CSR: densified blocks {blocked / dense:.2f}x the dense time, row by "
              f"row {rows / dense:.2f}x")
    print(f"   load average (1 min) during the run: min {min(loads):.2f}, max {max(loads):.2f}")
    return s64 / o64


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed sklearn transforms")
    parser.add_argument("--min-ratio", type=float, default=None,
                        help=f"exit 1 if sklearn/{HEADLINE} is below this (the goal is {GOAL})")
    parser.add_argument("--interleaved", type=int, metavar="ROUNDS", default=None,
                        help="measure rfbench and scikit-learn alternately in this run instead "
                             "of reading criterion's results")
    parser.add_argument("--nystroem", type=int, nargs="*", default=[], metavar="M",
                        help="with --interleaved: also Nystroem fit + transform with M landmarks")
    parser.add_argument("--csr", action="store_true",
                        help="with --interleaved: also RFF f64 on the matrix as CSR (rfbench's "
                             "blocked and row-by-row paths, RBFSampler on scipy CSR)")
    args = parser.parse_args()
    if args.interleaved is not None:
        ratio = interleaved(args.interleaved, args.nystroem, args.csr)
        return 1 if args.min_ratio is not None and ratio < args.min_ratio else 0

    root = skl.target_dir() / "criterion"
    results = load_criterion(root) if root.is_dir() else {}
    wanted = [r for r in results.values()
              if r[0]["group_id"] in ("rff_vs_sklearn", "fwht")
              or r[0]["group_id"].startswith(("fastfood_table1_", "fastfood_batched_"))]
    if not wanted:
        print(f"error: no criterion results of the shift-invariant benches under {root}; run "
              f"`cargo bench -p rfbench-maps --bench shift_invariant_maps` first.",
              file=sys.stderr)
        return 2
    ratio = rff_vs_sklearn(results, args.repeats)
    fastfood_table1(results)
    fastfood_batched(results)
    fwht_table(results)
    if args.min_ratio is not None and (ratio is None or ratio < args.min_ratio):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
