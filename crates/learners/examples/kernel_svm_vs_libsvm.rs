//! The exact kernel SVM on Adult (a9a, tested on a9a.t) by our cached SMO ([`CachedKernelSvm`])
//! and by LIBSVM's `svm-train`, same problem, same cache size: wall time, peak memory, dual
//! objective, support vectors, test accuracy.
//!
//! `cargo run --release -p rfbench-learners --example kernel_svm_vs_libsvm -- all ROWS CACHE_MB KERNEL`
//! runs, back to back, `svm-train` (under `/usr/bin/time -v`, for its peak resident memory) and
//! then this program twice as a child process, with 1 and 2 rayon threads (each child reports its
//! own `VmHWM`, so the three peaks are separate). `ROWS` is the number of leading a9a rows (0 for
//! all 32,561), `KERNEL` is `poly` (`-t 1 -d 2 -g 1 -r 1`), `poly-D-R` (`-t 1 -d D -g 1 -r R`) or
//! `rbf` (`-t 2 -g 0.05`), `C = 1`, `eps = 1e-3` for both. Load averages are printed before each
//! run: the machine may be shared. `... -- both ROWS CACHE_MB KERNEL [THREADS]` runs `svm-train`
//! and ours with THREADS threads (default 2); `... -- ours ROWS CACHE_MB KERNEL THREADS` and
//! `... -- libsvm ROWS CACHE_MB KERNEL` run one. The files are `a9a` and `a9a.t` of the first
//! directory of `RFBENCH_MIRROR` holding both (`scripts/perf/table1_kernel_svm.sh` points it at
//! unit-norm copies).

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rfbench_learners::{metrics, CachedKernelSvmParams, KernelFunction as Kernel};
use support::{adult_dir, libsvm_tools, number_after, read_libsvm, ADULT_DIM};

/// `poly-D-R`: `(<x, y> + R)^D` (`poly` is `poly-2-1`); `rbf`: `exp(-0.05 |x - y|^2)`.
enum Which {
    Poly { degree: u32, offset: f64 },
    Rbf,
}

fn which(kernel: &str) -> Which {
    let poly = |rest: &str| -> Option<Which> {
        let (degree, offset) = rest.split_once('-')?;
        Some(Which::Poly {
            degree: degree.parse().ok()?,
            offset: offset.parse().ok()?,
        })
    };
    match kernel {
        "poly" => Which::Poly {
            degree: 2,
            offset: 1.0,
        },
        "rbf" => Which::Rbf,
        other => other
            .strip_prefix("poly-")
            .and_then(poly)
            .unwrap_or_else(|| panic!("kernel must be poly, poly-D-R or rbf, got {other}")),
    }
}

fn libsvm_kernel_args(kernel: &str) -> Vec<String> {
    match which(kernel) {
        Which::Poly { degree, offset } => vec![
            "-t".into(),
            "1".into(),
            "-d".into(),
            degree.to_string(),
            "-g".into(),
            "1".into(),
            "-r".into(),
            offset.to_string(),
        ],
        Which::Rbf => vec!["-t".into(), "2".into(), "-g".into(), "0.05".into()],
    }
}

/// The training file: a9a itself, or its first `rows` lines in a scratch directory.
fn training_file(dir: &Path, rows: usize) -> PathBuf {
    if rows == 0 {
        return dir.join("a9a");
    }
    let out = std::env::temp_dir().join(format!("a9a-head-{rows}"));
    support::head(&dir.join("a9a"), rows, &out);
    out
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// This process's peak resident memory, from `/proc/self/status` (`VmHWM`), in kB.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    number_after(&status, "VmHWM:").map_or(0, |v| v as u64)
}

fn run_libsvm(dir: &Path, rows: usize, cache_mb: u64, kernel: &str) {
    let tools = libsvm_tools().expect("svm-train / svm-predict installed");
    let train = training_file(dir, rows);
    let model = std::env::temp_dir().join("a9a-bench.model");
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(&tools.0)
        .args(libsvm_kernel_args(kernel))
        .args(["-c", "1", "-e", "0.001", "-m", &cache_mb.to_string()])
        .arg(&train)
        .arg(&model)
        .output()
        .expect("/usr/bin/time and svm-train run");
    let seconds = start.elapsed().as_secs_f64();
    let log = String::from_utf8_lossy(&out.stdout);
    let time_log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "svm-train failed: {log}{time_log}");
    let pred = Command::new(&tools.1)
        .arg(dir.join("a9a.t"))
        .arg(&model)
        .arg(std::env::temp_dir().join("a9a-bench.pred"))
        .output()
        .expect("svm-predict runs");
    let accuracy = number_after(&String::from_utf8_lossy(&pred.stdout), "Accuracy =");
    println!(
        "svm-train: wall {seconds:.1} s (read + train + write model), peak RSS {} kB, \
         obj {:?}, rho {:?}, nSV {:?}, nBSV {:?}, #iter {:?}, test accuracy {accuracy:?}%",
        number_after(&time_log, "Maximum resident set size (kbytes):").unwrap_or(f64::NAN),
        number_after(&log, "obj ="),
        number_after(&log, "rho ="),
        number_after(&log, "nSV ="),
        number_after(&log, "nBSV ="),
        number_after(&log, "#iter ="),
    );
}

