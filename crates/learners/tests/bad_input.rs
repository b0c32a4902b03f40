//! Every learner, every kind of bad input the issue lists — empty data, a single class, NaN or
//! infinite values, label/row count mismatch, `C <= 0` — gives a typed error carrying the
//! offending values, never a panic. One table per case, one row per learner, so a learner added
//! later without the check shows up as a missing row.

use linfa::traits::Fit;
use linfa::Dataset;
use ndarray::{array, Array1, Array2};
use rfbench_learners::{
    CachedKernelSvmParams, Kernel, KernelIntercept, KernelRidgeParams, KernelSvmParams,
    LearnerError, LinearSvmParams, LogisticRegressionParams, RidgeClassifierParams, RidgeParams,
    SvmLoss,
};

type Outcome = Result<(), LearnerError>;

fn kernel() -> Kernel {
    Kernel::libsvm_polynomial(2, 0.5, 1.0).unwrap()
}

/// All classifiers on rows `x` and labels `y`, with their names.
fn classifiers(x: &Array2<f64>, y: &[i64]) -> Vec<(&'static str, Outcome)> {
    let targets = Array1::from(y.to_vec());
    vec![
        (
            "LinearSvm L1",
            LinearSvmParams::new()
                .loss(SvmLoss::L1)
                .fit(x, y)
                .map(|_| ()),
        ),
        ("LinearSvm L2", LinearSvmParams::new().fit(x, y).map(|_| ())),
        (
            "LinearSvm (linfa)",
            if x.nrows() == y.len() {
                Fit::fit(
                    &LinearSvmParams::new().check().unwrap(),
                    &Dataset::new(x.clone(), targets),
                )
                .map(|_| ())
            } else {
                // linfa's Dataset::new itself asserts equal lengths; the inherent fit is tested.
                Err(LearnerError::LengthMismatch {
                    rows: x.nrows(),
                    labels: y.len(),
                })
            },
        ),
        (
            "LogisticRegression",
            LogisticRegressionParams::new().fit(x, y).map(|_| ()),
        ),
        (
            "CachedKernelSvm",
            CachedKernelSvmParams::new().fit(kernel(), x, y).map(|_| ()),
        ),
        (
            "KernelSvm penalised bias",
            KernelSvmParams::new().fit(kernel(), x, y).map(|_| ()),
        ),
        (
            "KernelSvm free intercept (SMO)",
            KernelSvmParams::new()
                .intercept(KernelIntercept::Free)
                .fit(kernel(), x, y)
                .map(|_| ()),
        ),
        (
            "RidgeClassifier",
            RidgeClassifierParams::new(RidgeParams::new())
                .fit(x.view(), y)
                .map(|_| ()),
        ),
    ]
}

/// All regressors on rows `x` and one target column `t`.
fn regressors(x: &Array2<f64>, t: &Array2<f64>) -> Vec<(&'static str, Outcome)> {
    vec![
        (
            "Ridge",
            RidgeParams::new().fit(x.view(), t.view()).map(|_| ()),
        ),
        (
            "Ridge streamed",
            RidgeParams::new()
                .check()
                .unwrap()
                .accumulator(x.ncols(), t.ncols())
                .and_then(|mut acc| {
                    acc.add_block(x.view(), t.view())?;
                    acc.finish()
                })
                .map(|_| ()),
        ),
        (
            "KernelRidge",
            KernelRidgeParams::new()
                .fit(kernel(), x, t.view())
                .map(|_| ()),
        ),
    ]
}

fn data() -> (Array2<f64>, Vec<i64>, Array2<f64>) {
    let x = array![
        [0.0, 1.0, 2.0],
        [1.0, -1.0, 0.5],
        [2.0, 0.0, -1.0],
        [-1.0, 2.0, 1.0],
        [0.5, 0.5, 0.5]
    ];
    let y = vec![1, -1, 1, -1, 1];
    let t = Array2::from_shape_fn((5, 1), |(i, _)| i as f64);
    (x, y, t)
}

#[test]
fn good_data_fits_everywhere() {
    // The tables below are meaningful only if every learner accepts the unmodified data.
    let (x, y, t) = data();
    for (name, outcome) in classifiers(&x, &y).into_iter().chain(regressors(&x, &t)) {
        assert_eq!(outcome, Ok(()), "{name}");
    }
}

#[test]
fn empty_data() {
    let x = Array2::zeros((0, 3));
    let t = Array2::zeros((0, 1));
    for (name, outcome) in classifiers(&x, &[]).into_iter().chain(regressors(&x, &t)) {
        assert_eq!(outcome, Err(LearnerError::EmptyData), "{name}");
    }
}

