//! Our dual coordinate descent against LIBLINEAR itself on Adult (a9a / a9a.t), same settings:
//! `C = 1`, `eps = 0.1`, bias feature 1, L1-loss (`-s 3`) and L2-loss (`-s 1`) dual solvers.
//!
//! Targets: dual objective within 0.1% relative, test accuracy within 0.2 points. Both solvers
//! stop at the same projected-gradient tolerance but visit rows in different random orders, so
//! they stop at slightly different points near the optimum; 0.1% is the margin the issue sets
//! and the values printed show the actual distance. Skipped, with a message, when the data or the
//! LIBLINEAR tools are missing (CI installs them: see `.ci/run`), unless
//! `RFBENCH_REQUIRE_LIBLINEAR=1`, which turns a skip into a failure.

mod support;

use rfbench_learners::metrics;
use support::{
    adult_and_liblinear, adult_dir, assert_dual_cd_matches_liblinear, read_libsvm, skip,
    Comparison, ADULT_DIM,
};

#[test]
fn dual_cd_matches_liblinear_on_adult() {
    let Some((dir, tools)) = adult_and_liblinear() else {
        return;
    };
    let (train_path, test_path) = (dir.join("a9a"), dir.join("a9a.t"));
    let (x, y) = read_libsvm(&train_path, ADULT_DIM);
    let (xt, yt) = read_libsvm(&test_path, ADULT_DIM);
    let work = tempfile::tempdir().unwrap();
    let cmp = Comparison {
        label: "a9a",
        train: (&train_path, &x, &y),
        test: (&test_path, &xt, &yt),
        work: work.path(),
    };
    // Five visiting orders: the margins must hold for each, not for a lucky seed.
    assert_dual_cd_matches_liblinear(&tools, &cmp, 0..5);
}

/// The exact-kernel SVM against LIBSVM with the polynomial kernel (`svm-train -t 1`,
/// `(gamma <x, y> + coef0)^degree` with degree 3, gamma 0.07 — about 1/14, Adult rows having 14
/// ones, so `gamma <x, x> ~ 1` — and coef0 1), `C = 1`, `eps = 1e-3`, trained on the first 4,000
/// rows of a9a and tested on all 16,281 rows of a9a.t.
///
/// With [`KernelIntercept::Free`] we solve LIBSVM's own problem with its algorithm (SMO, second
/// order working-set selection, same stopping rule): the dual objectives must agree within 1e-5
/// relative (both stop at a maximal-violating-pair gap below 1e-3; LIBSVM shrinks, caches
/// single-precision kernel values and stores gamma in single precision, we do none of these, so
/// the paths differ by rounding: measured 1e-7), `rho` within `2 eps` (each is a mean of
/// `y_t G_t` over free variables, which span less than `eps` at the stop), and the test
/// accuracies within 0.3 points (49 of the 16,281 test rows). LIBSVM makes `+1` its positive
/// class for `-1/+1` labels, as we do (the larger label), so `rho` has the same sign. Our default penalised-bias dual
/// CD solves a slightly different problem; its accuracy is printed, and held to the same margin.
#[test]
fn kernel_svm_matches_libsvm_polynomial_on_adult_subset() {
    use rfbench_learners::{Kernel, KernelIntercept, KernelSvmParams};
    use support::{head, libsvm_tools};

    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let Some((svm_train, svm_predict)) = libsvm_tools() else {
        skip("svm-train / svm-predict not installed (apt-get install libsvm-tools)");
        return;
    };
    let (n, degree, gamma, coef0, c, eps) = (4000, 3, 0.07, 1.0, 1.0, 1e-3);
    let work = tempfile::tempdir().unwrap();
    let (train, model) = (work.path().join("train"), work.path().join("model"));
    let test = dir.join("a9a.t");
    head(&dir.join("a9a"), n, &train);
    let out = std::process::Command::new(&svm_train)
        .args([
            "-t",
            "1",
            "-d",
            &degree.to_string(),
            "-g",
            &gamma.to_string(),
        ])
        .args([
            "-r",
            &coef0.to_string(),
            "-c",
            &c.to_string(),
            "-e",
            &eps.to_string(),
        ])
        .arg(&train)
        .arg(&model)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "svm-train failed: {log}");
    let their_objective = support::number_after(&log, "obj =").expect("objective printed");
    let their_rho = support::number_after(&log, "rho =").expect("rho printed");
    let their_svs = support::number_after(&log, "nSV =").expect("nSV printed");
    let out = std::process::Command::new(&svm_predict)
        .arg(&test)
        .arg(&model)
        .arg(work.path().join("pred"))
        .output()
        .unwrap();
    let their_accuracy =
        support::number_after(&String::from_utf8_lossy(&out.stdout), "Accuracy =").unwrap();

    let (x, y) = read_libsvm(&train, ADULT_DIM);
    let (xt, yt) = read_libsvm(&test, ADULT_DIM);
    let kernel = Kernel::libsvm_polynomial(degree, gamma, coef0).unwrap();
    let params = KernelSvmParams::new().c(c).eps(eps);
    let free = params
        .clone()
        .intercept(KernelIntercept::Free)
        .fit(kernel, &x, &y)
        .unwrap();
    let accuracy = 100.0 * metrics::accuracy(&yt, &free.predict(&xt).unwrap()).unwrap();
    let report = &free.reports()[0];
    let relative = (report.objective - their_objective).abs() / their_objective.abs();
    println!(
        "polynomial kernel SVM (degree {degree}, gamma {gamma}, coef0 {coef0}), C {c}, eps {eps}, \
         n {n}: dual objective ours (SMO) {:.6} LIBSVM {their_objective:.6} (relative \
         difference {relative:.2e}); rho ours {:.6} LIBSVM {:.6}; SVs ours {} LIBSVM \
         {their_svs}; test accuracy ours {accuracy:.4}% LIBSVM {their_accuracy:.4}%; {} SMO \
         steps, final gap {:.2e}",
        report.objective,
        -free.intercepts()[0],
        their_rho,
        report.support_vectors,
        report.iterations,
        report.gap
    );
    assert!(free.converged(), "{report:?}");
    assert!(relative < 1e-5, "objective off by {relative:.2e} relative");
    // Both rhos average y_t G_t over free variables whose spread is below the gap eps.
    assert!((-free.intercepts()[0] - their_rho).abs() < 2.0 * eps);
    assert!((accuracy - their_accuracy).abs() < 0.3);

    let penalised = params.fit(kernel, &x, &y).unwrap();
    let report = &penalised.reports()[0];
    let accuracy_cd = 100.0 * metrics::accuracy(&yt, &penalised.predict(&xt).unwrap()).unwrap();
    println!(
        "same kernel, penalised bias 1 (dual CD): test accuracy {accuracy_cd:.4}%, objective \
         {:.6}, {} passes, gap {:.2e}",
        report.objective, report.iterations, report.gap
    );
    assert!(penalised.converged(), "{report:?}");
    assert!((accuracy_cd - their_accuracy).abs() < 0.3);
}
