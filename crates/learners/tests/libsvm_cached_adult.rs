//! The cached-SMO kernel SVM ([`CachedKernelSvm`]) against LIBSVM's `svm-train` itself on the
//! first 3,000 rows of Adult (a9a), tested on all 16,281 rows of a9a.t, `C = 1`, `eps = 1e-3`:
//! the polynomial kernel `(<x, y> + 1)^2` (`-t 1 -d 2 -g 1 -r 1`) and the Gaussian
//! `exp(-0.05 |x - y|^2)` (`-t 2 -g 0.05`).
//!
//! Same problem, same algorithm (WSS 2, shrinking, same stopping rule), so the margins are
//! tight: dual objective within 1e-6 relative (both stop at a maximal violation below 1e-3 on
//! slightly different paths, LIBSVM's kernel values being single-precision floats), `rho`
//! within `2 eps` (each is a mean of `y_t G_t` over free variables, which span less than `eps`
//! at the stop), support vectors within 5 (variables at the edge of the free set may end at 0 on
//! one path and just above on the other) and test accuracy within 0.3 points (49 test rows).
//! Both runs use a cache smaller than the problem's kernel matrix so that eviction and shrinking
//! are exercised. Skipped with a message when the data or `svm-train` are missing, unless
//! `RFBENCH_REQUIRE_LIBLINEAR=1`, which makes that a failure.

mod support;

use std::path::Path;
use std::process::Command;

use rfbench_learners::{metrics, CachedKernelSvmParams, KernelFunction as Kernel};
use rfbench_maps::Row;
use support::{adult_dir, head, libsvm_tools, number_after, read_libsvm, skip, ADULT_DIM};

const ROWS: usize = 3000;

/// What `svm-train` and `svm-predict` print: objective, rho, nSV, nBSV, test accuracy (%).
struct Libsvm {
    objective: f64,
    rho: f64,
    support_vectors: f64,
    bounded: f64,
    accuracy: f64,
}

fn run_libsvm(tools: &(String, String), kernel: &[&str], train: &Path, test: &Path) -> Libsvm {
    let model = train.with_extension("model");
    let out = Command::new(&tools.0)
        .args(kernel)
        .args(["-c", "1", "-e", "0.001", "-m", "20"])
        .arg(train)
        .arg(&model)
        .output()
        .expect("svm-train runs");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "svm-train failed: {log}");
    let pred = Command::new(&tools.1)
        .arg(test)
        .arg(&model)
        .arg(train.with_extension("pred"))
        .output()
        .expect("svm-predict runs");
    let printed = String::from_utf8_lossy(&pred.stdout);
    Libsvm {
        objective: number_after(&log, "obj =").expect("objective printed"),
        rho: number_after(&log, "rho =").expect("rho printed"),
        support_vectors: number_after(&log, "nSV =").expect("nSV printed"),
        bounded: number_after(&log, "nBSV =").expect("nBSV printed"),
        accuracy: number_after(&printed, "Accuracy =").expect("accuracy printed"),
    }
}

fn compare<K: Kernel>(name: &str, kernel: K, libsvm_kernel: &[&str]) {
    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let Some(tools) = libsvm_tools() else {
        skip("svm-train / svm-predict not installed (apt-get install libsvm-tools)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let (train, test) = (work.path().join("train"), dir.join("a9a.t"));
    head(&dir.join("a9a"), ROWS, &train);
    let theirs = run_libsvm(&tools, libsvm_kernel, &train, &test);
    let (x, y) = read_libsvm(&train, ADULT_DIM);
    let (xt, yt) = read_libsvm(&test, ADULT_DIM);
    // 20 MB: 873 of the 3,000 rows (the matrix is 72 MB).
    let model = CachedKernelSvmParams::new()
        .c(1.0)
        .eps(1e-3)
        .cache_megabytes(20)
        .fit(kernel, &x, &y)
        .unwrap();
    let r = &model.reports()[0];
    let accuracy = 100.0 * metrics::accuracy(&yt, &model.predict(&xt).unwrap()).unwrap();
    let relative = (r.objective - theirs.objective).abs() / theirs.objective.abs();
    println!(
        "{name}, C 1, eps 1e-3, first {ROWS} rows of a9a: objective ours {:.9} LIBSVM {:.9} \
         (relative difference {relative:.2e}); rho ours {:.6} LIBSVM {:.6}; SVs ours {} \
         LIBSVM {}; bounded SVs ours {} LIBSVM {}; test accuracy ours {accuracy:.4}% LIBSVM \
         {:.4}%; {} SMO steps, gap {:.2e}, {} kernel values computed, cache peak {} bytes",
        r.objective,
        theirs.objective,
        r.rho,
        theirs.rho,
        r.support_vectors,
        theirs.support_vectors,
        r.bounded_support_vectors,
        theirs.bounded,
        theirs.accuracy,
        r.iterations,
        r.gap,
        r.kernel_evaluations,
        r.cache_peak_bytes,
    );
    assert!(model.converged(), "{r:?}");
    assert!(r.cache_peak_bytes <= 20 << 20);
    assert!(relative < 1e-6, "objective off by {relative:.2e} relative");
    assert!(
        (r.rho - theirs.rho).abs() < 2e-3,
        "rho {} vs {}",
        r.rho,
        theirs.rho
    );
    assert!((r.support_vectors as f64 - theirs.support_vectors).abs() <= 5.0);
    assert!((accuracy - theirs.accuracy).abs() < 0.3);
}

#[test]
fn cached_smo_matches_svm_train_polynomial_on_adult_subset() {
    let kernel = rfbench_maps::Kernel::libsvm_polynomial(2, 1.0, 1.0).unwrap();
    compare(
        "polynomial (<x, y> + 1)^2",
        kernel,
        &["-t", "1", "-d", "2", "-g", "1", "-r", "1"],
    );
}

#[test]
fn cached_smo_matches_svm_train_gaussian_on_adult_subset() {
    // LIBSVM's RBF kernel, in its own arithmetic: exp(-gamma (|x|^2 + |y|^2 - 2 <x, y>)).
    let gaussian =
        |a: &Row<'_>, b: &Row<'_>| (-0.05 * (a.dot(a) + b.dot(b) - 2.0 * a.dot(b))).exp();
    compare(
        "Gaussian exp(-0.05 |x - y|^2)",
        gaussian,
        &["-t", "2", "-g", "0.05"],
    );
}
