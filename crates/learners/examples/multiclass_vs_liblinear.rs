//! Timing of our one-vs-rest dual coordinate descent on a 10-class problem against LIBLINEAR,
//! with the classes solved on 1 thread and on 2 threads (rayon), same data and settings.
//!
//! Data: the first 10,000 training images of Fashion-MNIST (Debian package
//! `dataset-fashion-mnist`, `/usr/share/datasets/fashion-mnist`, or `FASHION_MNIST_DIR`), pixels
//! scaled to `[0, 1]` (784 columns, about half non-zero), tested on the 10,000 test images. Both
//! programs read the same LIBSVM-format files written here (4 decimals). Settings: `C = 0.01`
//! (at `C = 1` LIBLINEAR needs over 100 s and hits its 1000-iteration cap on several classes),
//! `eps = 0.1`, bias 1, `-s 1` (L2 loss) and `-s 3` (L1 loss); LIBLINEAR's multi-class default is
//! the same one-vs-rest as ours, so the sum of the 10 dual objectives is compared as a check that
//! both solve the same problems.
//!
//! Training time as in `adult_vs_liblinear`: LIBLINEAR's process time at `eps = 0.1` minus that at
//! a tolerance so loose that each class stops after one pass (which leaves out reading the file
//! and writing the model); ours is measured the same way, on one thread and on two. Each time is
//! the median of `repeats` runs (default 3) after a warm-up.
//!
//! `cargo run --release -p rfbench-learners --example multiclass_vs_liblinear [repeats]`

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use flate2::read::GzDecoder;
use rfbench_learners::{metrics, LinearSvmParams, SvmLoss};
use support::{liblinear_tools, number_after, read_libsvm};

const PIXELS: usize = 784;
const C: f64 = 0.01;

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    GzDecoder::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .read_to_end(&mut out)
        .expect("gzip stream");
    out
}

/// The first `n` images (16-byte IDX header) and labels (8-byte header) as a LIBSVM file.
fn write_libsvm(images: &Path, labels: &Path, n: usize, out: &Path) {
    let (images, labels) = (gunzip(images), gunzip(labels));
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    for i in 0..n {
        write!(file, "{}", labels[8 + i]).unwrap();
        let row = &images[16 + i * PIXELS..16 + (i + 1) * PIXELS];
        for (j, &p) in row.iter().enumerate().filter(|(_, &p)| p > 0) {
            write!(file, " {}:{:.4}", j + 1, f64::from(p) / 255.0).unwrap();
        }
        writeln!(file).unwrap();
    }
}

fn time_it(repeats: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<Duration> = (0..repeats)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2].as_secs_f64()
}

/// CPU time (user + system) of this process so far, from `/proc/self/stat` (Linux reports it in
/// units of `USER_HZ` = 1/100 s): with the wall time it shows how many cores a run really got,
/// which on a shared machine can be fewer than the threads asked for.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<f64> = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse().ok())
        .collect();
    fields.iter().sum::<f64>() / 100.0
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map_or(3, |a| a.parse().expect("repeats: a positive integer"));
    let dir = std::env::var_os("FASHION_MNIST_DIR").map_or_else(
        || PathBuf::from("/usr/share/datasets/fashion-mnist"),
        PathBuf::from,
    );
    let (Some(tools), true) = (
        liblinear_tools(),
        dir.join("t10k-labels-idx1-ubyte.gz").is_file(),
    ) else {
        eprintln!(
            "needs Fashion-MNIST (apt-get install dataset-fashion-mnist, or FASHION_MNIST_DIR) \
             and liblinear-train (apt-get install liblinear-tools)"
        );
        std::process::exit(2);
    };
    let work = std::env::temp_dir().join(format!("rfbench-multiclass-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("temporary directory");
    let (train, test, model) = (work.join("train"), work.join("test"), work.join("model"));
    write_libsvm(
        &dir.join("train-images-idx3-ubyte.gz"),
        &dir.join("train-labels-idx1-ubyte.gz"),
        10_000,
        &train,
    );
    write_libsvm(
        &dir.join("t10k-images-idx3-ubyte.gz"),
        &dir.join("t10k-labels-idx1-ubyte.gz"),
        10_000,
        &test,
    );
    let (x, y) = read_libsvm(&train, PIXELS);
    let (xt, yt) = read_libsvm(&test, PIXELS);
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let loose = 1e9;

    println!(
        "Fashion-MNIST 10,000 x 784, 10 classes one-vs-rest, C {C}, eps 0.1, bias 1; \
         training time beyond the first pass, median of {repeats}"
    );
    for (loss, solver) in [(SvmLoss::L2, 1), (SvmLoss::L1, 3)] {
        let liblinear = |eps: f64| {
            let out = Command::new(&tools.0)
                .args(["-s", &solver.to_string(), "-c", &C.to_string(), "-B", "1"])
                .args(["-e", &eps.to_string()])
                .arg(&train)
                .arg(&model)
                .output()
                .expect("liblinear-train runs");
            assert!(out.status.success());
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let log = liblinear(0.1);
        let their_objective: f64 = log
            .lines()
            .filter_map(|l| number_after(l, "Objective value ="))
            .sum();
        let predicted = Command::new(&tools.1)
            .arg(&test)
            .arg(&model)
            .arg(work.join("pred"))
            .output()
            .expect("liblinear-predict runs");
        let their_accuracy =
            number_after(&String::from_utf8_lossy(&predicted.stdout), "Accuracy =").unwrap();
        let fit = |eps: f64| {
            LinearSvmParams::new()
                .loss(loss)
                .c(C)
                .eps(eps)
                .fit(&x, &y)
                .unwrap()
        };
        let svm = pools[0].install(|| fit(0.1));
        let our_objective: f64 = svm.reports().iter().map(|r| r.objective).sum();
        let accuracy = 100.0 * metrics::accuracy(&yt, &svm.predict(&xt).unwrap()).unwrap();

        let their = time_it(repeats, || {
            liblinear(0.1);
        }) - time_it(repeats, || {
            liblinear(loose);
        });
        let mut cores = Vec::new();
        let ours: Vec<f64> = pools
            .iter()
            .map(|pool| {
                pool.install(|| {
                    let (cpu, wall) = (cpu_seconds(), Instant::now());
                    let full = time_it(repeats, || {
                        fit(0.1);
                    });
                    cores.push((cpu_seconds() - cpu) / wall.elapsed().as_secs_f64());
                    full - time_it(repeats, || {
                        fit(loose);
                    })
                })
            })
            .collect();
        println!(
            "{loss:?} (-s {solver}): sum of dual objectives ours {our_objective:.4} LIBLINEAR \
             {their_objective:.4}; test accuracy ours {accuracy:.2}% LIBLINEAR \
             {their_accuracy:.2}%\n  LIBLINEAR {their:.3} s; ours 1 thread {:.3} s (ratio {:.2}), \
             2 threads {:.3} s (ratio {:.2}); speed-up 1 -> 2 threads {:.2}; cores actually \
             used (CPU time / wall time of the eps 0.1 fits) {:.2} and {:.2}",
            ours[0],
            ours[0] / their,
            ours[1],
            ours[1] / their,
            ours[0] / ours[1],
            cores[0],
            cores[1]
        );
    }
    std::fs::remove_dir_all(&work).ok();
}
