//! One conformance harness for every map (RustFFT's `check_fft_algorithm`): each map, fitted with
//! fixed seeds and held as a `Box<dyn DynFeatureMap>`, passes the same checks in [`check_map`]:
//!
//! * the batch `transform` equals the one-row reference `map_row`, row by row;
//! * `transform_into` into a dirty output (prefilled with NaN) and into strided outputs (every
//!   other column of a larger matrix; a transposed matrix) equals `transform`, and cells outside
//!   the view are untouched;
//! * dense rows and the same rows as CSR give the same features;
//! * 1 and 3 threads give the same bits;
//! * a wrong input dimension, a wrong output shape and a NaN input are the typed errors;
//! * `memory_bytes > 0`.
//!
//! Bit for bit everywhere except where a map's batch path sums in another order than `map_row`:
//! random Fourier and orthogonal features and PRFF (dense input and CSR of density >= 0.1 go through
//! blocked `gemm` products, `map_row` through one axpy per non-zero) and Nystroem (the kernel
//! block by `‖x‖² + ‖l‖² - 2 x'l` and a vectorised `exp`, then a product with `K_mm^{-1/2}`).
//! Their tolerance is stated with the map (see [`Exactness`]). A new map is done when it is in
//! [`maps`] and passes; a test fails naming any map of the registry (`rfbench-registry`) that
//! is not.

use ndarray::{s, Array2, ArrayViewMut2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_maps::{
    CsrMatrix, DynFeatureMap, FastfoodParams, FastfoodTransform, FourierForm, Kernel, MapError,
    NystroemParams, OrthogonalRandomFeaturesParams, PrffParams, RandomBinningParams,
    RandomFourierParams, RandomMaclaurinH01Params, RandomMaclaurinParams, RevrandOrthogonalParams,
    Row, Rows, StructuredOrthogonalParams, TensorSketchParams,
};

/// Input dimension of every map.
const D_IN: usize = 12;

/// Rows of the test data: more than two parallel tasks of 256 rows (`FeatureMap`'s row chunks
/// and the blocked products' row blocks), the last one partial.
const N_ROWS: usize = 600;

/// How closely a map's batch paths must reproduce `map_row`.
#[derive(Debug, Clone, Copy)]
enum Exactness {
    /// The same bits.
    Exact,
    /// `|batch - row| <= tolerance * max |features|`: the batch path sums in another order.
    Relative(f64),
}

/// Random Fourier / orthogonal features: each feature is `cos` or `sin` of a projection `w'x`
/// summed over 12 coordinates in another order by `gemm`: a few ulps of the projection, carried
/// to the feature with slope <= 1. Measured here: at most `1.8e-15` of the largest feature (dense
/// and sparse data, both forms). `1e-13` is a margin of about 50 over that and 10 orders below a
/// wrong frequency, phase or scale.
const FOURIER: Exactness = Exactness::Relative(1e-13);

/// Nystroem: the kernel block by the expanded squared distance (and a vectorised `exp`) loses
/// about `eps (‖x‖² + ‖l‖²)` per kernel value, then `z = N k` sums 40 products with entries of
/// `N = K_mm^{-1/2}`. Measured here: at most `6.2e-15` of the largest feature (Gaussian),
/// `8.2e-16` (polynomial). `1e-12` is a margin of about 150 over that.
const NYSTROEM: Exactness = Exactness::Relative(1e-12);

/// `n x D_IN`, each entry non-zero (uniform in [-1, 1]) with probability `density`, so that the
/// CSR form differs from the dense one.
fn data(n: usize, density: f64, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, D_IN), || {
        if rng.random::<f64>() < density {
            rng.random::<f64>() * 2.0 - 1.0
        } else {
            0.0
        }
    })
}

fn polynomial() -> Kernel {
    Kernel::polynomial(3, 1.0).unwrap()
}

fn gaussian() -> Kernel {
    Kernel::gaussian(2.0).unwrap()
}

