//! Transform-time benchmarks of the shift-invariant maps (random Fourier features, Fastfood).
//!
//! Three questions, each answered by ratios measured in the same run:
//!
//! 1. **Random Fourier features against scikit-learn** (group `rff_vs_sklearn`): the Gaussian
//!    kernel `exp(-‖x - y‖² / (2 sigma²))` with `sigma = 1/sqrt(2)` (scikit-learn's `gamma = 1`),
//!    `D = 4000` features of the phase form `sqrt(2/D) cos(w'x + b)` (what `RBFSampler` computes),
//!    on 10,000 dense rows of `d = 780`. `scripts/perf/compare_rff_sklearn.py` times
//!    `sklearn.kernel_approximation.RBFSampler(gamma=1, n_components=4000).transform` on the very
//!    same matrix, which this bench writes to `<target>/bench-data/rff_mnist_like_10000x780.f64`
//!    (raw little-endian `f64`, row-major, no header). Measured as `transform` (allocates the
//!    `n x D` output, as scikit-learn does) on rayon's default pool, the same on a one-thread rayon
//!    pool, and `transform_into` a preallocated output. All in `f64`.
//! 2. **Fastfood against random kitchen sinks** (groups `fastfood_table1_d=<d>_n=<n>`), the shape
//!    of Le, Sarlos & Smola's Table 1: the time to map **one vector** of dimension
//!    `d ∈ {1024, 4096, 8192}` to `n ∈ {16384, 32768, 65536}` basis functions (`n` frequencies,
//!    paired form, `D = 2n` features), for Fastfood (Hadamard), Fastfood FFT (circulant) and RKS
//!    (random Fourier features, a dense `d x n` matrix). The memory of each fitted map
//!    (`memory_bytes`) goes to `<target>/bench-data/fastfood_table1_memory.csv`. RKS at
//!    `d = 8192, n = 65536` holds 4.3 GB of `f64` weights and takes a while to draw: it runs
//!    unless `RFBENCH_SKIP_LARGEST_RKS` is set (then that row reports Fastfood only).
//!    The same maps also map a **batch** of [`BATCH_ROWS`] Gaussian rows (groups
//!    `fastfood_batched_d=<d>_n=<n>`, throughput in rows per second): RKS then runs as a matrix
//!    product (tiled over frequencies, one thread per tile, which amortises reading the `d x n`
//!    matrix over the rows) while Fastfood stays row by row in parallel, so the batched ratio is
//!    the one that matters for training.
//! 3. **The FWHT's fast path against the plain radix-2 loop** (group `fwht`), sizes 1024 and
//!    8192.
//!
//! Inputs are built once, outside every timed closure, from fixed ChaCha8 seeds: "MNIST-like"
//! rows (each entry non-zero with probability 0.19, values uniform in (0, 1], unit norm) and
//! Gaussian vectors for Table 1. Benchmark ids are `<group>/<map>/<parameters>`. Flat sampling,
//! 10 samples, short warm-up and measurement: the whole run takes a few minutes on two cores
//! (most of it drawing the large RKS matrices). Run with
//! `cargo bench -p rfbench-maps --bench shift_invariant_maps`, then
//! `python3 scripts/perf/compare_rff_sklearn.py`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
    SamplingMode, Throughput,
};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rfbench_maps::{
    fwht, fwht_radix2, FastfoodParams, FastfoodTransform, FeatureMap, FourierForm,
    RandomFourierParams, ShiftInvariantKernel,
};

#[path = "support/mnist_like.rs"]
mod mnist_like;
use mnist_like::{mnist_like, MNIST_DIM};

