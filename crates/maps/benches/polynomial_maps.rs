//! Transform-time benchmarks of the polynomial-kernel maps, `k(x, y) = (1 + <x, y>)^4`
//! (inhomogeneous: offset `c = 1`, degree `p = 4`, scikit-learn's `coef0 = 1, gamma = 1`).
//!
//! Two questions, each answered by ratios measured in the same run:
//!
//! 1. **Tensor Sketch against scikit-learn** (group `ts_vs_sklearn`): transforming 10,000 rows,
//!    `d = 780`, `D = 4000`. `scripts/perf/compare_bench.py` reads the estimates written here and
//!    times `sklearn.kernel_approximation.PolynomialCountSketch(degree=4, coef0=1, gamma=1,
//!    n_components=4000).transform` on the very same matrix, which this bench writes to
//!    `<target>/bench-data/mnist_like_10000x780.f64` (raw little-endian `f64`, row-major, no
//!    header). Measured three ways: `transform` (allocates the `n x D` output, as scikit-learn
//!    does) on rayon's default pool, the same on a one-thread pool (scikit-learn's FFT runs on
//!    one thread), and `transform_into` a preallocated output.
//! 2. **Tensor Sketch against Random Maclaurin as `D` grows** (groups `poly4_d=...`), the shape
//!    of Pham & Pagh (KDD 2013) Fig. 2a: TS costs `O(p (nnz + D log D))` per row, almost
//!    independent of `d`; RM costs `O(nnz D E[N])`, linear in the input's non-zeros and in `D`.
//!    `D` in {500, 1000, 2000, 4000}; both maps write into a preallocated output.
//!
//! Inputs (built once, outside every timed closure, from fixed ChaCha8 seeds):
//! * `d = 780`, "MNIST-like": a dense `ndarray` in which each entry is non-zero with probability
//!   0.19 (MNIST's density), values uniform in (0, 1], every row then scaled to unit norm;
//! * `d = 123`, "Adult-like": a CSR matrix whose 123 columns form 14 one-hot groups (11 of 9
//!   columns, 3 of 8); every row has one non-zero per group, value `1/sqrt(14)` (unit norm), like
//!   the binarised Adult data set's 14 attributes.
//!
//! Benchmark ids are `<group>/<map>/D=<D>`, the group naming `d` and `n`; throughput is in rows.
//! Every RM case at `d = 780` is `O(n d D)` and takes seconds, so all groups use flat sampling
//! with 10 samples and short warm-up/measurement times: the whole run takes a few minutes on two
//! cores. Run with `cargo bench -p rfbench-maps`, then `python3 scripts/perf/compare_bench.py`.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode,
    Throughput,
};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_maps::{CsrMatrix, FeatureMap, RandomMaclaurinParams, Rows, TensorSketchParams};

/// Rows per transform.
#[path = "support/mnist_like.rs"]
mod mnist_like;
use mnist_like::{mnist_like, MNIST_DIM};

const N_ROWS: usize = 10_000;
/// The kernel `(<x, y> + OFFSET)^DEGREE`.
const DEGREE: u32 = 4;
const OFFSET: f64 = 1.0;
/// Feature counts of the TS-vs-RM sweep; the largest is also the scikit-learn comparison's.
const COMPONENTS: [usize; 4] = [500, 1000, 2000, 4000];

const ADULT_DIM: usize = 123;
const ADULT_GROUPS: usize = 14;
const ADULT_SEED: u64 = 123;
/// Map seeds: fixed, so every run times the same hash tables and Rademacher vectors.
const MAP_SEED: u64 = 2013;

/// `n x 123` CSR rows with one non-zero of value `1/sqrt(14)` in each of 14 one-hot groups.
fn adult_like(n: usize) -> CsrMatrix {
    let mut rng = ChaCha8Rng::seed_from_u64(ADULT_SEED);
    let sizes: Vec<usize> = (0..ADULT_GROUPS)
        .map(|g| if g < 11 { 9 } else { 8 })
        .collect();
    assert_eq!(sizes.iter().sum::<usize>(), ADULT_DIM);
    let value = 1.0 / (ADULT_GROUPS as f64).sqrt();
    let mut indptr = vec![0];
    let mut indices = Vec::with_capacity(n * ADULT_GROUPS);
    for _ in 0..n {
        let mut start = 0;
        for &size in &sizes {
            indices.push((start + rng.random_range(0..size)) as u32);
            start += size;
        }
        indptr.push(indices.len());
    }
    let values = vec![value; indices.len()];
    CsrMatrix::new(ADULT_DIM, indptr, indices, values).expect("valid CSR by construction")
}

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