/// Every map, fitted with fixed seeds, with the exactness of its batch path.
fn maps() -> Vec<(&'static str, Box<dyn DynFeatureMap>, Exactness)> {
    use Exactness::Exact;
    let train = data(150, 0.7, 99);
    let prff_train = data(60, 0.7, 98);
    let laplacian = Kernel::laplacian(3.0).unwrap();
    let matern = Kernel::matern(1.5, 2.0).unwrap();
    vec![
        (
            "tensor-sketch",
            Box::new(
                TensorSketchParams::for_kernel(&polynomial(), 64)
                    .unwrap()
                    .seed(1)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "random-maclaurin",
            Box::new(
                RandomMaclaurinParams::for_kernel(&polynomial(), 64)
                    .unwrap()
                    .seed(2)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "random-maclaurin-h01",
            Box::new(
                RandomMaclaurinH01Params::for_kernel(&polynomial(), 48)
                    .unwrap()
                    .seed(3)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "rff-paired",
            Box::new(
                RandomFourierParams::for_kernel(&gaussian(), 64)
                    .unwrap()
                    .form(FourierForm::Paired)
                    .seed(4)
                    .fit(D_IN)
                    .unwrap(),
            ),
            FOURIER,
        ),
        (
            "rff-phase",
            Box::new(
                RandomFourierParams::for_kernel(&matern, 63)
                    .unwrap()
                    .form(FourierForm::Phase)
                    .seed(5)
                    .fit(D_IN)
                    .unwrap(),
            ),
            FOURIER,
        ),
        (
            "orf",
            Box::new(
                OrthogonalRandomFeaturesParams::for_kernel(&gaussian(), 64)
                    .unwrap()
                    .seed(6)
                    .fit(D_IN)
                    .unwrap(),
            ),
            FOURIER,
        ),
        (
            "orf-revrand",
            Box::new(
                RevrandOrthogonalParams::for_kernel(&gaussian(), 64)
                    .unwrap()
                    .seed(6)
                    .fit(D_IN)
                    .unwrap(),
            ),
            FOURIER,
        ),
        (
            "sorf",
            Box::new(
                StructuredOrthogonalParams::for_kernel(&gaussian(), 64)
                    .unwrap()
                    .seed(7)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "fastfood",
            Box::new(
                FastfoodParams::for_kernel(&gaussian(), 64)
                    .unwrap()
                    .transform(FastfoodTransform::Hadamard)
                    .seed(8)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "fastfood-fft",
            Box::new(
                FastfoodParams::for_kernel(&matern, 64)
                    .unwrap()
                    .transform(FastfoodTransform::Fourier)
                    .seed(9)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "random-binning",
            Box::new(
                RandomBinningParams::for_kernel(&laplacian, 16)
                    .unwrap()
                    .width(64)
                    .seed(10)
                    .fit(D_IN)
                    .unwrap(),
            ),
            Exact,
        ),
        (
            "nystroem-gaussian",
            Box::new(
                NystroemParams::for_kernel(&gaussian(), 40)
                    .unwrap()
                    .seed(11)
                    .fit(&train)
                    .unwrap(),
            ),
            NYSTROEM,
        ),
        (
            "nystroem-polynomial",
            Box::new(
                NystroemParams::for_kernel(&polynomial(), 40)
                    .unwrap()
                    .seed(12)
                    .fit(&train)
                    .unwrap(),
            ),
            NYSTROEM,
        ),
        (
            "prff",
            Box::new(
                PrffParams::for_kernel(&gaussian(), 32)
                    .unwrap()
                    .max_iterations(5)
                    .seed(13)
                    .fit(&prff_train)
                    .unwrap(),
            ),
            // Fitted, PRFF transforms as a phase-form Fourier map (blocked products).
            FOURIER,
        ),
    ]
}

fn max_abs(a: &Array2<f64>) -> f64 {
    a.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// `actual` equals `expected` bit for bit, or within the map's tolerance.
fn assert_close(
    name: &str,
    what: &str,
    exactness: Exactness,
    actual: &Array2<f64>,
    expected: &Array2<f64>,
) {
    assert_eq!(actual.dim(), expected.dim(), "{name}: {what}: shape");
    match exactness {
        Exactness::Exact => {
            for ((i, j), (a, e)) in expected
                .indexed_iter()
                .map(|(ij, e)| (ij, (actual[ij], *e)))
            {
                assert!(
                    a.to_bits() == e.to_bits(),
                    "{name}: {what}: [{i}, {j}] {a:e} vs {e:e}"
                );
            }
        }
        Exactness::Relative(tolerance) => {
            let bound = tolerance * max_abs(expected);
            assert!(bound > 0.0, "{name}: {what}: all-zero features");
            for ((i, j), e) in expected.indexed_iter() {
                let a = actual[[i, j]];
                assert!(
                    (a - e).abs() <= bound,
                    "{name}: {what}: [{i}, {j}] {a:e} vs {e:e} (bound {bound:e})"
                );
            }
        }
    }
}

fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
        .install(f)
}

/// A value no map writes: cells outside an output view must still hold it.
const SENTINEL: f64 = -123.456;

/// `transform_into` through `view_of(big)` for a `big` of `big_shape` filled with
/// [`SENTINEL`]; the cells the view covers must equal `expected`, every other cell is untouched.
fn check_strided(
    name: &str,
    what: &str,
    map: &dyn DynFeatureMap,
    rows: Rows<'_>,
    expected: &Array2<f64>,
    big_shape: (usize, usize),
    view_of: impl Fn(&mut Array2<f64>) -> ArrayViewMut2<'_, f64>,
) {
    let mut big = Array2::from_elem(big_shape, SENTINEL);
    map.transform_into(rows, view_of(&mut big))
        .unwrap_or_else(|e| panic!("{name}: {what}: {e}"));
    // Mark the covered cells through the same view of a second matrix.
    let mut covered = Array2::from_elem(big_shape, 0.0);
    view_of(&mut covered).fill(1.0);
    let written = view_of(&mut big).to_owned();
    assert_eq!(
        written.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        "{name}: {what}: features"
    );
    for ((i, j), &c) in covered.indexed_iter() {
        if c == 0.0 {
            assert_eq!(
                big[[i, j]],
                SENTINEL,
                "{name}: {what}: cell [{i}, {j}] outside the view"
            );
        }
    }
}

/// Every check of the module docs for one map on dense rows `x`.
fn check_map(name: &str, map: &dyn DynFeatureMap, exactness: Exactness, x: &Array2<f64>) {
    let (n, d, n_out) = (x.nrows(), map.input_dim(), map.output_dim());
    assert_eq!(d, x.ncols(), "{name}: input dimension");
    assert!(map.memory_bytes() > 0, "{name}: memory_bytes");
    let csr = CsrMatrix::from_dense(x.view()).unwrap();

    // The batch path against the one-row reference, dense and sparse rows.
    let z = map.transform(Rows::Dense(x.view())).unwrap();
    assert_eq!(z.dim(), (n, n_out), "{name}: output shape");
    assert!(
        z.iter().all(|v| v.is_finite()),
        "{name}: non-finite feature"
    );
    let mut by_rows = Array2::from_elem((n, n_out), f64::NAN);
    let mut by_sparse_rows = Array2::from_elem((n, n_out), f64::NAN);
    for i in 0..n {
        let mut out = vec![f64::NAN; n_out];
        map.map_row(&Row::Dense(x.row(i)), &mut out).unwrap();
        by_rows
            .row_mut(i)
            .assign(&ndarray::ArrayView1::from(&out[..]));
        let mut out = vec![f64::NAN; n_out];
        map.map_row(&csr.row(i), &mut out).unwrap();
        by_sparse_rows
            .row_mut(i)
            .assign(&ndarray::ArrayView1::from(&out[..]));
    }
    // A row's dense and sparse forms visit the same non-zeros in the same order.
    assert_close(
        name,
        "map_row dense vs sparse",
        Exactness::Exact,
        &by_sparse_rows,
        &by_rows,
    );
    assert_close(name, "transform vs map_row", exactness, &z, &by_rows);

    // Dense rows and the same rows as CSR.
    let z_csr = map.transform(Rows::Sparse(&csr)).unwrap();
    assert_close(name, "CSR vs map_row", exactness, &z_csr, &by_rows);
    assert_close(name, "CSR vs dense", exactness, &z_csr, &z);

    // A dirty output and strided outputs give the allocating path's bits.
    let mut dirty = Array2::from_elem((n, n_out), f64::NAN);
    map.transform_into(Rows::Dense(x.view()), dirty.view_mut())
        .unwrap();
    assert_close(name, "dirty output", Exactness::Exact, &dirty, &z);
    check_strided(
        name,
        "every other column",
        map,
        Rows::Dense(x.view()),
        &z,
        (n + 3, 2 * n_out + 5),
        |big| big.slice_mut(s![2..n + 2, 3..3 + 2 * n_out;2]),
    );
    check_strided(
        name,
        "transposed",
        map,
        Rows::Dense(x.view()),
        &z,
        (n_out + 1, n + 2),
        |big| big.slice_mut(s![1.., 1..n + 1]).reversed_axes(),
    );
    check_strided(
        name,
        "CSR, every other column",
        map,
        Rows::Sparse(&csr),
        &z_csr,
        (n + 3, 2 * n_out + 5),
        |big| big.slice_mut(s![2..n + 2, 3..3 + 2 * n_out;2]),
    );

    // 1 thread and 3 threads: the same bits, dense and CSR.
    let run = |threads| {
        on_threads(threads, || {
            (
                map.transform(Rows::Dense(x.view())).unwrap(),
                map.transform(Rows::Sparse(&csr)).unwrap(),
            )
        })
    };
    let one = run(1);
    let three = run(3);
    assert_close(
        name,
        "3 threads vs 1, dense",
        Exactness::Exact,
        &three.0,
        &one.0,
    );
    assert_close(
        name,
        "3 threads vs 1, CSR",
        Exactness::Exact,
        &three.1,
        &one.1,
    );
    assert_close(
        name,
        "1 thread vs the default pool",
        Exactness::Exact,
        &one.0,
        &z,
    );

    // Errors, each carrying its values.
    let wide = Array2::<f64>::zeros((2, d + 1));
    assert_eq!(
        map.transform(Rows::Dense(wide.view())).unwrap_err(),
        MapError::DimensionMismatch {
            expected: d,
            got: d + 1
        },
        "{name}"
    );
    let mut out = Array2::zeros((n, n_out + 1));
    assert_eq!(
        map.transform_into(Rows::Dense(x.view()), out.view_mut())
            .unwrap_err(),
        MapError::OutputShape {
            expected: (n, n_out),
            got: (n, n_out + 1)
        },
        "{name}"
    );
    let mut out = Array2::zeros((n - 1, n_out));
    assert!(
        matches!(
            map.transform_into(Rows::Dense(x.view()), out.view_mut()),
            Err(MapError::OutputShape { .. })
        ),
        "{name}: one row short"
    );
    let mut with_nan = x.slice(s![..5, ..]).to_owned();
    with_nan[[3, 2]] = f64::NAN;
    assert!(
        matches!(
            map.transform(Rows::Dense(with_nan.view())),
            Err(MapError::NonFinite { row: 3, col: 2, value }) if value.is_nan()
        ),
        "{name}: NaN input"
    );
    let mut out = vec![0.0; n_out];
    assert!(
        matches!(
            map.map_row(&Row::Dense(with_nan.row(3)), &mut out),
            Err(MapError::NonFinite { row: 0, col: 2, .. })
        ),
        "{name}: NaN row"
    );
    assert!(
        matches!(
            map.map_row(&Row::Dense(wide.row(0)), &mut out),
            Err(MapError::DimensionMismatch { .. })
        ),
        "{name}: map_row, wrong dimension"
    );
    assert!(
        matches!(
            map.map_row(&Row::Dense(x.row(0)), &mut out[1..]),
            Err(MapError::OutputShape { .. })
        ),
        "{name}: map_row, wrong output length"
    );
}

#[test]
fn every_map_passes_on_dense_data() {
    let x = data(N_ROWS, 0.7, 1);
    for (name, map, exactness) in maps() {
        check_map(name, map.as_ref(), exactness, &x);
    }
}

/// Sparser than the Fourier maps' densify threshold (10 %): their CSR path goes row by row.
#[test]
fn every_map_passes_on_sparse_data() {
    let x = data(N_ROWS, 0.05, 2);
    for (name, map, exactness) in maps() {
        check_map(name, map.as_ref(), exactness, &x);
    }
}

/// The registry map an entry of [`maps`] configures: its name, or its name and a variant
/// (`rff-phase`, `nystroem-polynomial`).
fn registry_map_of(entry: &str) -> Option<&'static str> {
    let feature_maps = || {
        rfbench_registry::MAPS
            .iter()
            .filter(|m| m.is_feature_map())
            .map(|m| m.name)
    };
    feature_maps().find(|&m| m == entry).or_else(|| {
        feature_maps()
            .filter(|m| entry.starts_with(&format!("{m}-")))
            .max_by_key(|m| m.len())
    })
}

/// The list is every map of the registry (discovered, not counted): its names are distinct,
/// each names a registry map, and every registry feature map has at least one entry.
#[test]
fn the_list_covers_every_registry_map() {
    let names: Vec<_> = maps().into_iter().map(|(name, ..)| name).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    for name in &names {
        assert!(
            registry_map_of(name).is_some(),
            "{name}: no registry map of that name (crates/registry-data/src/maps.rs)"
        );
    }
    for map in rfbench_registry::MAPS.iter().filter(|m| m.is_feature_map()) {
        assert!(
            names.iter().any(|n| registry_map_of(n) == Some(map.name)),
            "registry map {:?} has no entry in crates/maps/tests/conformance.rs: add one to `maps()`",
            map.name
        );
    }
}

/// `for_kernel` builds the map `new` builds for a kernel it approximates, and rejects one it
/// cannot approximate with `UnsupportedKernel` naming both.
#[test]
fn for_kernel_accepts_what_a_map_approximates_and_rejects_the_rest() {
    let unsupported = |map, kernel: &Kernel| MapError::UnsupportedKernel {
        map,
        kernel: kernel.name(),
    };
    let laplacian = Kernel::laplacian(1.0).unwrap();
    let matern = Kernel::matern(2.5, 1.0).unwrap();
    let linear = Kernel::linear();
    let g = gaussian();

    assert_eq!(
        TensorSketchParams::for_kernel(&polynomial(), 32).unwrap(),
        TensorSketchParams::new(3, 32).offset(1.0)
    );
    assert_eq!(
        TensorSketchParams::for_kernel(&g, 32).unwrap_err(),
        unsupported("TensorSketch", &g)
    );
    assert_eq!(
        RandomMaclaurinParams::for_kernel(&linear, 32).unwrap_err(),
        unsupported("RandomMaclaurin", &linear)
    );
    assert_eq!(
        RandomMaclaurinH01Params::for_kernel(&laplacian, 32).unwrap_err(),
        unsupported("RandomMaclaurinH01", &laplacian)
    );
    // gamma != 1 is a polynomial kernel, but not the one the sketches approximate.
    let libsvm = Kernel::libsvm_polynomial(3, 0.5, 1.0).unwrap();
    for err in [
        TensorSketchParams::for_kernel(&libsvm, 8).unwrap_err(),
        RandomMaclaurinParams::for_kernel(&libsvm, 8).unwrap_err(),
        RandomMaclaurinH01Params::for_kernel(&libsvm, 8).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                MapError::InvalidKernelParameter {
                    kernel: "polynomial",
                    parameter: "gamma",
                    value: 0.5,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    for kernel in [g, laplacian, matern] {
        assert!(RandomFourierParams::for_kernel(&kernel, 8).is_ok());
    }
    assert_eq!(
        RandomFourierParams::for_kernel(&polynomial(), 8).unwrap_err(),
        unsupported("RandomFourierFeatures", &polynomial())
    );
    for kernel in [g, matern] {
        assert!(OrthogonalRandomFeaturesParams::for_kernel(&kernel, 8).is_ok());
        assert!(FastfoodParams::for_kernel(&kernel, 8).is_ok());
    }
    assert_eq!(
        OrthogonalRandomFeaturesParams::for_kernel(&laplacian, 8).unwrap_err(),
        unsupported("OrthogonalRandomFeatures", &laplacian)
    );
    assert_eq!(
        FastfoodParams::for_kernel(&laplacian, 8).unwrap_err(),
        unsupported("Fastfood", &laplacian)
    );
    assert_eq!(
        FastfoodParams::for_kernel(&linear, 8).unwrap_err(),
        unsupported("Fastfood", &linear)
    );
    assert_eq!(
        StructuredOrthogonalParams::for_kernel(&g, 8).unwrap(),
        StructuredOrthogonalParams::new(2.0, 8)
    );
    assert_eq!(
        StructuredOrthogonalParams::for_kernel(&matern, 8).unwrap_err(),
        unsupported("StructuredOrthogonalFeatures", &matern)
    );
    assert_eq!(
        PrffParams::for_kernel(&g, 8).unwrap(),
        PrffParams::new(2.0, 8)
    );
    assert_eq!(
        PrffParams::for_kernel(&laplacian, 8).unwrap_err(),
        unsupported("Prff", &laplacian)
    );
    assert_eq!(
        RandomBinningParams::for_kernel(&laplacian, 8).unwrap(),
        RandomBinningParams::new(8, 1.0)
    );
    assert_eq!(
        RandomBinningParams::for_kernel(&g, 8).unwrap_err(),
        unsupported("RandomBinning", &g)
    );
    for kernel in [linear, polynomial(), libsvm, g, laplacian, matern] {
        assert_eq!(
            NystroemParams::for_kernel(&kernel, 8).unwrap(),
            NystroemParams::new(kernel, 8)
        );
    }
    // An invalid kernel is the parameter error, whatever the map.
    let bad = Kernel::Gaussian { sigma: -1.0 };
    for err in [
        RandomFourierParams::for_kernel(&bad, 8).unwrap_err(),
        NystroemParams::for_kernel(&bad, 8).unwrap_err(),
        PrffParams::for_kernel(&bad, 8).unwrap_err(),
        TensorSketchParams::for_kernel(&bad, 8).unwrap_err(),
    ] {
        assert_eq!(
            err,
            MapError::InvalidKernelParameter {
                kernel: "gaussian",
                parameter: "sigma",
                value: -1.0,
                valid: "finite and > 0"
            }
        );
    }
}

/// Whether a map approximates a shift-invariant kernel (its features are cosines of
/// projections, bounded for any finite projection): the maps [`maps`] fits on [`gaussian`] and
/// the other shift-invariant kernels, by the registry's kernel list of the entry.
fn is_fourier_type(name: &str) -> bool {
    let entry = registry_map_of(name).expect("covered");
    rfbench_registry::MAPS.iter().any(|m| {
        m.name == entry
            && m.kernels
                .iter()
                .all(|k| ["gaussian", "laplacian", "matern"].contains(k))
            && !m.components_are_rows
    })
}

/// Finite rows near the float range (every value `+-1e300`, and one value `f64::MAX`): a
/// Fourier-type map's projections `w'x` overflow to infinity there and `cos(inf)` is NaN. The
/// map must give finite features or a typed error naming the row, never NaN features (the
/// Python package checked the polynomial maps' output only).
#[test]
fn fourier_maps_refuse_rows_whose_projections_overflow() {
    let mut huge =
        Array2::from_shape_fn(
            (300, D_IN),
            |(i, j)| {
                if (i + j) % 3 == 0 {
                    -1e300
                } else {
                    1e300
                }
            },
        );
    huge[[7, 3]] = f64::MAX;
    let csr = CsrMatrix::from_dense(huge.view()).unwrap();
    for (name, map, _) in maps() {
        if !is_fourier_type(name) {
            continue;
        }
        for rows in [
            Rows::Dense(huge.view()),
            Rows::Sparse(&csr),
            Rows::Dense(huge.slice(s![7..8, ..])),
        ] {
            match map.transform(rows) {
                Ok(z) => assert!(
                    z.iter().all(|v| v.is_finite()),
                    "{name}: non-finite features for finite rows"
                ),
                Err(error) => assert!(
                    error.to_string().contains("overflow"),
                    "{name}: unexpected error {error}"
                ),
            }
        }
    }
}
