//! Timing of our dual coordinate descent against LIBLINEAR on Adult (a9a), same settings
//! (`C = 1`, `eps = 0.1`, `-B 1`), L1-loss (`-s 3`) and L2-loss (`-s 1`), single-threaded.
//!
//! `cargo run --release -p rfbench-learners --example adult_vs_liblinear [repeats]`
//!
//! LIBLINEAR is timed as a process (read the file, train, write the model), so two ratios are
//! printed: whole process against our read + train, and training alone, where LIBLINEAR's training
//! time is estimated as its process time minus that of a run with a tolerance so loose it stops
//! after one pass (reading, one pass and writing the model), and ours is measured the same way.
//! Each time is the median of `repeats` runs (default 5) after one warm-up run.

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rfbench_learners::{LinearSvmParams, SvmLoss};
use support::{adult_dir, liblinear_tools, read_libsvm, ADULT_DIM};

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64()
}

fn time_it(repeats: usize, mut f: impl FnMut()) -> f64 {
    f();
    median(
        (0..repeats)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// What a `liblinear-train` process does, minus writing the model: read the file, train.
fn read_and_train(path: &Path, loss: SvmLoss, eps: f64) -> usize {
    let (x, y) = read_libsvm(path, ADULT_DIM);
    LinearSvmParams::new()
        .loss(loss)
        .eps(eps)
        .fit(&x, &y)
        .unwrap()
        .reports()[0]
        .iterations
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map_or(5, |a| a.parse().expect("repeats: a positive integer"));
    let (Some(dir), Some(tools)) = (adult_dir(), liblinear_tools()) else {
        eprintln!(
            "needs Adult (RFBENCH_MIRROR) and liblinear-train (apt-get install liblinear-tools)"
        );
        std::process::exit(2);
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("first pool");
    let train = dir.join("a9a");
    let work = std::env::temp_dir().join(format!("rfbench-liblinear-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("temporary directory");
    let model = work.join("model");
    let (x, y) = read_libsvm(&train, ADULT_DIM);
    let loose = 1e9;

    println!(
        "loss: time ours (read + train) / LIBLINEAR process = ratio; \
         training beyond the first pass: ours / LIBLINEAR = ratio; ours train alone"
    );
    for (loss, solver) in [(SvmLoss::L1, 3), (SvmLoss::L2, 1)] {
        let liblinear = |eps: f64| {
            let status = Command::new(&tools.0)
                .args(["-q", "-s", &solver.to_string(), "-c", "1", "-B", "1"])
                .args(["-e", &eps.to_string()])
                .arg(&train)
                .arg(&model)
                .status()
                .expect("liblinear-train runs");
            assert!(status.success());
        };
        let fit = |eps: f64| {
            LinearSvmParams::new()
                .loss(loss)
                .eps(eps)
                .fit(&x, &y)
                .unwrap()
        };
        let their_total = time_it(repeats, || liblinear(0.1));
        let their_one_pass = time_it(repeats, || liblinear(loose));
        let our_total = time_it(repeats, || {
            read_and_train(&train, loss, 0.1);
        });
        let our_train = time_it(repeats, || {
            fit(0.1);
        });
        let our_one_pass = time_it(repeats, || {
            fit(loose);
        });
        let their_train = their_total - their_one_pass;
        let our_train_beyond = our_train - our_one_pass;
        println!(
            "{loss:?}: {our_total:.3} s / {their_total:.3} s = {:.2}; \
             {our_train_beyond:.3} s / {their_train:.3} s = {:.2}; ours train alone {our_train:.3} s",
            our_total / their_total,
            our_train_beyond / their_train,
        );
    }
    std::fs::remove_dir_all(&work).ok();
}