/// Rows per transform of question 1.
const N_ROWS: usize = 10_000;
/// `D` of question 1.
const SKLEARN_COMPONENTS: usize = 4000;
/// scikit-learn's `gamma = 1 / (2 sigma²) = 1`.
const SKLEARN_SIGMA: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// (d, n) of the Fastfood paper's Table 1.
const TABLE1: [(usize, usize); 3] = [(1024, 16_384), (4096, 32_768), (8192, 65_536)];
/// The Gaussian kernel's bandwidth in Table 1 (any value gives the same times).
const TABLE1_SIGMA: f64 = 10.0;
/// Rows of the batched Fastfood / RKS comparison: enough for the product to reach its speed, few
/// enough that RKS at d = 8192, n = 65,536 (69 GFLOP per batch) keeps the run in minutes.
const BATCH_ROWS: usize = 64;
/// Map seeds: fixed, so every run times the same frequencies.
const MAP_SEED: u64 = 2007;

/// Cargo's target directory, found the way criterion finds it (so the data file sits next to
/// `criterion/`): `$CARGO_TARGET_DIR`, else `cargo metadata`, else `<workspace>/target`.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let from_metadata = std::env::var_os("CARGO").and_then(|cargo| {
        let output = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        let key = "\"target_directory\":\"";
        let start = text.find(key)? + key.len();
        let end = start + text[start..].find('"')?;
        Some(PathBuf::from(&text[start..end]))
    });
    from_metadata.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// `<target>/bench-data/<name>`, its directory created. Files are written to `<name>.part` and
/// renamed, so a reader never sees half a file.
fn bench_data_path(name: &str) -> PathBuf {
    let dir = target_dir().join("bench-data");
    std::fs::create_dir_all(&dir).expect("create bench-data directory");
    dir.join(name)
}

fn write_atomically(path: &PathBuf, bytes: &[u8]) {
    let partial = path.with_extension("part");
    std::fs::write(&partial, bytes).expect("write bench data");
    std::fs::rename(&partial, path).expect("rename bench data");
}

/// Flat sampling (every sample runs the same number of iterations, at least one) with 10
/// samples and short warm-up/measurement times.
fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, rows: usize) {
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(rows as u64));
}

/// Question 1: RFF on the data `scripts/perf/compare_rff_sklearn.py` hands to scikit-learn.
fn rff_vs_sklearn(c: &mut Criterion) {
    let x = mnist_like(N_ROWS);
    let path = bench_data_path(&format!("rff_mnist_like_{N_ROWS}x{MNIST_DIM}.f64"));
    write_atomically(
        &path,
        &x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    eprintln!("bench data: {}", path.display());
    let kernel = ShiftInvariantKernel::gaussian(SKLEARN_SIGMA).unwrap();
    let rff = RandomFourierParams::new(kernel, SKLEARN_COMPONENTS)
        .form(FourierForm::Phase)
        .seed(MAP_SEED)
        .fit(MNIST_DIM)
        .unwrap();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut out = Array2::zeros((N_ROWS, SKLEARN_COMPONENTS));
    let key = format!("d={MNIST_DIM},D={SKLEARN_COMPONENTS},n={N_ROWS}");

    let mut group = c.benchmark_group("rff_vs_sklearn");
    configure(&mut group, N_ROWS);
    group.bench_function(BenchmarkId::new("rff_transform", &key), |b| {
        b.iter_with_large_drop(|| rff.transform(&x).unwrap())
    });
    group.bench_function(BenchmarkId::new("rff_transform_1thread", &key), |b| {
        b.iter_with_large_drop(|| one_thread.install(|| rff.transform(&x).unwrap()))
    });
    group.bench_function(BenchmarkId::new("rff_transform_into", &key), |b| {
        b.iter(|| rff.transform_into(&x, out.view_mut()).unwrap())
    });
    group.finish();
}

/// Times one fitted map writing one row into a preallocated `1 x D` output.
fn bench_one_vector<M: FeatureMap>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    map: &M,
    x: &Array2<f64>,
) {
    let mut out = Array2::zeros((1, map.output_dim()));
    let id = BenchmarkId::new(name, format!("D={}", map.output_dim()));
    group.bench_function(id, |b| {
        b.iter(|| map.transform_into(x, out.view_mut()).unwrap())
    });
}

