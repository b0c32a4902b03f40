//! The processor's fused multiply-add peak, measured: what a matrix product's GFLOP/s is set
//! against in docs/performance.md (issue 45 asks for the Fourier maps' achieved GFLOP/s beside
//! the machine's FMA peak).
//!
//! Each thread runs chains of independent vector FMAs on registers (no memory traffic), enough
//! chains to cover the FMA latency at full throughput, and counts 2 flops per lane per FMA. The
//! widest vectors the processor has are used: 512-bit (AVX-512F) or 256-bit (AVX2 + FMA).
//!
//! Usage: `cargo run --release -p rfbench-maps --example fma_peak [threads]` (default: every
//! core rayon sees). Prints GFLOP/s for f64 and f32, one thread and all threads.

use std::time::Instant;

/// Independent accumulator chains per thread: latency (4-5 cycles) times throughput (up to 2 per
/// cycle) fits in 12 with room to spare, and 12 vectors plus the two operands fit in 16 registers.
const CHAINS: usize = 12;
const ITERATIONS: u64 = 200_000_000;

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .map_or_else(rayon::current_num_threads, |t| {
            t.parse().expect("threads: a positive integer")
        });
    let Some(kernel) = Kernel::detect() else {
        eprintln!("neither AVX-512F nor AVX2 with FMA: no vector FMA peak to measure");
        std::process::exit(1);
    };
    println!("vector width: {} bits", kernel.bits);
    for precision in [Precision::F64, Precision::F32] {
        for n in [1, threads] {
            let gflops = measure(kernel, precision, n);
            println!("{precision:?}, {n} thread(s): {gflops:.1} GFLOP/s");
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Precision {
    F64,
    F32,
}

#[derive(Clone, Copy)]
struct Kernel {
    bits: usize,
}

impl Kernel {
    fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") {
                return Some(Self { bits: 512 });
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                return Some(Self { bits: 256 });
            }
        }
        None
    }

    /// Runs the chains on this thread; returns a value so the work cannot be optimised away.
    fn run(self, precision: Precision) -> f64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `detect` checked the instruction sets each function is compiled for.
        unsafe {
            match (self.bits, precision) {
                (512, Precision::F64) => x86::fma512_f64(ITERATIONS),
                (512, Precision::F32) => x86::fma512_f32(ITERATIONS),
                (_, Precision::F64) => x86::fma256_f64(ITERATIONS),
                (_, Precision::F32) => x86::fma256_f32(ITERATIONS),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("detect returns None off x86_64")
    }

    fn flops_per_thread(self, precision: Precision) -> f64 {
        let lanes = match precision {
            Precision::F64 => self.bits / 64,
            Precision::F32 => self.bits / 32,
        };
        2.0 * (lanes * CHAINS) as f64 * ITERATIONS as f64
    }
}

fn measure(kernel: Kernel, precision: Precision, threads: usize) -> f64 {
    let start = Instant::now();
    let sink: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| scope.spawn(move || kernel.run(precision)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    });
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    kernel.flops_per_thread(precision) * threads as f64 / seconds / 1e9
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::CHAINS;
    use std::arch::x86_64::*;

    /// One body for every width and precision: `CHAINS` accumulators `a = a * m + c`, with `m`
    /// and `c` chosen so the values stay finite and normal.
    macro_rules! chains {
        ($name:ident, $feature:literal, $ty:ty, $set1:ident, $fma:ident, $store:ident, $lanes:expr, $elem:ty) => {
            #[target_feature(enable = $feature)]
            pub unsafe fn $name(iterations: u64) -> f64 {
                // Opaque to the optimiser, so the chains are neither folded nor dropped.
                let m: $ty = std::hint::black_box($set1(0.999_999 as $elem));
                let c: $ty = std::hint::black_box($set1(1e-6 as $elem));
                let mut acc: [$ty; CHAINS] = std::hint::black_box([$set1(1.0 as $elem); CHAINS]);
                for _ in 0..std::hint::black_box(iterations) {
                    for a in acc.iter_mut() {
                        *a = $fma(*a, m, c);
                    }
                }
                let mut total = 0.0;
                for a in acc {
                    let mut lanes = [0.0 as $elem; $lanes];
                    // SAFETY: `lanes` holds exactly one vector; the store is unaligned.
                    unsafe { $store(lanes.as_mut_ptr(), a) };
                    total += lanes.iter().map(|&v| v as f64).sum::<f64>();
                }
                total
            }
        };
    }

    chains!(
        fma512_f64,
        "avx512f",
        __m512d,
        _mm512_set1_pd,
        _mm512_fmadd_pd,
        _mm512_storeu_pd,
        8,
        f64
    );
    chains!(
        fma512_f32,
        "avx512f",
        __m512,
        _mm512_set1_ps,
        _mm512_fmadd_ps,
        _mm512_storeu_ps,
        16,
        f32
    );
    chains!(
        fma256_f64,
        "avx2,fma",
        __m256d,
        _mm256_set1_pd,
        _mm256_fmadd_pd,
        _mm256_storeu_pd,
        4,
        f64
    );
    chains!(
        fma256_f32,
        "avx2,fma",
        __m256,
        _mm256_set1_ps,
        _mm256_fmadd_ps,
        _mm256_storeu_ps,
        8,
        f32
    );
}
