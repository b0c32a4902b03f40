//! Every fitted map survives a JSON round trip bit for bit, and a tampered map is an error when it
//! is read rather than a panic when it is applied.

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_maps::{
    CsrMatrix, Fastfood, FastfoodParams, FastfoodTransform, FeatureMap, FourierForm, Kernel,
    MapError, Nystroem, NystroemParams, OrthogonalRandomFeatures, OrthogonalRandomFeaturesParams,
    Prff, PrffParams, RandomBinning, RandomBinningParams, RandomFourierFeatures,
    RandomFourierParams, RandomMaclaurin, RandomMaclaurinH01, RandomMaclaurinH01Params,
    RandomMaclaurinParams, RevrandOrthogonalFeatures, RevrandOrthogonalParams,
    ShiftInvariantKernel, StructuredOrthogonalFeatures, StructuredOrthogonalParams, TensorSketch,
    TensorSketchParams,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

const D: usize = 13;

fn data(n: usize, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, D), || rng.random::<f64>() * 2.0 - 1.0)
}

/// JSON out and back; the copy's features on dense and CSR rows equal the original's exactly.
fn round_trip<M>(map: &M) -> M
where
    M: FeatureMap + Serialize + DeserializeOwned,
{
    let json = serde_json::to_string(map).unwrap();
    let copy: M = serde_json::from_str(&json).unwrap();
    let x = data(300, 7);
    let csr = CsrMatrix::from_dense(x.view()).unwrap();
    assert_eq!(copy.transform(&x).unwrap(), map.transform(&x).unwrap());
    assert_eq!(copy.transform(&csr).unwrap(), map.transform(&csr).unwrap());
    // A second round trip is the identical text.
    assert_eq!(serde_json::to_string(&copy).unwrap(), json);
    copy
}

fn to_value<M: Serialize>(map: &M) -> Value {
    serde_json::to_value(map).unwrap()
}

/// Reading `value` as `M` fails with a message naming what is inconsistent.
fn assert_rejected<M: DeserializeOwned>(value: Value, needle: &str) {
    match serde_json::from_value::<M>(value) {
        Ok(_) => panic!("tampered map accepted (expected an error mentioning {needle:?})"),
        Err(e) => assert!(e.to_string().contains(needle), "{e}"),
    }
}

fn gaussian() -> ShiftInvariantKernel {
    ShiftInvariantKernel::gaussian(2.0).unwrap()
}

#[test]
fn random_fourier_features() {
    for form in [FourierForm::Paired, FourierForm::Phase] {
        for kernel in [
            gaussian(),
            ShiftInvariantKernel::laplacian(3.0).unwrap(),
            ShiftInvariantKernel::matern(1.5, 2.0).unwrap(),
        ] {
            let map = RandomFourierParams::new(kernel, 64)
                .form(form)
                .fit(D)
                .unwrap();
            round_trip(&map);
        }
    }
    let map = RandomFourierParams::new(gaussian(), 64).fit(D).unwrap();
    // One frequency row too few: the shape no longer matches input_dim.
    let mut v = to_value(&map);
    v["inner"]["weights"]["dim"][0] = (D - 1).into();
    let data = v["inner"]["weights"]["data"].as_array_mut().unwrap();
    data.truncate((D - 1) * 32);
    assert_rejected::<RandomFourierFeatures>(v, "frequency rows");
    // Columns that do not match m.
    let mut v = to_value(&map);
    v["inner"]["weights"]["dim"][1] = 31.into();
    v["inner"]["weights"]["data"]
        .as_array_mut()
        .unwrap()
        .truncate(D * 31);
    assert_rejected::<RandomFourierFeatures>(v, "31 columns");
    // An array whose data does not fill its shape (ndarray's own check).
    let mut v = to_value(&map);
    v["inner"]["weights"]["data"].as_array_mut().unwrap().pop();
    assert!(serde_json::from_value::<RandomFourierFeatures>(v).is_err());
    // Invalid parameters are the parameter errors.
    let mut v = to_value(&map);
    v["params"]["n_components"] = 63.into();
    assert_rejected::<RandomFourierFeatures>(v, &MapError::OddComponents(63).to_string());
    // Unknown keys are rejected.
    let mut v = to_value(&map);
    v["extra"] = 1.into();
    assert_rejected::<RandomFourierFeatures>(v, "unknown field");
}

