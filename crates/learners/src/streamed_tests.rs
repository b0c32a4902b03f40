use std::cell::Cell;

use ndarray::{s, Array2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{FeatureBlocks, LearnerError, LinearSvm, LinearSvmParams, Solver, SvmLoss};

/// `n` rows in `classes` overlapping clouds (some rows inside the margin, so the Hessian's
/// active set changes between passes).
fn clouds(n: usize, d: usize, classes: i64, seed: u64) -> (Array2<f64>, Vec<i64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<i64> = (0..n as i64).map(|i| i % classes).collect();
    let x = Array2::from_shape_fn((n, d), |(i, j)| {
        let centre = if j as i64 % classes == labels[i] {
            1.0
        } else {
            0.0
        };
        centre + rng.random::<f64>() * 2.0 - 1.0
    });
    (x, labels)
}

fn params() -> LinearSvmParams {
    LinearSvmParams::new().c(2.0).solver(Solver::Auto)
}

/// Fits on `x` served `block_rows` rows at a time, keeping `keep_bytes`; also how many blocks
/// were produced.
fn streamed(
    x: &Array2<f64>,
    labels: &[i64],
    block_rows: usize,
    keep_bytes: usize,
) -> (LinearSvm, usize) {
    let produced = Cell::new(0);
    let features = |r: std::ops::Range<usize>| {
        produced.set(produced.get() + 1);
        Ok(x.slice(s![r, ..]).to_owned())
    };
    let blocks = FeatureBlocks {
        n_rows: x.nrows(),
        n_cols: x.ncols(),
        block_rows,
        features: &features,
        keep_bytes,
    };
    let model = params()
        .check()
        .unwrap()
        .fit_blocks(&blocks, labels)
        .unwrap();
    (model, produced.get())
}

#[test]
fn streamed_blocks_give_the_in_memory_primal_model() {
    for classes in [2, 3] {
        let (x, labels) = clouds(5000, 12, classes, 7);
        let in_memory = params().solver(Solver::Primal).fit(&x, &labels).unwrap();
        // Blocks of a multiple of the solver's 2,048-row chunks: the same sums, the same model.
        let (model, produced) = streamed(&x, &labels, 4096, 0);
        assert_eq!(model, in_memory, "{classes} classes");
        let passes = produced as f64 / 2.0;
        assert!(passes >= 3.0, "{classes} classes: only {passes} passes");
        // Other blocks: the same model up to the order of the sums.
        let (other, _) = streamed(&x, &labels, 1500, 0);
        let gap = (&other.weights() - &in_memory.weights())
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let scale = in_memory
            .weights()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(
            gap <= 1e-9 * scale,
            "{classes} classes: {gap} against {scale}"
        );
    }
}

#[test]
fn kept_blocks_are_produced_once() {
    let (x, labels) = clouds(5000, 12, 3, 8);
    let (all_kept, produced) = streamed(&x, &labels, 1024, usize::MAX);
    assert_eq!(produced, 5, "5 blocks of 1,024 rows, each produced once");
    let (one_kept, again) = streamed(&x, &labels, 1024, 1024 * 12 * 8);
    assert_eq!(one_kept, all_kept);
    assert!(
        again > 5 * 4,
        "the four blocks not kept are produced every pass: {again}"
    );
}

#[test]
fn a_failing_or_non_finite_block_is_an_error() {
    let (mut x, labels) = clouds(3000, 5, 2, 9);
    let fails = |r: std::ops::Range<usize>| {
        if r.start >= 2048 {
            Err(LearnerError::Pipeline("map failed".into()))
        } else {
            Ok(x.slice(s![r, ..]).to_owned())
        }
    };
    let blocks = FeatureBlocks {
        n_rows: 3000,
        n_cols: 5,
        block_rows: 2048,
        features: &fails,
        keep_bytes: 0,
    };
    let fit = params().check().unwrap().fit_blocks(&blocks, &labels);
    assert!(matches!(fit, Err(LearnerError::Pipeline(m)) if m == "map failed"));

    x[[2500, 3]] = f64::NAN;
    let (n, d) = x.dim();
    let features = |r: std::ops::Range<usize>| Ok(x.slice(s![r, ..]).to_owned());
    let blocks = FeatureBlocks {
        n_rows: n,
        n_cols: d,
        block_rows: 2048,
        features: &features,
        keep_bytes: 0,
    };
    let fit = params().check().unwrap().fit_blocks(&blocks, &labels);
    assert!(
        matches!(
            fit,
            Err(LearnerError::NonFinite {
                row: 2500,
                col: 3,
                ..
            })
        ),
        "{fit:?}"
    );
}

#[test]
fn only_the_primal_solver_streams() {
    let (x, labels) = clouds(100, 3, 2, 10);
    let features = |r: std::ops::Range<usize>| Ok(x.slice(s![r, ..]).to_owned());
    let blocks = FeatureBlocks {
        n_rows: 100,
        n_cols: 3,
        block_rows: 64,
        features: &features,
        keep_bytes: 0,
    };
    let dual = params()
        .solver(Solver::Dual)
        .check()
        .unwrap()
        .fit_blocks(&blocks, &labels);
    assert!(matches!(dual, Err(LearnerError::StreamedNeedsPrimal)));
    let hinge = params()
        .loss(SvmLoss::L1)
        .check()
        .unwrap()
        .fit_blocks(&blocks, &labels);
    assert!(matches!(hinge, Err(LearnerError::PrimalNeedsSquaredHinge)));
}