/// Times one fitted map on a batch of rows into a preallocated output.
fn bench_batch<M: FeatureMap>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    map: &M,
    x: &Array2<f64>,
) {
    let mut out = Array2::zeros((x.nrows(), map.output_dim()));
    let id = BenchmarkId::new(name, format!("D={},rows={}", map.output_dim(), x.nrows()));
    group.bench_function(id, |b| {
        b.iter(|| map.transform_into(x, out.view_mut()).unwrap())
    });
}

/// Question 2: per-vector time and memory, Fastfood vs RKS, at Table 1's sizes; then the
/// batched throughput of the same maps.
fn fastfood_table1(c: &mut Criterion) {
    let skip_largest = std::env::var_os("RFBENCH_SKIP_LARGEST_RKS").is_some();
    let kernel = ShiftInvariantKernel::gaussian(TABLE1_SIGMA).unwrap();
    let mut memory = String::from("d,n,map,memory_bytes\n");
    for (d, n) in TABLE1 {
        let mut rng = ChaCha8Rng::seed_from_u64(d as u64);
        let x = Array2::from_shape_simple_fn((1, d), || rng.sample::<f64, _>(StandardNormal));
        let batch =
            Array2::from_shape_simple_fn((BATCH_ROWS, d), || rng.sample::<f64, _>(StandardNormal));
        let mut group = c.benchmark_group(format!("fastfood_table1_d={d}_n={n}"));
        configure(&mut group, 1);
        let fastfood: Vec<_> = [
            ("fastfood", FastfoodTransform::Hadamard),
            ("fastfood_fft", FastfoodTransform::Fourier),
        ]
        .into_iter()
        .map(|(name, transform)| {
            let map = FastfoodParams::new(kernel, 2 * n)
                .transform(transform)
                .seed(MAP_SEED)
                .fit(d)
                .unwrap();
            memory.push_str(&format!("{d},{n},{name},{}\n", map.memory_bytes()));
            bench_one_vector(&mut group, name, &map, &x);
            (name, map)
        })
        .collect();
        let rks = if skip_largest && (d, n) == TABLE1[2] {
            eprintln!("RFBENCH_SKIP_LARGEST_RKS: no RKS at d = {d}, n = {n}");
            None
        } else {
            let rks = RandomFourierParams::new(kernel, 2 * n)
                .seed(MAP_SEED)
                .fit(d)
                .unwrap();
            memory.push_str(&format!("{d},{n},rks,{}\n", rks.memory_bytes()));
            bench_one_vector(&mut group, "rks", &rks, &x);
            Some(rks)
        };
        group.finish();

        let mut group = c.benchmark_group(format!("fastfood_batched_d={d}_n={n}"));
        configure(&mut group, BATCH_ROWS);
        for (name, map) in &fastfood {
            bench_batch(&mut group, name, map, &batch);
        }
        if let Some(rks) = &rks {
            bench_batch(&mut group, "rks", rks, &batch);
        }
        group.finish();
    }
    let path = bench_data_path("fastfood_table1_memory.csv");
    write_atomically(&path, memory.as_bytes());
    let _ =
        std::io::stderr().write_all(format!("fitted-map memory: {}\n", path.display()).as_bytes());
}

/// Question 3: the fused FWHT against the plain radix-2 loop.
fn fwht_paths(c: &mut Criterion) {
    let mut group = c.benchmark_group("fwht");
    configure(&mut group, 1);
    for n in [1024, 8192] {
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let x: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
        // A fresh copy per call (outside the timing): repeated in-place transforms would grow the
        // values by sqrt(n) each time, up to infinities.
        group.bench_function(BenchmarkId::new("fast", n), |b| {
            b.iter_batched_ref(|| x.clone(), |v| fwht(v), BatchSize::SmallInput)
        });
        group.bench_function(BenchmarkId::new("radix2", n), |b| {
            b.iter_batched_ref(|| x.clone(), |v| fwht_radix2(v), BatchSize::SmallInput)
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = rff_vs_sklearn, fastfood_table1, fwht_paths
}
criterion_main!(benches);
