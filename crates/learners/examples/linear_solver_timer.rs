//! Times one training of a linear model on rows written by `scripts/perf/linear_solvers_vs_sklearn.py`
//! (which alternates these runs with scikit-learn's and LIBLINEAR's on the same rows), optionally
//! on random features of them.
//!
//! Usage: `linear_solver_timer ROWS LABELS N D MODEL [FEATURES]`
//! - `ROWS`: raw little-endian `f64`, `N x D`, row-major; `LABELS`: raw little-endian `i64`;
//! - `MODEL`: `svm-dual`, `svm-primal`, `svm-auto` (squared hinge, C = 1, `-B 1`, LIBLINEAR's
//!   default tolerances) or `logistic` (C = 1, `-B 1`, eps 0.01);
//! - `FEATURES`: `rff:D:SIGMA` (Gaussian random Fourier features, paired form, seed 1) or
//!   `ts:D:P` (Tensor Sketch of `(<x,y> + 1)^P`, seed 1), computed before the clock starts.
//!
//! Prints one line: `seconds solver objective train_accuracy iterations`, the objective summed
//! over the sub-problems (the dual objective for the dual solver, the primal one otherwise).

use ndarray::Array2;
use rfbench_learners::{LinearModel, LinearSvmParams, LogisticRegressionParams, Solver};
use rfbench_maps::{
    FeatureMap, FourierForm, RandomFourierParams, ShiftInvariantKernel, TensorSketchParams,
};

fn read_raw<const W: usize, T>(path: &str, parse: fn([u8; W]) -> T) -> Vec<T> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(W)
        .map(|b| parse(b.try_into().unwrap()))
        .collect()
}

fn features(x: Array2<f64>, spec: Option<&str>) -> Result<Array2<f64>, Box<dyn std::error::Error>> {
    let Some(spec) = spec else { return Ok(x) };
    let parts: Vec<&str> = spec.split(':').collect();
    let d = x.ncols();
    Ok(match parts.as_slice() {
        ["rff", n, sigma] => {
            let kernel = ShiftInvariantKernel::gaussian(sigma.parse()?)?;
            let map = RandomFourierParams::new(kernel, n.parse()?)
                .form(FourierForm::Paired)
                .seed(1)
                .fit(d)?;
            map.transform(&x)?
        }
        ["ts", n, p] => {
            let map = TensorSketchParams::new(p.parse()?, n.parse()?)
                .offset(1.0)
                .seed(1)
                .fit(d)?;
            map.transform(&x)?
        }
        _ => return Err(format!("unknown features {spec:?}: rff:D:SIGMA or ts:D:P").into()),
    })
}

fn train(
    model: &str,
    x: &Array2<f64>,
    y: &[i64],
) -> Result<LinearModel, Box<dyn std::error::Error>> {
    let svm = |solver| LinearSvmParams::new().solver(solver).fit(x.view(), y);
    Ok(match model {
        "svm-dual" => svm(Solver::Dual)?,
        "svm-primal" => svm(Solver::Primal)?,
        "svm-auto" => svm(Solver::Auto)?,
        "logistic" => LogisticRegressionParams::new().fit(x.view(), y)?,
        other => return Err(format!("unknown model {other:?}").into()),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 6 {
        return Err("usage: linear_solver_timer ROWS LABELS N D MODEL [FEATURES]".into());
    }
    let (n, d): (usize, usize) = (args[3].parse()?, args[4].parse()?);
    let x = Array2::from_shape_vec((n, d), read_raw::<8, f64>(&args[1], f64::from_le_bytes))?;
    let y = read_raw::<8, i64>(&args[2], i64::from_le_bytes);
    let x = features(x, args.get(6).map(String::as_str))?;
    let start = std::time::Instant::now();
    let model = train(&args[5], &x, &y)?;
    let seconds = start.elapsed().as_secs_f64();
    let predicted = model.predict(x.view())?;
    let correct = predicted.iter().zip(&y).filter(|(a, b)| a == b).count();
    let objective: f64 = model.reports().iter().map(|r| r.objective).sum();
    let iterations: usize = model.reports().iter().map(|r| r.iterations).sum();
    println!(
        "{seconds:.6} {} {objective:.6} {:.4} {iterations}",
        model.solver().name(),
        100.0 * correct as f64 / n as f64
    );
    Ok(())
}
