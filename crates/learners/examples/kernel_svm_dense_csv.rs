//! The exact Gaussian-kernel SVM ([`CachedKernelSvm`]) on dense rows from two CSV files, timed:
//! the Rust side of `scripts/perf/svc_vs_ours.py`, which writes scikit-learn's rows and runs
//! scikit-learn's `SVC` on the same ones, so both solvers see the same numbers.
//!
//! `cargo run --release -p rfbench-learners --example kernel_svm_dense_csv -- TRAIN TEST GAMMA C
//! EPS CACHE_MB THREADS`
//!
//! Each file has one row per line, the label first, then the features, comma-separated, no
//! header. Prints one line of `key=value` pairs (read by the script): training and prediction
//! seconds, test accuracy, support vectors, dual objective, steps, peak resident memory.

use std::path::Path;
use std::time::Instant;

use ndarray::Array2;
use rfbench_learners::{metrics, CachedKernelSvmParams, Kernel};

/// Rows and labels of a comma-separated file, label first.
fn read_csv(path: &Path) -> (Array2<f64>, Vec<i64>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut values, mut labels, mut width) = (Vec::new(), Vec::new(), None);
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let mut fields = line.split(',').map(|f| {
            f.trim()
                .parse::<f64>()
                .unwrap_or_else(|e| panic!("{} line {}: {f:?}: {e}", path.display(), i + 1))
        });
        labels.push(fields.next().expect("a label") as i64);
        let before = values.len();
        values.extend(fields);
        let w = values.len() - before;
        assert_eq!(
            *width.get_or_insert(w),
            w,
            "{} line {}: ragged row",
            path.display(),
            i + 1
        );
    }
    let n = labels.len();
    let x = Array2::from_shape_vec((n, width.unwrap_or(0)), values).expect("rectangular");
    (x, labels)
}

/// This process's peak resident memory (`VmHWM`), in kB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: kernel_svm_dense_csv TRAIN TEST GAMMA C EPS CACHE_MB THREADS";
    if args.len() != 7 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let number = |i: usize| -> f64 { args[i].parse().unwrap_or_else(|_| panic!("{usage}")) };
    let (gamma, c, eps) = (number(2), number(3), number(4));
    let (cache_mb, threads) = (number(5) as u64, number(6) as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let (x, y) = read_csv(Path::new(&args[0]));
        let (xt, yt) = read_csv(Path::new(&args[1]));
        let start = Instant::now();
        let model = CachedKernelSvmParams::new()
            .c(c)
            .eps(eps)
            .cache_megabytes(cache_mb)
            .fit(Kernel::gaussian_from_gamma(gamma).unwrap(), &x, &y)
            .unwrap();
        let train = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let predicted = model.predict(&xt).unwrap();
        let predict = start.elapsed().as_secs_f64();
        let accuracy = metrics::accuracy(&yt, &predicted).unwrap();
        let r = &model.reports()[0];
        println!(
            "threads={threads} train_seconds={train:.3} predict_seconds={predict:.3} \
             accuracy={accuracy:.6} support_vectors={} bounded={} objective={:.6} rho={:.6} \
             steps={} converged={} peak_rss_kb={}",
            r.support_vectors,
            r.bounded_support_vectors,
            r.objective,
            r.rho,
            r.iterations,
            r.converged,
            peak_rss_kb(),
        );
    });
}
