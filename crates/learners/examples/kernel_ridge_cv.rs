//! Issue 28's first before/after for exact kernel ridge with lambda by cross-validation: each
//! fold's training block `K_TT` was eigendecomposed once and shared by every lambda, and the
//! decomposition moved from LAPACK's QR-iteration driver `dsyev` (ndarray-linalg's `eigh`) to the
//! divide-and-conquer `dsyevd` ([`rfbench_maps::sym_eig::eigh`]). The learner has since replaced
//! the eigendecomposition by the cheaper tridiagonal reduction (`dsytrd`, see the learners'
//! `tridiagonal` module); the last line below times the whole search as the learner now runs it.
//!
//! On synthetic regression rows shaped like Table 2's Insurance (n rows, d = 85, Gaussian kernel,
//! sigma = the square root of d), with 5 folds (each training block 4n/5 square):
//!
//! - both drivers on the same fold blocks, interleaved (dsyev, dsyevd, dsyev, dsyevd, ...), with
//!   the largest difference between their eigenvalues;
//! - the whole `cross_validate_lambda` (kernel matrix, 5 tridiagonal reductions, every lambda), as the
//!   learner now runs it.
//!
//! `cargo run --release -p rfbench-learners --example kernel_ridge_cv -- [n] [rounds]`
//! (default n = 3000, 2 rounds). Both drivers run on the same OpenBLAS, with its threads.

use std::time::Instant;

use ndarray::Array2;
use ndarray_linalg::{Eigh, UPLO};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::{kernel_matrix, CrossValidation, Kernel, KernelRidgeParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let n = args.first().copied().unwrap_or(3000);
    let rounds = args.get(1).copied().unwrap_or(2);
    let d = 85;
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let x = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
    let y = Array2::from_shape_fn((n, 1), |(i, _)| {
        x.row(i).iter().take(5).map(|v: &f64| v.sin()).sum::<f64>() + rng.random_range(-0.3..0.3)
    });
    let kernel = Kernel::gaussian((d as f64).sqrt())?;
    let train = n * 4 / 5;
    let full = kernel_matrix(&kernel, (&x).into(), (&x).into());
    let block = full.slice(ndarray::s![..train, ..train]).to_owned();
    println!("n = {n}, d = {d}, one fold block {train} x {train}, {rounds} rounds, interleaved");
    let (mut qr, mut dc) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let start = Instant::now();
        let (e_qr, _) = block.eigh(UPLO::Lower)?;
        qr.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let (e_dc, _) = rfbench_maps::sym_eig::eigh(block.clone())?;
        dc.push(start.elapsed().as_secs_f64());
        let worst = e_qr
            .iter()
            .zip(&e_dc)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!(
            "round {round}: dsyev {:.2} s, dsyevd {:.2} s, largest eigenvalue difference {worst:.1e} \
             (largest eigenvalue {:.1})",
            qr[round],
            dc[round],
            e_dc[train - 1]
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (m_qr, m_dc) = (median(&mut qr), median(&mut dc));
    println!(
        "median: dsyev {m_qr:.2} s, dsyevd {m_dc:.2} s: {:.1}x",
        m_qr / m_dc
    );

    let params = KernelRidgeParams::new().check()?;
    let cv = CrossValidation::default();
    let start = Instant::now();
    let search = params.cross_validate_lambda(&kernel, &x, y.view(), &cv)?;
    println!(
        "cross_validate_lambda, 5 folds, {} lambdas: {:.1} s (lambda {} chosen, validation MSE {:.4})",
        search.scores.len(),
        start.elapsed().as_secs_f64(),
        search.chosen,
        search
            .scores
            .iter()
            .find(|(l, _)| *l == search.chosen)
            .map_or(f64::NAN, |(_, s)| *s)
    );
    Ok(())
}
