//! PRFF's fit time at PRFF Fig. 2's setting (issue 45): 10,000 rows (the MNIST-like matrix of
//! the shift-invariant bench, 780 columns), batch 128, 100 descent steps per feature (tolerance
//! 0, so every fit does all of them), for each `M` given; prints the seconds and a fingerprint of
//! the learnt frequencies, so two builds can be timed against each other and shown to learn the
//! same map bit for bit.
//!
//! Usage: `cargo run --release -p rfbench-maps --example prff_fit [n_rows] [M ...]`
//! (defaults: 10,000 rows, M = 250 500 1000). Threads: `RAYON_NUM_THREADS`.

use std::time::Instant;

use rfbench_maps::PrffParams;

#[path = "../benches/support/mnist_like.rs"]
mod mnist_like;

const SIGMA: f64 = 1.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n_rows: usize = args.next().map_or(Ok(10_000), |v| v.parse())?;
    let mut ms: Vec<usize> = args.map(|v| v.parse()).collect::<Result<_, _>>()?;
    if ms.is_empty() {
        ms = vec![250, 500, 1000];
    }
    let x = mnist_like::mnist_like(n_rows);
    for m in ms {
        let start = Instant::now();
        let map = PrffParams::new(SIGMA, m)
            .learning_rate(50.0)
            .max_iterations(100)
            .tolerance(0.0)
            .seed(1)
            .fit(&x)?;
        let seconds = start.elapsed().as_secs_f64();
        // FNV-1a over the frequencies' bits, features in order.
        let fingerprint = (0..m)
            .flat_map(|l| map.frequency(l).to_vec())
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, v| {
                (h ^ v.to_bits()).wrapping_mul(0x100_0000_01b3)
            });
        println!(
            "{} x {}, M = {m}, {} threads: fit {seconds:.3} s, fingerprint {fingerprint:#018x}",
            x.nrows(),
            x.ncols(),
            rayon::current_num_threads(),
        );
    }
    Ok(())
}
