//! Criterion benchmarks of the learners on synthetic data shaped like the papers' inputs:
//! dual coordinate descent on sparse binary rows like Adult's (n = 32,561, d = 123, 14 non-zeros
//! per row) and ridge on dense random features (n x D). Inputs are built outside the timed
//! closures. The comparison with LIBLINEAR itself is `examples/adult_vs_liblinear.rs`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::{LinearSvmParams, RidgeParams, SvmLoss};
use rfbench_maps::CsrMatrix;

/// Sparse 0/1 rows with `nnz` distinct columns each, labelled by a noisy random linear rule.
fn adult_like(n: usize, d: usize, nnz: usize, seed: u64) -> (CsrMatrix, Vec<i64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let w: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (mut indptr, mut indices, mut values, mut labels) = (vec![0], vec![], vec![], vec![]);
    for _ in 0..n {
        let mut cols: Vec<u32> = Vec::with_capacity(nnz);
        while cols.len() < nnz {
            let c = rng.random_range(0..d as u32);
            if !cols.contains(&c) {
                cols.push(c);
            }
        }
        cols.sort_unstable();
        let score: f64 = cols.iter().map(|&c| w[c as usize]).sum::<f64>();
        labels.push(if score + rng.random_range(-1.0..1.0) > 0.0 {
            1
        } else {
            -1
        });
        values.extend(std::iter::repeat_n(1.0, cols.len()));
        indices.extend(cols);
        indptr.push(indices.len());
    }
    (CsrMatrix::new(d, indptr, indices, values).unwrap(), labels)
}

fn dual_cd(c: &mut Criterion) {
    let (x, y) = adult_like(32_561, 123, 14, 1);
    let mut group = c.benchmark_group("dual_cd_adult_like");
    group.sample_size(10);
    for loss in [SvmLoss::L1, SvmLoss::L2] {
        let params = LinearSvmParams::new().loss(loss).check().unwrap();
        group.bench_function(BenchmarkId::from_parameter(format!("{loss:?}")), |b| {
            b.iter(|| params.fit(&x, &y).unwrap())
        });
    }
    group.finish();
}

fn ridge(c: &mut Criterion) {
    let mut group = c.benchmark_group("ridge_fit");
    group.sample_size(10);
    for (n, d) in [(10_000, 500), (10_000, 1000)] {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let z = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
        let y = Array2::from_shape_fn((n, 1), |_| rng.random_range(-1.0..1.0));
        let params = RidgeParams::new().lambda(1e-3).check().unwrap();
        group.bench_function(BenchmarkId::from_parameter(format!("n{n}_D{d}")), |b| {
            b.iter(|| params.fit(z.view(), y.view()).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, dual_cd, ridge);
criterion_main!(benches);