fn run_ours(dir: &Path, rows: usize, cache_mb: u64, kernel: &str, threads: usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let kernel = match which(kernel) {
        Which::Poly { degree, offset } => {
            rfbench_maps::Kernel::libsvm_polynomial(degree, 1.0, offset).unwrap()
        }
        Which::Rbf => rfbench_maps::Kernel::gaussian_from_gamma(0.05).unwrap(),
    };
    pool.install(|| fit_and_test(dir, rows, cache_mb, threads, kernel));
}

fn fit_and_test<K: Kernel>(dir: &Path, rows: usize, cache_mb: u64, threads: usize, kernel: K) {
    let start = Instant::now();
    let (x, y) = read_libsvm(&training_file(dir, rows), ADULT_DIM);
    let read = start.elapsed().as_secs_f64();
    let model = CachedKernelSvmParams::new()
        .c(1.0)
        .eps(1e-3)
        .cache_megabytes(cache_mb)
        .fit(kernel, &x, &y)
        .unwrap();
    let trained = start.elapsed().as_secs_f64();
    let (xt, yt) = read_libsvm(&dir.join("a9a.t"), ADULT_DIM);
    let t = Instant::now();
    let predicted = model.predict(&xt).unwrap();
    let predict = t.elapsed().as_secs_f64();
    let accuracy = 100.0 * metrics::accuracy(&yt, &predicted).unwrap();
    let r = &model.reports()[0];
    println!(
        "ours, {threads} thread(s): wall {trained:.1} s (read {read:.2} s + train), predict \
         {predict:.1} s, peak RSS {} kB, obj {:.6}, rho {:.6}, nSV {}, nBSV {}, #iter {}, \
         converged {}, gap {:.2e}, kernel values computed {}, cache peak {} MB, test accuracy \
         {accuracy:.4}%",
        peak_rss_kb(),
        r.objective,
        r.rho,
        r.support_vectors,
        r.bounded_support_vectors,
        r.iterations,
        r.converged,
        r.gap,
        r.kernel_evaluations,
        r.cache_peak_bytes >> 20,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: kernel_svm_vs_libsvm (all|libsvm) ROWS CACHE_MB KERNEL | \
                 both ROWS CACHE_MB KERNEL [THREADS] | ours ROWS CACHE_MB KERNEL THREADS \
                 (KERNEL: poly, poly-D-R or rbf)";
    let Some(dir) = adult_dir() else {
        eprintln!("needs Adult: set RFBENCH_MIRROR to the directory holding a9a and a9a.t");
        std::process::exit(2);
    };
    let number = |i: usize| -> u64 {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("{usage}"))
    };
    let (rows, cache_mb) = (number(1) as usize, number(2));
    let kernel = args.get(3).map(String::as_str).unwrap_or("poly");
    match args.first().map(String::as_str) {
        Some("libsvm") => run_libsvm(&dir, rows, cache_mb, kernel),
        Some("ours") => run_ours(&dir, rows, cache_mb, kernel, number(4) as usize),
        Some(mode @ ("all" | "both")) => {
            println!(
                "a9a, {} training rows, kernel {kernel}, C 1, eps 1e-3, cache {cache_mb} MB",
                if rows == 0 {
                    "all".to_string()
                } else {
                    rows.to_string()
                }
            );
            println!("load average before svm-train: {}", load_average());
            run_libsvm(&dir, rows, cache_mb, kernel);
            // `both`: svm-train and ours with THREADS threads (default 2).
            let thread_counts = if mode == "both" {
                vec![args.get(4).and_then(|t| t.parse().ok()).unwrap_or(2)]
            } else {
                vec![1, 2]
            };
            for threads in thread_counts {
                println!("load average before ours ({threads}): {}", load_average());
                let status = Command::new(std::env::current_exe().unwrap())
                    .args(["ours", &rows.to_string(), &cache_mb.to_string(), kernel])
                    .arg(threads.to_string())
                    .status()
                    .expect("the example re-runs itself");
                assert!(status.success());
            }
            println!("load average after: {}", load_average());
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
