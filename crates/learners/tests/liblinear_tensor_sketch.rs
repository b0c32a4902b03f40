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

use rfbench_maps::{CsrMatrix, FeatureMap, TensorSketchParams};
use support::{
    adult_and_liblinear, assert_dual_cd_matches_liblinear, read_libsvm, Comparison, ADULT_DIM,
};

const D: usize = 500;

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
    let Some((dir, tools)) = adult_and_liblinear() else {
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

    let cmp = Comparison {
        label: "TS D 500",
        train: (&train_path, &x, &y),
        test: (&test_path, &xt, &yt),
        work: work.path(),
    };
    assert_dual_cd_matches_liblinear(&tools, &cmp, 0..3);
}
