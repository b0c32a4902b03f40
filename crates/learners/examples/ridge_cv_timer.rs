//! Issue 28's timing of ridge's lambda search on features: 5-fold cross-validation over the
//! default 21 values (`2^-10..=2^10`, extended while the best is at an edge), then the final fit,
//! on synthetic features of width D (uniform in [-1, 1]) with `k` outputs.
//!
//! `cargo run --release -p rfbench-learners --example ridge_cv_timer -- N K D...`
//! (default 20000 rows, 1 output, D = 500 1000 2000). Prints, per D, the seconds of the whole
//! `fit` (accumulating Z'Z included), the lambda chosen and how many values were searched.

use std::time::Instant;

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::{CrossValidation, RidgeParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let n = args.first().copied().unwrap_or(20_000);
    let k = args.get(1).copied().unwrap_or(1);
    let widths = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        vec![500, 1000, 2000]
    };
    for d in widths {
        let mut rng = ChaCha8Rng::seed_from_u64(d as u64);
        let z = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
        let truth = Array2::from_shape_fn((d, k), |_| rng.random_range(-1.0..1.0));
        let y = z.dot(&truth) + Array2::from_shape_fn((n, k), |_| rng.random_range(-3.0..3.0));
        let start = Instant::now();
        let model = RidgeParams::new()
            .cross_validation(CrossValidation::default())
            .fit(z.view(), y.view())?;
        println!(
            "n {n} k {k} D {d}: {:.3} s, lambda {}, {} values searched",
            start.elapsed().as_secs_f64(),
            model.lambda(),
            model.cv_scores().len()
        );
    }
    Ok(())
}