/// Writes `x` as raw little-endian `f64`, row-major, for `scripts/perf/bench_sklearn_tensor_sketch.py`
/// (`numpy.fromfile(path, "<f8").reshape(n, d)`). Rewritten on every run, so it is always the
/// matrix this run measured.
fn write_raw_f64(x: &Array2<f64>, name: &str) -> PathBuf {
    let dir = target_dir().join("bench-data");
    std::fs::create_dir_all(&dir).expect("create bench-data directory");
    let path = dir.join(name);
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let partial = path.with_extension("f64.part");
    std::fs::write(&partial, bytes).expect("write bench data");
    std::fs::rename(&partial, &path).expect("rename bench data");
    path
}

/// Flat sampling (every sample runs the same number of iterations, at least one) with 10
/// samples: the slowest case runs about 11 times instead of criterion's default 5050.
fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, n_rows: usize) {
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(n_rows as u64));
}

/// Question 1: TS on the data `scripts/perf/compare_bench.py` hands to scikit-learn.
fn ts_vs_sklearn(c: &mut Criterion) {
    let x = mnist_like(N_ROWS);
    let path = write_raw_f64(&x, &format!("mnist_like_{N_ROWS}x{MNIST_DIM}.f64"));
    eprintln!("bench data: {}", path.display());
    let n_components = *COMPONENTS.last().unwrap();
    let ts = TensorSketchParams::new(DEGREE, n_components)
        .offset(OFFSET)
        .seed(MAP_SEED)
        .fit(MNIST_DIM)
        .unwrap();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut out = Array2::zeros((N_ROWS, n_components));
    let key = format!("d={MNIST_DIM},D={n_components},n={N_ROWS}");

    let mut group = c.benchmark_group("ts_vs_sklearn");
    configure(&mut group, N_ROWS);
    group.bench_function(BenchmarkId::new("ts_transform", &key), |b| {
        b.iter_with_large_drop(|| ts.transform(&x).unwrap())
    });
    group.bench_function(BenchmarkId::new("ts_transform_1thread", &key), |b| {
        b.iter_with_large_drop(|| one_thread.install(|| ts.transform(&x).unwrap()))
    });
    group.bench_function(BenchmarkId::new("ts_transform_into", &key), |b| {
        b.iter(|| ts.transform_into(&x, out.view_mut()).unwrap())
    });
    group.finish();
}

/// Times one fitted map writing `rows` into a preallocated output.
fn bench_map<M: FeatureMap>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    map: &M,
    rows: Rows<'_>,
) {
    let mut out = Array2::zeros((rows.n_rows(), map.output_dim()));
    let id = BenchmarkId::new(name, format!("D={}", map.output_dim()));
    group.bench_function(id, |b| {
        b.iter(|| map.transform_into(rows, out.view_mut()).unwrap())
    });
}

/// Question 2: TS and RM as `D` grows, on sparse `d = 123` and dense `d = 780` rows.
fn ts_vs_rm(c: &mut Criterion) {
    let adult = adult_like(N_ROWS);
    let mnist = mnist_like(N_ROWS);
    let inputs: [(usize, Rows<'_>); 2] =
        [(ADULT_DIM, (&adult).into()), (MNIST_DIM, (&mnist).into())];
    for (d, rows) in inputs {
        let mut group = c.benchmark_group(format!("poly4_d={d}_n={}", rows.n_rows()));
        configure(&mut group, rows.n_rows());
        for n_components in COMPONENTS {
            let ts = TensorSketchParams::new(DEGREE, n_components)
                .offset(OFFSET)
                .seed(MAP_SEED)
                .fit(d)
                .unwrap();
            bench_map(&mut group, "ts", &ts, rows);
            let rm = RandomMaclaurinParams::new(DEGREE, n_components)
                .offset(OFFSET)
                .seed(MAP_SEED)
                .fit(d)
                .unwrap();
            bench_map(&mut group, "rm", &rm, rows);
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = ts_vs_sklearn, ts_vs_rm
}
criterion_main!(benches);
