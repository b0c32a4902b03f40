//! The primal Newton solvers against LIBLINEAR's: `liblinear-train -s 2` (L2-regularised squared
//! hinge) and `-s 0` (logistic regression), `C = 1`, `-B 1`, on Adult (sparse rows), rows of the
//! tutorial's shape (`make_classification`, 75,000 x 20, dense) and a four-class set
//! (one-vs-rest).
//!
//! Both sides run to a tight tolerance (`-e 1e-6` and our `eps = 1e-6`), and both weight vectors
//! are scored by the same naive primal objective written here; every sub-problem's two values
//! must agree within 1e-6 relative (measured: 1e-8 to 1e-16). At `-e 1e-4` LIBLINEAR's `-s 2`
//! stopped short of the optimum on the 75,000 rows (6118.1522 against our 6118.1416, 1.7e-6). Skipped with a message without the data or the tools, unless
//! `RFBENCH_REQUIRE_LIBLINEAR=1`, which makes a skip a failure.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::Command;

use ndarray::Array2;
use rfbench_data::{make_classification, MakeClassification};
use rfbench_learners::{LinearModel, LinearSvmParams, LogisticRegressionParams, Solver};
use rfbench_maps::{CsrMatrix, Rows};
use support::{adult_dir, liblinear_tools, read_libsvm, skip, ADULT_DIM};

const EPS: f64 = 1e-6;
const TOLERANCE: f64 = 1e-6;

#[derive(Clone, Copy, PartialEq)]
enum Loss {
    SquaredHinge,
    Logistic,
}

/// `1/2 |w|^2 + sum_i loss(y_i (w'x_i + b w_b))`, `C = 1`, bias feature 1.
fn objective(x: &CsrMatrix, positive: &[bool], w: &[f64], w_bias: f64, loss: Loss) -> f64 {
    let mut f = 0.5 * (w.iter().map(|v| v * v).sum::<f64>() + w_bias * w_bias);
    for (i, &pos) in positive.iter().enumerate() {
        let (idx, val) = x.row_parts(i);
        let dot: f64 = idx
            .iter()
            .zip(val)
            .map(|(&j, &v)| v * w[j as usize])
            .sum::<f64>()
            + w_bias;
        let m = if pos { dot } else { -dot };
        f += match loss {
            Loss::SquaredHinge => (1.0 - m).max(0.0).powi(2),
            Loss::Logistic if m >= 0.0 => (-m).exp().ln_1p(),
            Loss::Logistic => -m + m.exp().ln_1p(),
        };
    }
    f
}

fn write_libsvm(x: &CsrMatrix, labels: &[i64], path: &Path) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for (i, label) in labels.iter().enumerate() {
        write!(out, "{label}").unwrap();
        let (idx, val) = x.row_parts(i);
        for (j, v) in idx.iter().zip(val) {
            write!(out, " {}:{v:e}", j + 1).unwrap();
        }
        writeln!(out).unwrap();
    }
}

/// LIBLINEAR's model: its labels in order and, per sub-problem, `(w, w_bias)`.
fn liblinear_model(
    train: &str,
    solver: u32,
    file: &Path,
    d: usize,
    dir: &Path,
) -> (Vec<i64>, Vec<(Vec<f64>, f64)>) {
    let model = dir.join(format!("model-s{solver}"));
    let out = Command::new(train)
        .args([
            "-s",
            &solver.to_string(),
            "-c",
            "1",
            "-e",
            &EPS.to_string(),
            "-B",
            "1",
            "-q",
        ])
        .arg(file)
        .arg(&model)
        .output()
        .expect("liblinear-train runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&model).unwrap();
    let labels: Vec<i64> = text
        .lines()
        .find_map(|l| l.strip_prefix("label "))
        .expect("label line")
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip_while(|l| *l != "w")
        .skip(1)
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), d + 1, "d weights and the bias weight");
    let models = rows[0].len();
    let weights = (0..models)
        .map(|k| (rows[..d].iter().map(|r| r[k]).collect(), rows[d][k]))
        .collect();
    (labels, weights)
}