#[test]
fn no_columns() {
    let x = Array2::zeros((5, 0));
    let (_, y, t) = data();
    for (name, outcome) in classifiers(&x, &y).into_iter().chain(regressors(&x, &t)) {
        // Ridge without features is well defined (intercept only); the others need a column.
        if name.starts_with("Ridge") {
            continue;
        }
        assert_eq!(outcome, Err(LearnerError::NoFeatures), "{name}");
    }
}

#[test]
fn one_class_only() {
    let (x, _, _) = data();
    for (name, outcome) in classifiers(&x, &[4; 5]) {
        assert_eq!(
            outcome,
            Err(LearnerError::SingleClass { label: 4 }),
            "{name}"
        );
    }
}

#[test]
fn nan_and_infinite_values() {
    let (x, y, t) = data();
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut bad = x.clone();
        bad[[3, 2]] = value;
        for (name, outcome) in classifiers(&bad, &y)
            .into_iter()
            .chain(regressors(&bad, &t))
        {
            match outcome {
                Err(LearnerError::NonFinite {
                    row: 3,
                    col: 2,
                    value: v,
                }) if v.to_bits() == value.to_bits() => {}
                other => panic!("{name} with {value}: {other:?}"),
            }
        }
        let mut bad_t = t.clone();
        bad_t[[2, 0]] = value;
        for (name, outcome) in regressors(&x, &bad_t) {
            match outcome {
                Err(LearnerError::NonFiniteTarget {
                    row: 2,
                    output: 0,
                    value: v,
                }) if v.to_bits() == value.to_bits() => {}
                other => panic!("{name} with target {value}: {other:?}"),
            }
        }
    }
}

#[test]
fn nan_at_prediction() {
    let (x, y, t) = data();
    let mut bad = x.clone();
    bad[[0, 1]] = f64::NAN;
    let is_nan_error = |r: Result<(), LearnerError>| {
        matches!(r, Err(LearnerError::NonFinite { row: 0, col: 1, .. }))
    };
    let svm = LinearSvmParams::new().fit(&x, &y).unwrap();
    assert!(is_nan_error(svm.predict(&bad).map(|_| ())));
    let ksvm = KernelSvmParams::new()
        .intercept(KernelIntercept::Free)
        .fit(kernel(), &x, &y)
        .unwrap();
    assert!(is_nan_error(ksvm.predict(&bad).map(|_| ())));
    let cached = CachedKernelSvmParams::new().fit(kernel(), &x, &y).unwrap();
    assert!(is_nan_error(cached.predict(&bad).map(|_| ())));
    let krr = KernelRidgeParams::new()
        .fit(kernel(), &x, t.view())
        .unwrap();
    assert!(is_nan_error(krr.predict(&bad).map(|_| ())));
}

#[test]
fn label_and_row_counts_differ() {
    let (x, y, t) = data();
    let mismatch = Err(LearnerError::LengthMismatch { rows: 5, labels: 4 });
    for (name, outcome) in classifiers(&x, &y[..4]) {
        assert_eq!(outcome, mismatch, "{name}");
    }
    let short = t.slice(ndarray::s![..4, ..]).to_owned();
    for (name, outcome) in regressors(&x, &short) {
        assert_eq!(outcome, mismatch, "{name}");
    }
}

#[test]
fn c_must_be_finite_and_positive() {
    let (x, y, _) = data();
    for c in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY] {
        let outcomes = [
            (
                "LinearSvm",
                LinearSvmParams::new().c(c).fit(&x, &y).map(|_| ()),
            ),
            (
                "LogisticRegression",
                LogisticRegressionParams::new().c(c).fit(&x, &y).map(|_| ()),
            ),
            (
                "CachedKernelSvm",
                CachedKernelSvmParams::new()
                    .c(c)
                    .fit(kernel(), &x, &y)
                    .map(|_| ()),
            ),
            (
                "KernelSvm",
                KernelSvmParams::new()
                    .c(c)
                    .fit(kernel(), &x, &y)
                    .map(|_| ()),
            ),
            (
                "KernelSvm SMO",
                KernelSvmParams::new()
                    .c(c)
                    .intercept(KernelIntercept::Free)
                    .fit(kernel(), &x, &y)
                    .map(|_| ()),
            ),
        ];
        for (name, outcome) in outcomes {
            match outcome {
                Err(LearnerError::InvalidC(v)) if v.to_bits() == c.to_bits() => {}
                other => panic!("{name} with C = {c}: {other:?}"),
            }
        }
    }
}
