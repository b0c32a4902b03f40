//! Zeroed output matrices backed by transparent huge pages where the kernel offers them.
//!
//! **Why.** A batch's output is large (`10,000 x 4000` `f32` features are 160 MB) and freshly
//! mapped: its first write faults every 4 KiB page in, 40,000 faults, each a kernel entry plus a
//! TLB miss per page afterwards in the matrix product. With transparent huge pages in `madvise`
//! mode (a common default) a region asks for 2 MiB pages with `madvise(MADV_HUGEPAGE)`, which
//! NumPy does for every large array; without it our side paid tens of milliseconds per call that
//! scikit-learn did not. The advice only changes how the zeroed memory is backed, never its
//! contents; where it is refused or unsupported the pages stay small.

use ndarray::Array2;

/// Regions below this are left alone: under one huge page there is nothing to gain.
const MIN_BYTES: usize = 4 << 20;

/// `Array2::zeros((rows, cols))`, its buffer advised to huge pages (Linux) before any write.
pub(crate) fn zeros<T: Clone + num_traits::Zero>(rows: usize, cols: usize) -> Array2<T> {
    let mut out = Array2::<T>::zeros((rows, cols));
    advise_huge_pages(
        out.as_mut_ptr().cast(),
        out.len() * std::mem::size_of::<T>(),
    );
    out
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    if len < MIN_BYTES {
        return;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = if page > 0 { page as usize } else { 4096 };
    let begin = (start as usize).div_ceil(page) * page;
    let end = (start as usize + len) / page * page;
    if end > begin {
        // SAFETY: [begin, end) lies inside the live allocation `out` (page-rounded inwards);
        // MADV_HUGEPAGE changes only how its pages are backed, not their contents. A failure
        // (no THP support, EINVAL) leaves the memory as it was, so the result is ignored.
        unsafe {
            libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advised matrix is a zero matrix of the asked shape, small and large.
    #[test]
    fn zeros_are_zeros() {
        for (r, c) in [(0, 5), (3, 4), (1500, 1000)] {
            let z: Array2<f32> = zeros(r, c);
            assert_eq!(z.dim(), (r, c));
            assert!(z.iter().all(|&v| v == 0.0));
            let z: Array2<f64> = zeros(r, c);
            assert!(z.iter().all(|&v| v == 0.0));
        }
    }
}