#[test]
fn orthogonal_and_structured_orthogonal() {
    for form in [FourierForm::Paired, FourierForm::Phase] {
        let orf = OrthogonalRandomFeaturesParams::new(gaussian(), 40)
            .form(form)
            .fit(D)
            .unwrap();
        round_trip(&orf);
        let sorf = StructuredOrthogonalParams::new(2.0, 40)
            .form(form)
            .fit(D)
            .unwrap();
        round_trip(&sorf);
        let revrand = RevrandOrthogonalParams::new(2.0, 40)
            .form(form)
            .fit(D)
            .unwrap();
        round_trip(&revrand);
    }
    let revrand = RevrandOrthogonalParams::new(2.0, 40).fit(D).unwrap();
    let mut v = to_value(&revrand);
    v["input_dim"] = Value::from(D + 1);
    assert_rejected::<RevrandOrthogonalFeatures>(v, "frequency rows");
    let orf = OrthogonalRandomFeaturesParams::new(gaussian(), 40)
        .form(FourierForm::Phase)
        .fit(D)
        .unwrap();
    let mut v = to_value(&orf);
    v["inner"]["output"]["offsets"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert_rejected::<OrthogonalRandomFeatures>(v, "39 phases");

    let sorf = StructuredOrthogonalParams::new(2.0, 40).fit(D).unwrap();
    let mut v = to_value(&sorf);
    v["signs"][0][1].as_array_mut().unwrap().pop();
    assert_rejected::<StructuredOrthogonalFeatures>(v, "length 16");
    let mut v = to_value(&sorf);
    v["signs"].as_array_mut().unwrap().pop();
    assert_rejected::<StructuredOrthogonalFeatures>(v, "expected 2");
}

#[test]
fn fastfood_hadamard_and_fourier() {
    for transform in [FastfoodTransform::Hadamard, FastfoodTransform::Fourier] {
        for form in [FourierForm::Paired, FourierForm::Phase] {
            let map = FastfoodParams::new(gaussian(), 80)
                .form(form)
                .transform(transform)
                .fit(D)
                .unwrap();
            round_trip(&map);
        }
    }
    let map = FastfoodParams::new(gaussian(), 80).fit(D).unwrap();
    // A permutation with a repeated index would silently drop a coordinate.
    let mut v = to_value(&map);
    v["blocks"]["Hadamard"][0]["permutation"][0] =
        v["blocks"]["Hadamard"][0]["permutation"][1].clone();
    assert_rejected::<Fastfood>(v, "permutation");
    // An index past the block would panic in the transform.
    let mut v = to_value(&map);
    v["blocks"]["Hadamard"][0]["permutation"][0] = 16.into();
    assert_rejected::<Fastfood>(v, "permutation");
    // Hadamard blocks under a Fourier transform parameter.
    let mut v = to_value(&map);
    v["params"]["transform"] = "Fourier".into();
    assert_rejected::<Fastfood>(v, "do not match");
    let fourier = FastfoodParams::new(gaussian(), 80)
        .transform(FastfoodTransform::Fourier)
        .fit(D)
        .unwrap();
    let mut v = to_value(&fourier);
    v["blocks"]["Fourier"][0]["spectrum"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert_rejected::<Fastfood>(v, "Fourier block");
}

#[test]
fn tensor_sketch() {
    for offset in [0.0, 1.0] {
        let map = TensorSketchParams::new(3, 64)
            .offset(offset)
            .fit(D)
            .unwrap();
        let copy = round_trip(&map);
        assert_eq!(copy.sketch(2), map.sketch(2));
    }
    let map = TensorSketchParams::new(2, 64).fit(D).unwrap();
    let mut v = to_value(&map);
    v["sketches"][1]["buckets"][3] = 64.into();
    assert_rejected::<TensorSketch>(v, "below the width 64");
    let mut v = to_value(&map);
    v["sketches"].as_array_mut().unwrap().pop();
    assert_rejected::<TensorSketch>(v, "1 sketches for degree 2");
    let mut v = to_value(&map);
    v["input_dim"] = (D + 1).into();
    assert_rejected::<TensorSketch>(v, "keys");
}

#[test]
fn random_maclaurin_and_h01() {
    let map = RandomMaclaurinParams::new(3, 60)
        .offset(1.0)
        .fit(D)
        .unwrap();
    round_trip(&map);
    let h01 = RandomMaclaurinH01Params::new(3, 60)
        .offset(1.0)
        .fit(D)
        .unwrap();
    round_trip(&h01);
    let mut v = to_value(&map);
    v["signs"].as_array_mut().unwrap().pop();
    assert_rejected::<RandomMaclaurin>(v, "signs for d");
    let mut v = to_value(&map);
    v["n_vectors"] = 1.into();
    assert_rejected::<RandomMaclaurin>(v, "beyond the 1 drawn");
    let mut v = to_value(&h01);
    v["random"]["features"].as_array_mut().unwrap().pop();
    assert_rejected::<RandomMaclaurinH01>(v, "59 features");
}

#[test]
fn random_binning() {
    let map = RandomBinningParams::new(20, 2.0).width(64).fit(D).unwrap();
    round_trip(&map);
    let x = data(50, 3);
    let copy: RandomBinning = serde_json::from_value(to_value(&map)).unwrap();
    assert_eq!(
        copy.transform_sparse(&x).unwrap(),
        map.transform_sparse(&x).unwrap()
    );
    let mut v = to_value(&map);
    v["grids"][4]["pitches"][2] = (-1.0).into();
    assert_rejected::<RandomBinning>(v, "pitches > 0");
    let mut v = to_value(&map);
    v["grids"][4]["shifts"].as_array_mut().unwrap().pop();
    assert_rejected::<RandomBinning>(v, "as many");
}

#[test]
fn nystroem() {
    let x = data(120, 5);
    for kernel in [
        Kernel::Gaussian { sigma: 1.5 },
        Kernel::Laplacian { sigma: 2.0 },
        Kernel::polynomial(2, 1.0).unwrap(),
        Kernel::libsvm_polynomial(3, 0.5, 0.25).unwrap(),
        Kernel::linear(),
        Kernel::matern(2.5, 1.5).unwrap(),
    ] {
        let map = NystroemParams::new(kernel, 40).fit(&x).unwrap();
        round_trip(&map);
    }
    let map = NystroemParams::new(Kernel::Gaussian { sigma: 1.5 }, 40)
        .fit(&x)
        .unwrap();
    let mut v = to_value(&map);
    v["normalization"]["dim"] = serde_json::json!([39, 40 * 40 / 39]);
    v["normalization"]["data"]
        .as_array_mut()
        .unwrap()
        .truncate(39 * (40 * 40 / 39));
    assert_rejected::<Nystroem>(v, "normalisation");
    let mut v = to_value(&map);
    v["kernel"]["Gaussian"]["sigma"] = (-1.0).into();
    assert!(serde_json::from_value::<Nystroem>(v).is_err());
}

#[test]
fn prff() {
    let x = data(200, 9);
    let map = PrffParams::new(1.5, 24).max_iterations(20).fit(&x).unwrap();
    round_trip(&map);
    let mut v = to_value(&map);
    v["phases"].as_array_mut().unwrap().pop();
    assert_rejected::<Prff>(v, "23 phases");
}

/// The binary form (the Python package's pickles) cannot hold a non-finite value unnoticed: JSON
/// has no NaN, so this is the form the maps' finiteness checks guard. One value, the last of the
/// frequency block and the first of the phases, set to NaN or infinity in the bytes: an error.
#[test]
fn a_non_finite_value_in_the_binary_form_is_an_error() {
    let x = data(50, 10);
    let map = PrffParams::new(1.5, 6).max_iterations(3).fit(&x).unwrap();
    let bytes = postcard::to_allocvec(&map).unwrap();
    assert_eq!(postcard::from_bytes::<Prff>(&bytes).unwrap(), map);
    for value in [map.frequency(5)[D - 1], map.phase(0)] {
        let at = bytes
            .windows(8)
            .position(|w| w == value.to_le_bytes())
            .unwrap();
        for bad in [f64::NAN, f64::INFINITY] {
            let mut tampered = bytes.clone();
            tampered[at..at + 8].copy_from_slice(&bad.to_le_bytes());
            assert!(
                postcard::from_bytes::<Prff>(&tampered).is_err(),
                "{bad} at {at}"
            );
        }
    }
}

/// The registry maps the tests above round-trip. Kept by hand because each test names the
/// map's concrete type; the test below fails naming any registry map missing from it.
const ROUND_TRIPPED: &[&str] = &[
    "rff",
    "orf",
    "orf-revrand",
    "sorf",
    "fastfood",
    "fastfood-fft",
    "tensor-sketch",
    "random-maclaurin",
    "random-maclaurin-h01",
    "random-binning",
    "nystroem",
    "prff",
];

#[test]
fn every_registry_map_is_round_tripped() {
    for map in rfbench_registry::MAPS.iter().filter(|m| m.is_feature_map()) {
        assert!(
            ROUND_TRIPPED.contains(&map.name),
            "registry map {:?} has no round-trip test in crates/maps/tests/serde_roundtrip.rs",
            map.name
        );
    }
    for name in ROUND_TRIPPED {
        assert!(
            rfbench_registry::map(name).is_some(),
            "{name}: not in the registry"
        );
    }
}
