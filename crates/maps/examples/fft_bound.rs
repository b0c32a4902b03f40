//! The FFTs alone of a Tensor Sketch transform: what bounds `TensorSketch`'s speed from below
//! (docs/performance.md, issue 45's Tensor Sketch target).
//!
//! A degree-`p` Tensor Sketch of `D` features maps each row by `p` forward real FFTs of size `D`
//! and one inverse (module `tensor_sketch`). This runs exactly those FFTs, with the same plans
//! (`realfft`, on RustFFT) and the same parallelism (rayon over rows), on constant inputs: no
//! count sketches, spectrum products or output, so its time is the part no change outside the
//! FFT library can remove.
//!
//! Usage: `cargo run --release -p rfbench-maps --example fft_bound [rows] [D] [degree]`
//! (default 10,000 rows, D = 4000, degree 4: python_vs_sklearn.py's TensorSketch case). Prints
//! the wall time of 5 repetitions.

use std::time::Instant;

use rayon::prelude::*;
use realfft::RealFftPlanner;

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let rows = args.next().unwrap_or(10_000);
    let n = args.next().unwrap_or(4000);
    let degree = args.next().unwrap_or(4);
    let mut planner = RealFftPlanner::<f64>::new();
    let (forward, inverse) = (planner.plan_fft_forward(n), planner.plan_fft_inverse(n));
    let scratch_len = forward.get_scratch_len().max(inverse.get_scratch_len());
    println!("{rows} rows, D = {n}: {degree} forward real FFTs and 1 inverse per row");
    for _ in 0..5 {
        let start = Instant::now();
        (0..rows).into_par_iter().for_each_init(
            || {
                let scratch = vec![Default::default(); scratch_len];
                (
                    forward.make_input_vec(),
                    forward.make_output_vec(),
                    scratch,
                    vec![0.0; n],
                )
            },
            |(input, spectrum, scratch, out), row| {
                for k in 0..degree {
                    // The FFT uses its input as workspace: refill it every time.
                    input.fill((row + k) as f64);
                    forward
                        .process_with_scratch(input, spectrum, scratch)
                        .expect("lengths fixed by the plan");
                }
                spectrum[0].im = 0.0;
                if n.is_multiple_of(2) {
                    spectrum[n / 2].im = 0.0;
                }
                inverse
                    .process_with_scratch(spectrum, out, scratch)
                    .expect("lengths fixed by the plan");
                std::hint::black_box(&out);
            },
        );
        println!("{:.3} s", start.elapsed().as_secs_f64());
    }
}
