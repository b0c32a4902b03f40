//! PRFF's transform against RFF's at the same D (issue 45): both phase form, `D = 1024`, on the
//! MNIST-like matrix of the shift-invariant bench (10,000 x 780), interleaved in one process so
//! both see the same machine load; prints each side's median of `REPS` calls and their ratio.
//!
//! PRFF is fitted with no descent iterations (its transform does not depend on what it learnt:
//! learnt frequencies and phases go through the same code), which keeps the fit out of it.
//!
//! Usage: `cargo run --release -p rfbench-maps --example prff_transform [n_rows]`.

use std::time::Instant;

use rfbench_maps::{
    FeatureMap, FourierForm, PrffParams, RandomFourierParams, ShiftInvariantKernel,
};

#[path = "../benches/support/mnist_like.rs"]
mod mnist_like;

const D: usize = 1024;
const SIGMA: f64 = 4.0;
const REPS: usize = 7;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n_rows: usize = std::env::args().nth(1).map_or(Ok(10_000), |v| v.parse())?;
    let x = mnist_like::mnist_like(n_rows);
    let rff = RandomFourierParams::new(ShiftInvariantKernel::gaussian(SIGMA)?, D)
        .form(FourierForm::Phase)
        .seed(1)
        .fit(x.ncols())?;
    let prff = PrffParams::new(SIGMA, D)
        .max_iterations(0)
        .seed(1)
        .fit(&x)?;
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let (mut ours, mut reference) = (Vec::new(), Vec::new());
    for _ in 0..REPS {
        ours.push(time(&|| drop(prff.transform(&x).unwrap())));
        reference.push(time(&|| drop(rff.transform(&x).unwrap())));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (p, r) = (median(&mut ours), median(&mut reference));
    println!(
        "{} x {}, D = {D}, {} threads: PRFF {p:.4} s, RFF {r:.4} s, PRFF / RFF = {:.2}",
        x.nrows(),
        x.ncols(),
        rayon::current_num_threads(),
        p / r
    );
    Ok(())
}