/// Every sub-problem's objective, ours against LIBLINEAR's, by the naive formula.
fn compare(
    name: &str,
    x: Rows<'_>,
    csr: &CsrMatrix,
    labels: &[i64],
    file: &Path,
    dir: &Path,
    loss: Loss,
) {
    let Some((train, _)) = liblinear_tools() else {
        skip("liblinear-train not installed (apt-get install liblinear-tools)");
        return;
    };
    let d = csr.n_cols();
    let ours: LinearModel = match loss {
        Loss::SquaredHinge => LinearSvmParams::new()
            .solver(Solver::Primal)
            .eps(EPS)
            .fit(x, labels),
        Loss::Logistic => LogisticRegressionParams::new().eps(EPS).fit(x, labels),
    }
    .unwrap();
    assert!(ours.converged(), "{name}: {:?}", ours.reports());
    let solver = if loss == Loss::Logistic { 0 } else { 2 };
    let (their_labels, theirs) = liblinear_model(&train, solver, file, d, dir);
    for (k, (w, w_bias)) in theirs.iter().enumerate() {
        // LIBLINEAR's k-th model separates its k-th label (the first seen, for two classes).
        let label = their_labels[k];
        let positive: Vec<bool> = labels.iter().map(|&l| l == label).collect();
        let theirs_f = objective(csr, &positive, w, *w_bias, loss);
        let (row, sign) = if ours.classes().len() == 2 {
            (
                0,
                if label == ours.classes()[1] {
                    1.0
                } else {
                    -1.0
                },
            )
        } else {
            (
                ours.classes().iter().position(|&c| c == label).unwrap(),
                1.0,
            )
        };
        let our_w: Vec<f64> = ours.weights().row(row).iter().map(|v| sign * v).collect();
        let ours_f = objective(csr, &positive, &our_w, sign * ours.intercepts()[row], loss);
        let relative = (ours_f - theirs_f).abs() / theirs_f;
        eprintln!("{name} -s {solver} class {label}: ours {ours_f:.10} LIBLINEAR {theirs_f:.10} ({relative:.2e})");
        assert!(
            relative < TOLERANCE,
            "{name} -s {solver} class {label}: {ours_f} vs {theirs_f}"
        );
    }
}

fn both_losses(name: &str, csr: &CsrMatrix, labels: &[i64], dense: bool) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("train");
    write_libsvm(csr, labels, &file);
    let matrix: Array2<f64> = csr.to_dense();
    for loss in [Loss::SquaredHinge, Loss::Logistic] {
        let rows: Rows<'_> = if dense {
            matrix.view().into()
        } else {
            csr.into()
        };
        compare(name, rows, csr, labels, &file, dir.path(), loss);
    }
}

#[test]
fn primal_objectives_match_liblinear_on_adult() {
    let Some(dir) = adult_dir() else {
        skip("Adult (a9a) not found; set RFBENCH_MIRROR to its directory");
        return;
    };
    let (x, y) = read_libsvm(&dir.join("a9a"), ADULT_DIM);
    both_losses("a9a", &x, &y, false);
}

#[test]
fn primal_objectives_match_liblinear_on_the_tutorials_shape() {
    let params = MakeClassification {
        n: 75_000,
        ..Default::default()
    };
    let data = make_classification(&params, 0).unwrap();
    let labels: Vec<i64> = data.y.iter().map(|&v| v as i64).collect();
    both_losses("make_classification 75000x20", &data.x, &labels, true);
}

#[test]
fn primal_objectives_match_liblinear_on_four_classes() {
    let params = MakeClassification {
        n: 4000,
        n_informative: 5,
        n_classes: 4,
        n_clusters_per_class: 1,
        ..Default::default()
    };
    let data = make_classification(&params, 1).unwrap();
    let labels: Vec<i64> = data.y.iter().map(|&v| v as i64).collect();
    both_losses("four classes 4000x20", &data.x, &labels, true);
}
