//! The Fourier-type maps' check of their projections. A feature `cos(w'x + b)` of a finite row
//! is finite unless the projection `w'x` itself is not: rows near the float range (`1e300`)
//! overflow the product to infinity, and `cos(inf)` is NaN. The input check (finite values) does
//! not see it, so the maps check what they computed.
//!
//! **Why a counter, not a scan of every output.** A non-finite projection can only reach the
//! cosine loops' slow path (the fast path takes chunks of finite arguments below
//! `FAST_TRIG_LIMIT`), so that path counts the chunks with one, and a transform scans its output
//! for the offending row only when the count moved during it. Ordinary transforms pay one atomic
//! load before and after; a transform running beside one that overflowed may scan for nothing,
//! which costs time, not a false error.

use std::sync::atomic::{AtomicUsize, Ordering};

use ndarray::ArrayView2;

use crate::error::{MapError, Result};

/// Cosine chunks seen with a non-finite projection, since the process started.
static NON_FINITE_CHUNKS: AtomicUsize = AtomicUsize::new(0);

/// Called by the cosine loops' slow path with the arguments of one chunk.
#[inline]
pub(crate) fn note_chunk<T: Copy + Into<f64>>(arguments: &[T]) {
    if arguments.iter().any(|&v| !v.into().is_finite()) {
        NON_FINITE_CHUNKS.fetch_add(1, Ordering::Relaxed);
    }
}

/// A transform's view of the counter: taken before it computes, checked on its output after.
pub(crate) struct ProjectionWatch(usize);

impl ProjectionWatch {
    pub(crate) fn start() -> Self {
        ProjectionWatch(NON_FINITE_CHUNKS.load(Ordering::Relaxed))
    }

    /// `Ok` unless a projection overflowed during the transform: then the first row of `out`
    /// holding a non-finite feature, as [`MapError::ProjectionOverflow`].
    pub(crate) fn finish<T: Copy + Into<f64>>(self, out: ArrayView2<'_, T>) -> Result<()> {
        if NON_FINITE_CHUNKS.load(Ordering::Relaxed) == self.0 {
            return Ok(());
        }
        match out
            .rows()
            .into_iter()
            .position(|row| row.iter().any(|&v| !v.into().is_finite()))
        {
            Some(row) => Err(MapError::ProjectionOverflow { row }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_non_finite_argument_is_counted_and_reported() {
        let watch = ProjectionWatch::start();
        note_chunk(&[1e300, -2.0]);
        let clean = ndarray::Array2::<f64>::zeros((3, 2));
        // Another transform's overflow (or this one's, with finite features) is no error.
        note_chunk(&[f64::INFINITY]);
        assert_eq!(watch.finish(clean.view()), Ok(()));
        let watch = ProjectionWatch::start();
        note_chunk(&[f32::NAN]);
        let mut out = ndarray::Array2::<f32>::zeros((3, 2));
        out[[2, 1]] = f32::NAN;
        assert_eq!(
            watch.finish(out.view()),
            Err(MapError::ProjectionOverflow { row: 2 })
        );
    }
}
