//! Exact kernel ridge with lambda by 5-fold cross-validation over 21 candidates, on rows shaped
//! like Table 2's Insurance (5,822 training rows, 4,000 test rows, d = 85, Gaussian kernel): ours,
//! timed, for `scripts/perf/kernel_ridge_cv_sklearn.py`, which runs scikit-learn's
//! `GridSearchCV(KernelRidge)` on the same rows, the same folds and the same candidates,
//! interleaved with this program.
//!
//! `cargo run --release -p rfbench-learners --example kernel_ridge_vs_sklearn -- DIR`
//!
//! The first run writes the rows (`x_train.csv`, `y_train.csv`, `x_test.csv`, `y_test.csv`, seeded
//! synthetic regression: a sum of sines of five features plus noise) and the fold of each
//! training row (`folds.csv`, [`CrossValidation::fold_of_row`]) to DIR; every run prints one line:
//! `seconds lambda test_rmse`, the seconds covering the cross-validation and the final fit.
//! Targets are not centred and the grid is exactly 2^-10..2^10 (no extension), as scikit-learn's
//! `KernelRidge` (no intercept) and a fixed `param_grid` do.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::{default_lambda_grid, CrossValidation, Kernel, KernelRidgeParams};

const D: usize = 85;
const TRAIN: usize = 5822;
const TEST: usize = 4000;
/// The Gaussian kernel's sigma; scikit-learn's `gamma` is `1 / (2 sigma^2)`.
const SIGMA: f64 = 9.219544457292887; // sqrt(85)

fn rows(n: usize, rng: &mut ChaCha8Rng) -> (Array2<f64>, Array2<f64>) {
    let x = Array2::from_shape_fn((n, D), |_| rng.random_range(-1.0..1.0));
    let y = Array2::from_shape_fn((n, 1), |(i, _)| {
        x.row(i).iter().take(5).map(|v: &f64| v.sin()).sum::<f64>() + rng.random_range(-0.3..0.3)
    });
    (x, y)
}

fn write(path: &Path, a: &Array2<f64>) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for row in a.rows() {
        let fields: Vec<String> = row.iter().map(|v| format!("{v:?}")).collect();
        writeln!(out, "{}", fields.join(","))?;
    }
    out.flush()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: kernel_ridge_vs_sklearn DIR")?;
    let dir = Path::new(&dir);
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let (x_train, y_train) = rows(TRAIN, &mut rng);
    let (x_test, y_test) = rows(TEST, &mut rng);
    let cv = CrossValidation {
        grid: default_lambda_grid(),
        folds: 5,
        seed: 0,
        limits: None,
    };
    if !dir.join("folds.csv").exists() {
        std::fs::create_dir_all(dir)?;
        write(&dir.join("x_train.csv"), &x_train)?;
        write(&dir.join("y_train.csv"), &y_train)?;
        write(&dir.join("x_test.csv"), &x_test)?;
        write(&dir.join("y_test.csv"), &y_test)?;
        let folds = Array2::from_shape_fn((TRAIN, 1), |(i, _)| cv.fold_of_row(i) as f64);
        write(&dir.join("folds.csv"), &folds)?;
    }
    let kernel = Kernel::gaussian(SIGMA)?;
    let params = KernelRidgeParams::new().center_targets(false).check()?;
    let start = Instant::now();
    let (model, search) = params.fit_cross_validated(kernel, &x_train, y_train.view(), &cv)?;
    let seconds = start.elapsed().as_secs_f64();
    let predicted = model.predict(&x_test)?;
    let rmse = ((&predicted - &y_test).mapv(|e| e * e).sum() / TEST as f64).sqrt();
    println!("{seconds:.3} {} {rmse:.10}", search.chosen);
    Ok(())
}
