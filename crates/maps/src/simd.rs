//! One hot loop compiled for several vector instruction sets, the widest the processor has chosen
//! at run time.
//!
//! **Why.** The crate is compiled for the x86-64 baseline (SSE2: two `f64` lanes), so that one
//! binary and one wheel run on every x86-64 processor. The loops that dominate the transforms
//! (cosines, exponentials, Walsh-Hadamard butterflies, sign sums) are written branch-free so that
//! the compiler vectorises them; [`vector_builds!`] compiles such a loop again with AVX2 and with
//! AVX-512F enabled (four and eight `f64` lanes) and calls the widest build the processor can run.
//!
//! **Same bits.** The builds perform the same operations in the same order: Rust never contracts
//! `a * b + c` into a fused multiply-add, and the loops' reductions are exact (maxima, `&`).
//! Each loop's tests compare every build the test machine can run with the baseline build, bit
//! for bit, so results do not depend on the processor's vector width.

/// A vector instruction set a loop can be built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// AVX-512 Foundation: 512-bit vectors.
    Avx512f,
    /// AVX2: 256-bit integer and floating-point vectors.
    Avx2,
    /// What the crate is compiled for (SSE2 on x86-64).
    Baseline,
}

impl Isa {
    /// Whether this processor can run code built for `self`.
    pub(crate) fn is_supported(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512f => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            Isa::Baseline => true,
            #[allow(unreachable_patterns)] // only off x86-64
            _ => false,
        }
    }

    /// The widest instruction set this processor can run (the detection is cached by the
    /// standard library: one atomic load per call).
    pub(crate) fn widest() -> Isa {
        Self::supported()
            .next()
            .expect("the baseline is always supported")
    }

    /// Every instruction set this processor can run, widest first; the baseline last.
    pub(crate) fn supported() -> impl Iterator<Item = Isa> {
        [Isa::Avx512f, Isa::Avx2, Isa::Baseline]
            .into_iter()
            .filter(|isa| isa.is_supported())
    }
}

/// `vector_builds!(fn with(args) [-> T] => body)` defines `pub(crate) fn with(isa: Isa, args)
/// [-> T]`, which calls `body(args)` compiled for `isa`; `body` must be `#[inline(always)]` so that it is
/// compiled into each build. The caller picks `Isa::widest()`; tests pass each supported `Isa`.
///
/// # Panics
/// `with` panics if the processor cannot run `isa` (an internal error: only supported sets are
/// ever passed).
macro_rules! vector_builds {
    ($(#[$meta:meta])* fn $with:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:path) => {
        $(#[$meta])*
        pub(crate) fn $with(isa: $crate::simd::Isa, $($arg: $ty),*) $(-> $ret)? {
            assert!(isa.is_supported(), "{isa:?} is not supported by this processor");
            match isa {
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Isa::Avx512f => {
                    #[target_feature(enable = "avx512f")]
                    unsafe fn build($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the processor supports AVX-512F (asserted above).
                    unsafe { build($($arg),*) }
                }
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Isa::Avx2 => {
                    #[target_feature(enable = "avx2")]
                    unsafe fn build($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the processor supports AVX2 (asserted above).
                    unsafe { build($($arg),*) }
                }
                _ => $body($($arg),*),
            }
        }
    };
}

pub(crate) use vector_builds;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_is_always_supported_and_last() {
        let supported: Vec<Isa> = Isa::supported().collect();
        assert_eq!(supported.last(), Some(&Isa::Baseline));
        assert_eq!(Isa::widest(), supported[0]);
    }

    /// The wide builds are listed exactly when the processor has them: otherwise every loop's
    /// bit-for-bit test would compare the baseline with itself and pass vacuously.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_wide_builds_are_listed_when_the_processor_has_them() {
        let listed = |isa| Isa::supported().any(|s| s == isa);
        assert_eq!(
            listed(Isa::Avx512f),
            std::arch::is_x86_feature_detected!("avx512f")
        );
        assert_eq!(
            listed(Isa::Avx2),
            std::arch::is_x86_feature_detected!("avx2")
        );
    }

    vector_builds!(
        /// A loop the builds must agree on.
        fn scaled_sum_with(x: &[f64], out: &mut f64) => scaled_sum
    );

    #[inline(always)]
    fn scaled_sum(x: &[f64], out: &mut f64) {
        *out = x.iter().map(|v| 0.5 * v).sum();
    }

    #[test]
    fn every_supported_build_runs_and_an_unsupported_one_panics() {
        let x: Vec<f64> = (0..100).map(f64::from).collect();
        for isa in Isa::supported() {
            let mut out = 0.0;
            scaled_sum_with(isa, &x, &mut out);
            assert_eq!(out, 2475.0, "{isa:?}");
        }
        if let Some(missing) = [Isa::Avx512f, Isa::Avx2]
            .into_iter()
            .find(|isa| !isa.is_supported())
        {
            let caught = std::panic::catch_unwind(|| scaled_sum_with(missing, &x, &mut 0.0));
            assert!(caught.is_err(), "{missing:?} ran on a processor without it");
        }
    }
}
