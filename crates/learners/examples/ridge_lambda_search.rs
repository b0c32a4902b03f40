//! Issue 16's before/after on a real set: the ridge classifier on Adult (a9a, a9a.t) with random
//! Fourier features (Gaussian kernel, sigma = 3, D = 500, seed 0), lambda chosen by 5-fold
//! cross-validation (seed 0) with
//!
//! - before: the papers' fixed grid 2^-15..=2^1 (the default until issue 16);
//! - after: the default search, 2^-10..=2^10 extended by x2 / /2 while the best value is at an
//!   edge, up to 2^-30..=2^30.
//!
//! For each: the lambda chosen, whether it is at an edge of the range searched, its validation
//! MSE (on the +1/-1 one-vs-rest targets, the criterion the search minimises), how many values
//! were searched, and the test accuracy of the model refitted on all training rows.
//!
//! `cargo run --release -p rfbench-learners --example ridge_lambda_search`
//!
//! Sigma = 3 is of the order of the distances between a9a rows (about 14 ones among 123 binary
//! features per row, so squared distances up to ~28); the point here is the lambda search, not
//! the bandwidth. Without the files (`RFBENCH_MIRROR` or `shared/datasets/adult`) it says so and
//! exits with status 2.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use rfbench_learners::{
    metrics, papers_lambda_grid, CrossValidation, RidgeClassifierParams, RidgeParams,
};
use rfbench_maps::{FeatureMap, RandomFourierParams, ShiftInvariantKernel};
use support::{adult_dir, read_libsvm, ADULT_DIM};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = adult_dir() else {
        eprintln!("needs Adult (a9a, a9a.t): set RFBENCH_MIRROR to their directory");
        std::process::exit(2);
    };
    let (x_train, y_train) = read_libsvm(&dir.join("a9a"), ADULT_DIM);
    let (x_test, y_test) = read_libsvm(&dir.join("a9a.t"), ADULT_DIM);
    let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(3.0)?, 500)
        .seed(0)
        .fit(ADULT_DIM)?;
    let z_train = map.transform(&x_train)?;
    let z_test = map.transform(&x_test)?;
    println!(
        "Adult: {} training rows, {} test rows; RFF Gaussian sigma 3, D = 500, seed 0; 5 folds",
        z_train.nrows(),
        z_test.nrows()
    );

    let searches = [
        (
            "before: papers' grid 2^-15..2^1, fixed",
            CrossValidation {
                grid: papers_lambda_grid(),
                limits: None,
                ..Default::default()
            },
        ),
        (
            "after:  2^-10..2^10, extending to 2^-30..2^30",
            CrossValidation::default(),
        ),
    ];
    for (name, cv) in searches {
        let start = Instant::now();
        let model = RidgeClassifierParams::new(RidgeParams::new().cross_validation(cv))
            .fit(z_train.view(), &y_train)?;
        let seconds = start.elapsed().as_secs_f64();
        let search = model
            .ridge()
            .lambda_search()
            .expect("cross-validated fits report their search");
        let cv_mse = search
            .scores
            .iter()
            .find(|(lambda, _)| *lambda == search.chosen)
            .map(|&(_, mse)| mse)
            .expect("the chosen value was scored");
        let predicted = model.predict(z_test.view())?;
        let accuracy = metrics::accuracy(&y_test, &predicted)?;
        println!(
            "{name}: lambda = 2^{:.0} ({}), at edge: {}, CV MSE {cv_mse:.5}, {} values searched, \
             test accuracy {:.2}% ({seconds:.1} s)",
            search.chosen.log2(),
            search.chosen,
            search.at_edge,
            search.scores.len(),
            100.0 * accuracy
        );
    }
    Ok(())
}
