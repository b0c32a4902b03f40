//! The features the Python package's bit-for-bit test compares with
//! (`crates/python/tests/test_agreement.py`): each map built here with the library's own builders
//! and seed 7, applied to the rows the test wrote, one raw file of features per map.
//!
//! Usage: `reference_features <rows-file> <n_rows> <out-dir>`; the rows file is raw little-endian
//! `f64`, row-major. Writes `OUT/LABEL.f64` (raw little-endian `f64`, `n x D`, row-major) for every
//! label below, and `OUT/rff_phase_f32.f32` from the single-precision path.

use std::path::Path;

use ndarray::Array2;
use rfbench_maps::{
    DynFeatureMap, FastfoodParams, FastfoodTransform, FourierForm, Kernel, NystroemParams,
    OrthogonalRandomFeaturesParams, PrffParams, RandomBinningParams, RandomFourierParams,
    RandomMaclaurinH01Params, RandomMaclaurinParams, Result, ShiftInvariantKernel,
    StructuredOrthogonalParams, TensorSketchParams,
};

const SEED: u64 = 7;

type Fitted = Result<Box<dyn DynFeatureMap>>;

fn boxed<M: DynFeatureMap + 'static>(map: Result<M>) -> Fitted {
    Ok(Box::new(map?))
}

/// Every map the test checks, by the label the test gives the same configuration in Python.
fn maps(x: &Array2<f64>) -> Result<Vec<(&'static str, Box<dyn DynFeatureMap>)>> {
    use FourierForm::{Paired, Phase};
    let d = x.ncols();
    let gaussian = ShiftInvariantKernel::gaussian(0.5)?;
    Ok(vec![
        (
            "tensor_sketch",
            boxed(TensorSketchParams::new(3, 64).offset(1.0).seed(SEED).fit(d))?,
        ),
        (
            "random_maclaurin",
            boxed(
                RandomMaclaurinParams::new(2, 64)
                    .offset(1.0)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "random_maclaurin_h01",
            boxed(
                RandomMaclaurinH01Params::new(2, 64)
                    .offset(1.0)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "rff_phase",
            boxed(
                RandomFourierParams::new(gaussian, 64)
                    .form(Phase)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "rff_paired_laplacian",
            boxed(
                RandomFourierParams::new(ShiftInvariantKernel::laplacian(2.0)?, 64)
                    .form(Paired)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "rff_matern",
            boxed(
                RandomFourierParams::new(ShiftInvariantKernel::matern(2.5, 1.5)?, 64)
                    .form(Phase)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "orf",
            boxed(
                OrthogonalRandomFeaturesParams::new(gaussian, 64)
                    .form(Phase)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "sorf_paired",
            boxed(
                StructuredOrthogonalParams::new(0.5, 64)
                    .form(Paired)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "fastfood",
            boxed(
                FastfoodParams::new(gaussian, 64)
                    .form(Phase)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "fastfood_fft_paired",
            boxed(
                FastfoodParams::new(gaussian, 64)
                    .form(Paired)
                    .transform(FastfoodTransform::Fourier)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "random_binning",
            boxed(
                RandomBinningParams::new(16, 2.0)
                    .width(256)
                    .seed(SEED)
                    .fit(d),
            )?,
        ),
        (
            "nystroem",
            boxed(
                NystroemParams::new(Kernel::gaussian(0.5)?, 32)
                    .seed(SEED)
                    .fit(x),
            )?,
        ),
        (
            "nystroem_polynomial",
            boxed(
                NystroemParams::new(Kernel::libsvm_polynomial(2, 0.5, 1.0)?, 32)
                    .seed(SEED)
                    .fit(x),
            )?,
        ),
        (
            "prff",
            boxed(PrffParams::new(0.5, 32).max_iterations(5).seed(SEED).fit(x))?,
        ),
    ])
}

fn write_raw(path: &Path, bytes: impl Iterator<Item = [u8; 8]>) -> std::io::Result<()> {
    std::fs::write(path, bytes.flatten().collect::<Vec<u8>>())
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, rows_file, n_rows, out_dir] = &args[..] else {
        return Err("usage: reference_features <rows-file> <n_rows> <out-dir>".into());
    };
    let bytes = std::fs::read(rows_file)?;
    let values: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let n: usize = n_rows.parse()?;
    let x = Array2::from_shape_vec((n, values.len() / n), values)?;
    let out = Path::new(out_dir);
    std::fs::create_dir_all(out)?;
    for (label, map) in maps(&x)? {
        let z = map.transform((&x).into())?;
        write_raw(
            &out.join(format!("{label}.f64")),
            z.iter().map(|v| v.to_le_bytes()),
        )?;
    }
    let rff = RandomFourierParams::new(ShiftInvariantKernel::gaussian(0.5)?, 64)
        .form(FourierForm::Phase)
        .seed(SEED)
        .fit(x.ncols())?;
    let z32 = rff.transform_f32(x.mapv(|v| v as f32).view())?;
    let f32_bytes: Vec<u8> = z32.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(out.join("rff_phase_f32.f32"), f32_bytes)?;
    Ok(())
}
