//! Memory and time of the streamed ridge classifier at Forest (Covertype) scale: `n = 522,910`
//! rows, `d = 54` inputs, Gaussian random Fourier features with `D = 5000` computed on the fly a
//! block of rows at a time, 7 classes one-vs-rest (`+1/-1` targets) sharing one Cholesky
//! factorisation. The point is that `n x D` (21 GB here) is never held: memory is `O(D^2)`
//! (`Z'Z` and its factor, 200 MB each) plus one block of features, whatever `n`.
//!
//! Forest itself cannot be fetched offline, so the rows are synthetic and shaped like it: 10
//! standard normal "continuous" columns, a one-hot group of 4 ("wilderness area") and one of 40
//! ("soil type"); labels are the arg-max of a fixed random linear score of the row plus noise, so
//! the classes are learnable but not separable. Each block of rows is generated from its own seed,
//! so the data do not depend on the thread count. A further 20,000 rows (seeds 1..=10, the
//! training blocks use 1000 onwards) are a test set, also featurised in blocks; its accuracy is
//! printed to show the model is the real thing.
//!
//! `cargo run --release -p rfbench-learners --example forest_memory -- [n] [D] [block_rows]`
//!
//! Prints the time to accumulate `Z'Z`, `Z'Y` (features included), the time to solve, the test
//! accuracy, and the peak resident set size (`VmHWM` of `/proc/self/status`).

use std::cell::Cell;
use std::time::Instant;

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rfbench_learners::{metrics, LearnerError, RidgeClassifierParams, RidgeParams};
use rfbench_maps::{FeatureMap, RandomFourierParams, ShiftInvariantKernel};

const FOREST_ROWS: usize = 522_910;
const DIM: usize = 54;
const CLASSES: i64 = 7;

/// The fixed random scoring rule: one weight row per class.
fn rule() -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(54);
    Array2::from_shape_fn((CLASSES as usize, DIM), |_| rng.sample(StandardNormal))
}

/// `rows` synthetic Forest-shaped rows and their labels, from seed `seed`.
fn block(seed: u64, rows: usize, rule: &Array2<f64>) -> (Array2<f64>, Vec<i64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x = Array2::zeros((rows, DIM));
    let mut labels = Vec::with_capacity(rows);
    for mut row in x.rows_mut() {
        for j in 0..10 {
            row[j] = rng.sample(StandardNormal);
        }
        row[10 + rng.random_range(0..4)] = 1.0;
        row[14 + rng.random_range(0..40)] = 1.0;
        let scores = rule.dot(&row);
        let mut best = (0, f64::NEG_INFINITY);
        for (c, s) in scores.iter().enumerate() {
            let noisy = s + 0.5 * rng.sample::<f64, _>(StandardNormal);
            if noisy > best.1 {
                best = (c, noisy);
            }
        }
        labels.push(best.0 as i64);
    }
    (x, labels)
}

/// Peak resident set size in MiB, from `/proc/self/status` (Linux).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() -> Result<(), LearnerError> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments: [n] [D] [block_rows]"))
        .collect();
    let n = args.first().copied().unwrap_or(FOREST_ROWS);
    let d_out = args.get(1).copied().unwrap_or(5000);
    let block_rows = args.get(2).copied().unwrap_or(2048);
    let rule = rule();
    // sigma: the median distance between rows of this data is about sqrt(2 * 12) ~ 5.
    let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(3.0)?, d_out)
        .seed(7)
        .fit(DIM)?;
    let lambda = 1e-3;
    println!(
        "n {n}, d {DIM}, D {d_out}, {CLASSES} classes, blocks of {block_rows} rows, lambda {lambda}, \
         {} rayon threads; peak RSS before fitting {:.0} MiB",
        rayon::current_num_threads(),
        peak_rss_mib().unwrap_or(f64::NAN)
    );

    let start = Instant::now();
    let n_blocks = n.div_ceil(block_rows);
    // Time spent making rows and features, and the moment the last block has been accumulated
    // (the iterator is asked for one more item only after `add_block` of the last one).
    let feature_seconds = Cell::new(0.0);
    let accumulated = Cell::new(None);
    let blocks = (0..n_blocks)
        .map(|b| {
            let t = Instant::now();
            let rows = block_rows.min(n - b * block_rows);
            let (x, labels) = block(1000 + b as u64, rows, &rule);
            let z = map.transform(x.view())?;
            feature_seconds.set(feature_seconds.get() + t.elapsed().as_secs_f64());
            Ok::<_, LearnerError>((z, labels))
        })
        .chain(std::iter::from_fn(|| {
            accumulated.set(Some(Instant::now()));
            None
        }));
    let classes: Vec<i64> = (0..CLASSES).collect();
    let params = RidgeClassifierParams::new(RidgeParams::new().lambda(lambda));
    let model = params.fit_blocks(&classes, d_out, blocks)?;
    let fit_seconds = start.elapsed().as_secs_f64();
    let peak = peak_rss_mib().unwrap_or(f64::NAN);
    let accumulated = accumulated.get().expect("all blocks consumed");
    let accumulate_seconds = (accumulated - start).as_secs_f64();
    println!(
        "rows and features {:.1} s, Z'Z and Z'Y accumulation {:.1} s ({:.1} G n D^2 / s), \
         Cholesky solve {:.1} s",
        feature_seconds.get(),
        accumulate_seconds - feature_seconds.get(),
        (n as f64 * (d_out * d_out) as f64) / (accumulate_seconds - feature_seconds.get()) / 1e9,
        accumulated.elapsed().as_secs_f64()
    );

    // Test rows in blocks too: 20,000 x D features at once would dwarf the fit's memory.
    let (mut yt, mut predicted) = (Vec::new(), Vec::new());
    for b in 0..10 {
        let (xt, labels) = block(1 + b, 2000, &rule);
        predicted.extend(model.predict(map.transform(xt.view())?.view())?);
        yt.extend(labels);
    }
    let accuracy = 100.0 * metrics::accuracy(&yt, &predicted)?;
    let peak_after = peak_rss_mib().unwrap_or(f64::NAN);
    println!(
        "fit (features + Z'Z accumulation + solve) {fit_seconds:.1} s; test accuracy {accuracy:.2}% \
         on 20,000 held-out rows; peak RSS during the fit {peak:.0} MiB, after testing \
         {peak_after:.0} MiB (n x D would be {:.0} MiB)",
        (n * d_out * 8) as f64 / (1 << 20) as f64
    );
    Ok(())
}
