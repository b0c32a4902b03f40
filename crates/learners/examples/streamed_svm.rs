//! Time and memory of the linear SVM on random Fourier features produced block by block
//! (`LinearSvmValidParams::fit_blocks`) against the same SVM on the whole feature matrix in
//! memory: the primal Newton solver either way, and the same model (checked).
//!
//! `cargo run --release -p rfbench-learners --example streamed_svm -- MODE [n] [D] [keep_mib]`
//!
//! MODE is `memory` (map every row, then `fit` with the primal solver) or `streamed` (blocks of
//! 4,096 rows, the first `keep_mib` MiB of them kept between passes, default 0). One mode per
//! process, so that the peak resident set size (`VmHWM`) is that mode's. The rows: `n` (default
//! 200,000) of `d = 28` standard normal columns, the label the sign of a fixed quadratic score
//! plus noise, made in blocks from their own seeds. Prints the seconds to map and train, Newton
//! steps, training accuracy, a digest of the weights (equal across modes when the models are)
//! and the peak RSS.

use std::time::Instant;

use ndarray::{s, Array2};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rfbench_learners::{FeatureBlocks, LearnerError, LinearSvmParams, Solver};
use rfbench_maps::{FeatureMap, RandomFourierParams, ShiftInvariantKernel};

const DIM: usize = 28;
const BLOCK_ROWS: usize = 4096;

fn rows(n: usize) -> (Array2<f64>, Vec<i64>) {
    let mut x = Array2::zeros((n, DIM));
    let mut labels = Vec::with_capacity(n);
    for (b, mut block) in x
        .axis_chunks_iter_mut(ndarray::Axis(0), BLOCK_ROWS)
        .enumerate()
    {
        let mut rng = ChaCha8Rng::seed_from_u64(1000 + b as u64);
        for mut row in block.rows_mut() {
            row.map_inplace(|v| *v = StandardNormal.sample(&mut rng));
            let score = row[0] * row[1] + row[2] * row[2] - 1.0 + 0.3 * row[3];
            let noise: f64 = StandardNormal.sample(&mut rng);
            labels.push(i64::from(score + 0.3 * noise > 0.0));
        }
    }
    (x, labels)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn main() -> Result<(), LearnerError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: streamed_svm memory|streamed [n] [D] [keep_mib]";
    let mode = args.first().map(String::as_str).unwrap_or("");
    let number =
        |k: usize, default: usize| args.get(k).map_or(default, |a| a.parse().expect(usage));
    let (n, d_out, keep_mib) = (number(1, 200_000), number(2, 1024), number(3, 0));
    let (x, labels) = rows(n);
    let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(3.0)?, d_out)
        .seed(7)
        .fit(DIM)?;
    let params = LinearSvmParams::new()
        .c(1.0)
        .solver(Solver::Primal)
        .check()?;
    let start = Instant::now();
    let (model, map_seconds) = match mode {
        "memory" => {
            let z = map.transform(x.view())?;
            let map_seconds = start.elapsed().as_secs_f64();
            (params.fit(z.view(), &labels)?, map_seconds)
        }
        "streamed" => {
            let mapping = std::cell::Cell::new(0.0);
            let features = |r: std::ops::Range<usize>| {
                let t = Instant::now();
                let z = map.transform(x.slice(s![r, ..]))?;
                mapping.set(mapping.get() + t.elapsed().as_secs_f64());
                Ok(z)
            };
            let blocks = FeatureBlocks {
                n_rows: n,
                n_cols: d_out,
                block_rows: BLOCK_ROWS,
                features: &features,
                keep_bytes: keep_mib << 20,
            };
            (params.fit_blocks(&blocks, &labels)?, mapping.get())
        }
        _ => panic!("{usage}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let mut predicted = Vec::with_capacity(n);
    for r in (0..n).step_by(BLOCK_ROWS) {
        let z = map.transform(x.slice(s![r..(r + BLOCK_ROWS).min(n), ..]))?;
        predicted.extend(model.predict(z.view())?);
    }
    let right = predicted
        .iter()
        .zip(&labels)
        .filter(|(p, l)| p == l)
        .count();
    let digest: f64 = model
        .weights()
        .iter()
        .enumerate()
        .map(|(j, w)| w * (j % 7 + 1) as f64)
        .sum();
    println!(
        "{mode}: n {n}, D {d_out}, keep {keep_mib} MiB, {} threads: {seconds:.1} s ({map_seconds:.1} s \
         mapping), {} Newton steps, training accuracy {:.2} %, weights digest {digest:.12e}, peak RSS \
         {:.0} MiB (n x D is {:.0} MiB)",
        rayon::current_num_threads(),
        model.reports()[0].iterations,
        100.0 * right as f64 / n as f64,
        peak_rss_mib(),
        (n * d_out * 8) as f64 / (1 << 20) as f64
    );
    Ok(())
}
