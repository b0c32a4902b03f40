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
        let svm = LinearSvmParams::new()
            .loss(loss)
            .c(1.0)
            .eps(0.1)
            .bias(Some(1.0))
            .seed(1)
            .fit(&x, &y)
            .unwrap();
        let report = &svm.reports()[0];
        let accuracy = 100.0 * metrics::accuracy(&yt, &svm.predict(&xt).unwrap()).unwrap();
        let relative = (report.objective - their_objective).abs() / their_objective.abs();
        println!(
            "{loss:?} (-s {solver}): objective ours {:.6} LIBLINEAR {their_objective:.6} \
             (relative difference {relative:.2e}); iterations ours {} LIBLINEAR {their_iterations}; \
             final gap {:.4}; test accuracy ours {accuracy:.4}% LIBLINEAR {their_accuracy:.4}%",
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
