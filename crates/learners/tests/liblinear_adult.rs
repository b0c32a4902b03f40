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

use rfbench_learners::{metrics, LinearSvmParams, SvmLoss};
use support::{adult_dir, liblinear_tools, read_libsvm, run_liblinear, ADULT_DIM};

fn skip(why: &str) {
    if std::env::var("RFBENCH_REQUIRE_LIBLINEAR").is_ok_and(|v| v == "1") {
        panic!("RFBENCH_REQUIRE_LIBLINEAR=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
}

#[test]
fn dual_cd_matches_liblinear_on_adult() {
    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let Some(tools) = liblinear_tools() else {
        skip("liblinear-train / liblinear-predict not installed (apt-get install liblinear-tools)");
        return;
    };
    let (train_path, test_path) = (dir.join("a9a"), dir.join("a9a.t"));
    let (x, y) = read_libsvm(&train_path, ADULT_DIM);
    let (xt, yt) = read_libsvm(&test_path, ADULT_DIM);
    let work = tempfile::tempdir().unwrap();

    for (loss, solver) in [(SvmLoss::L1, 3), (SvmLoss::L2, 1)] {
        let (their_objective, their_iterations, their_accuracy) =
            run_liblinear(&tools, solver, 0.1, &train_path, &test_path, work.path());
        // Five visiting orders: the margins must hold for each, not for a lucky seed.
        for seed in 0..5 {
            let svm = LinearSvmParams::new()
                .loss(loss)
                .c(1.0)
                .eps(0.1)
                .bias(Some(1.0))
                .seed(seed)
                .fit(&x, &y)
                .unwrap();
            let report = &svm.reports()[0];
            let accuracy = 100.0 * metrics::accuracy(&yt, &svm.predict(&xt).unwrap()).unwrap();
            let relative = (report.objective - their_objective).abs() / their_objective.abs();
            println!(
                "{loss:?} (-s {solver}) seed {seed}: objective ours {:.6} LIBLINEAR \
                 {their_objective:.6} (relative difference {relative:.2e}); iterations ours {} \
                 LIBLINEAR {their_iterations}; final gap {:.4}; test accuracy ours {accuracy:.4}% \
                 LIBLINEAR {their_accuracy:.4}%",
                report.objective, report.iterations, report.gap
            );
            assert!(report.converged, "{report:?}");
            assert!(relative < 1e-3, "objective off by {relative:.2e} relative");
            assert!(
                (accuracy - their_accuracy).abs() < 0.2,
                "accuracy {accuracy} vs {their_accuracy}"
            );
        }
    }
}

/// The exact-kernel SVM against LIBSVM (`svm-train -t 2`, Gaussian kernel) on the first 2,000
/// training and test rows of Adult: test accuracy within 1 point. Not the same optimisation
/// problem — LIBSVM's bias is free (`sum y_i alpha_i = 0`), ours is the penalised constant
/// feature of LIBLINEAR — so only the accuracy is compared, with a looser margin than the linear
/// comparison (1 point = 20 of the 2,000 test rows).
#[test]
fn kernel_svm_close_to_libsvm_on_adult_subset() {
    use rfbench_learners::KernelSvmParams;
    use rfbench_maps::Row;
    use support::{head, libsvm_tools};

    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let Some((svm_train, svm_predict)) = libsvm_tools() else {
        skip("svm-train / svm-predict not installed (apt-get install libsvm-tools)");
        return;
    };
    let (n, gamma) = (2000, 0.05);
    let work = tempfile::tempdir().unwrap();
    let (train, test, model) = (
        work.path().join("train"),
        work.path().join("test"),
        work.path().join("model"),
    );
    head(&dir.join("a9a"), n, &train);
    head(&dir.join("a9a.t"), n, &test);
    let status = std::process::Command::new(&svm_train)
        .args(["-q", "-t", "2", "-g", &gamma.to_string(), "-c", "1"])
        .arg(&train)
        .arg(&model)
        .status()
        .unwrap();
    assert!(status.success());
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
    let gaussian =
        move |a: &Row<'_>, b: &Row<'_>| (-gamma * (a.dot(a) + b.dot(b) - 2.0 * a.dot(b))).exp();
    let svm = KernelSvmParams::new().c(1.0).fit(gaussian, &x, &y).unwrap();
    let accuracy = 100.0 * metrics::accuracy(&yt, &svm.predict(&xt).unwrap()).unwrap();
    let report = &svm.reports()[0];
    println!(
        "Gaussian kernel SVM, gamma {gamma}, C 1, n {n}: test accuracy ours {accuracy:.2}% \
         LIBSVM {their_accuracy:.2}%; ours: {} passes, gap {:.2e}, objective {:.4}, {} SVs",
        report.iterations, report.gap, report.objective, report.support_vectors
    );
    assert!(svm.converged(), "{report:?}");
    assert!((accuracy - their_accuracy).abs() < 1.0);
}
