//! What does the arithmetic on this machine, for the provenance of a result: the OpenBLAS build
//! the process linked (LAPACK, `dsyrk`, the Nystroem and ridge solves) with the kernels it chose
//! at load time, and the vector instructions the `gemm` crate's products ([`crate::block_product`])
//! dispatch to. Two runs on the same processor model can differ in both (another OpenBLAS, a
//! virtual machine hiding AVX-512), and timings with them.

use std::ffi::{c_char, CStr};

extern "C" {
    // OpenBLAS's own description of its build ("OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell
    // MAX_THREADS=64") and the name of the kernel set it selected.
    fn openblas_get_config() -> *const c_char;
    fn openblas_get_corename() -> *const c_char;
}

/// The linked OpenBLAS's build string, with the kernel set it selected when the string does not
/// name it.
pub fn blas() -> String {
    // SAFETY: both functions return pointers to static, NUL-terminated strings of the library,
    // valid for the life of the process; a null pointer is checked.
    let read = |p: *const c_char| {
        (!p.is_null()).then(|| {
            unsafe { CStr::from_ptr(p) }
                .to_string_lossy()
                .trim()
                .to_string()
        })
    };
    let config = read(unsafe { openblas_get_config() }).unwrap_or_default();
    let core = read(unsafe { openblas_get_corename() }).unwrap_or_default();
    if core.is_empty() || config.to_lowercase().contains(&core.to_lowercase()) {
        config
    } else {
        format!("{config} (kernels: {core})")
    }
}

/// The widest vector instruction set the dense products can use here: `avx512f`, `avx2+fma`,
/// or the architecture's baseline.
pub fn vector_isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512f";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2+fma";
        }
        "sse2"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The linked library answers with its version, and names the kernels it runs.
    #[test]
    fn names_the_linked_openblas() {
        let blas = blas();
        assert!(blas.starts_with("OpenBLAS 0."), "{blas}");
        assert!(!vector_isa().is_empty());
    }
}
