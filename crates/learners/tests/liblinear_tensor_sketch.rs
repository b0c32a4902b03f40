//! Our dual coordinate descent against LIBLINEAR on random-feature inputs: Tensor Sketch features
//! of Adult (a9a / a9a.t), `D = 500`, for the kernel `(<x, y> + 1)^2` on unit-norm rows (the Tensor
//! Sketch paper normalises inputs to unit length, so that `<x, y>` is a cosine and the offset 1
//! weighs the degree-0, 1 and 2 parts of the kernel comparably), sketch seed 2013.
//!
//! The features are written to LIBSVM-format files with 7 significant digits and both solvers
//! read those same files, so they see identical numbers. Same settings on both sides: `C = 1`,
//! `eps = 0.1`, bias feature 1, L1-loss (`-s 3`) and L2-loss (`-s 1`). Targets as on the raw
//! Adult features: dual objective within 0.1% relative, test accuracy within 0.2 points, for
//! each of three visiting orders. Dense 500-column rows make this a test of the dense-looking
//! sparse path (every row stored with all its entries) at a different conditioning from the
//! binary raw features. Skipped like the raw-feature test when data or tools are missing, unless
//! `RFBENCH_REQUIRE_LIBLINEAR=1`.

mod support;

use std::io::Write;
use std::path::Path;

use rfbench_learners::{metrics, LinearSvmParams, SvmLoss};
use rfbench_maps::{CsrMatrix, FeatureMap, TensorSketchParams};
use support::{adult_dir, liblinear_tools, read_libsvm, run_liblinear, ADULT_DIM};

const D: usize = 500;

fn skip(why: &str) {
    if std::env::var("RFBENCH_REQUIRE_LIBLINEAR").is_ok_and(|v| v == "1") {
        panic!("RFBENCH_REQUIRE_LIBLINEAR=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
}

/// Tensor Sketch features of the unit-normalised rows of `x`, written in LIBSVM format.
fn write_features(map: &impl FeatureMap, x: &CsrMatrix, labels: &[i64], out: &Path) {
    let mut unit = x.clone();
    let inverse_norms: Vec<f64> = unit.row_norms().iter().map(|n| 1.0 / n).collect();
    unit.scale_rows(&inverse_norms);
    let z = map.transform(&unit).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    for (row, label) in z.rows().into_iter().zip(labels) {
        write!(file, "{label}").unwrap();
        for (j, v) in row.iter().enumerate() {
            write!(file, " {}:{v:.6e}", j + 1).unwrap();
        }
        writeln!(file).unwrap();
    }
}

#[test]
fn dual_cd_matches_liblinear_on_tensor_sketch_features_of_adult() {
    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let Some(tools) = liblinear_tools() else {
        skip("liblinear-train / liblinear-predict not installed (apt-get install liblinear-tools)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let (train_path, test_path) = (work.path().join("ts-train"), work.path().join("ts-test"));
    let map = TensorSketchParams::new(2, D)
        .offset(1.0)
        .seed(2013)
        .fit(ADULT_DIM)
        .unwrap();
    for (source, out) in [("a9a", &train_path), ("a9a.t", &test_path)] {
        let (x, y) = read_libsvm(&dir.join(source), ADULT_DIM);
        assert!(
            x.row_norms().iter().all(|&n| n > 0.0),
            "{source}: empty row"
        );
        write_features(&map, &x, &y, out);
    }
    let (x, y) = read_libsvm(&train_path, D);
    let (xt, yt) = read_libsvm(&test_path, D);

    for (loss, solver) in [(SvmLoss::L1, 3), (SvmLoss::L2, 1)] {
        let (their_objective, their_iterations, their_accuracy) =
            run_liblinear(&tools, solver, 0.1, &train_path, &test_path, work.path());
        for seed in 0..3 {
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
                "TS D {D} {loss:?} (-s {solver}) seed {seed}: objective ours {:.6} LIBLINEAR \
                 {their_objective:.6} (relative difference {relative:.2e}); iterations ours {} \
                 LIBLINEAR {their_iterations}; final gap {:.4}; test accuracy ours \
                 {accuracy:.4}% LIBLINEAR {their_accuracy:.4}%",
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
