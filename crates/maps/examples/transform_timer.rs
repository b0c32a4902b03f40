//! A timing server for `scripts/perf/compare_rff_sklearn.py --interleaved`: it builds the MNIST-like
//! matrix of the shift-invariant bench (10,000 x 780 by default), writes it where the script reads
//! it, fits the maps once, then answers one timing request per line on stdin with the wall time
//! of one call in seconds on stdout. The script alternates these requests with scikit-learn's
//! timings in its own process, so both sides see the same machine load.
//!
//! Requests:
//! * `rff64` / `rff32`: random Fourier features, Gaussian kernel with scikit-learn's `gamma = 1`
//!   (`sigma = 1/sqrt(2)`), `D = 4000`, phase form (what `RBFSampler` computes), `transform` of the
//!   whole matrix in `f64`, resp. `transform_f32` of its `f32` copy (made once, untimed);
//! * `rff64csr`: the same `f64` map on the matrix as CSR (made once, untimed), and
//!   `rff64csr_rows`: the same row by row through `FeatureMap::map_row` in parallel over rows (the
//!   path CSR input took before it was densified by blocks), for the comparison of the two;
//! * `nystroem <m>`: Nystroem with the same Gaussian kernel and `m` landmarks, fit on the matrix
//!   plus `transform` of it (what `Nystroem(...).fit(x).transform(x)` does);
//! * `quit`.
//!
//! Usage: `transform_timer <data-file> [n_rows]` (the data file: raw little-endian `f64`,
//! row-major).

use std::io::{BufRead, Write};
use std::time::Instant;

use ndarray::{Array2, Axis};
use rayon::prelude::*;
use rfbench_maps::{
    CsrMatrix, FeatureMap, FourierForm, Kernel, NystroemParams, RandomFourierParams,
    ShiftInvariantKernel,
};

#[path = "../benches/support/mnist_like.rs"]
mod mnist_like;

const N_COMPONENTS: usize = 4000;
const SIGMA: f64 = std::f64::consts::FRAC_1_SQRT_2;
const MAP_SEED: u64 = 2007;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: transform_timer <data-file> [n_rows]")?;
    let n_rows: usize = args.next().map_or(Ok(10_000), |v| v.parse())?;
    let x = mnist_like::mnist_like(n_rows);
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let partial = format!("{path}.part");
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, &path)?;
    let x32 = x.mapv(|v| v as f32);
    let csr = CsrMatrix::from_dense(x.view())?;
    let rff = RandomFourierParams::new(ShiftInvariantKernel::gaussian(SIGMA)?, N_COMPONENTS)
        .form(FourierForm::Phase)
        .seed(MAP_SEED)
        .fit(x.ncols())?;
    let gaussian = Kernel::Gaussian { sigma: SIGMA };

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "ready {} {}", x.nrows(), x.ncols())?;
    stdout.flush()?;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        // The output is dropped after the clock stops (scikit-learn's timing excludes freeing).
        let seconds = match words.as_slice() {
            ["rff64"] => timed(|| rff.transform(&x))?,
            ["rff32"] => timed(|| rff.transform_f32(x32.view()))?,
            ["rff64csr"] => timed(|| rff.transform(&csr))?,
            ["rff64csr_rows"] => timed(|| Ok(row_by_row(&rff, &csr)))?,
            ["nystroem", m] => {
                let m = m.parse()?;
                timed(|| {
                    let map = NystroemParams::new(gaussian, m).seed(MAP_SEED).fit(&x)?;
                    map.transform(&x)
                })?
            }
            ["quit"] => break,
            other => return Err(format!("unknown request {other:?}").into()),
        };
        writeln!(stdout, "{seconds:.6}")?;
        stdout.flush()?;
    }
    Ok(())
}

/// Wall seconds of `f`, its result dropped after the clock stops.
fn timed<T>(f: impl FnOnce() -> rfbench_maps::Result<T>) -> rfbench_maps::Result<f64> {
    let start = Instant::now();
    let value = std::hint::black_box(f()?);
    let seconds = start.elapsed().as_secs_f64();
    drop(value);
    Ok(seconds)
}

/// Every row through `map_row`, in parallel over blocks of rows.
fn row_by_row<M: FeatureMap>(map: &M, x: &CsrMatrix) -> Array2<f64> {
    let mut out = Array2::zeros((x.n_rows(), map.output_dim()));
    out.axis_chunks_iter_mut(Axis(0), 256)
        .into_par_iter()
        .enumerate()
        .for_each(|(b, mut block)| {
            let mut scratch = map.new_scratch();
            for (k, mut row) in block.rows_mut().into_iter().enumerate() {
                let slice = row.as_slice_mut().expect("standard layout");
                map.map_row(&x.row(b * 256 + k), slice, &mut scratch);
            }
        });
    out
}
