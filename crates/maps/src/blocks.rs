//! A map's binary serde form with its float arrays out of line: written as separate buffers
//! beside a small skeleton, and read back as matrices that borrow those buffers instead of
//! copying them.
//!
//! **Why.** A pickled map is loaded by Python's unpickler, which already copies every byte string
//! out of the pickle; NumPy's arrays then keep that copy as their memory. A map that copies the
//! floats again, and checks them in a third pass, loaded a 300 x 4000 RFF map at 3x
//! scikit-learn's time (issue 44); out of cache, each pass costs as much as the unpickler's copy.
//! With its arrays as separate buffers, one per array, a map reads them where they are.
//!
//! **How.** While [`split`] runs a serialisation, every float array of the binary form (module
//! `packed`) goes to a list of buffers and the serialised form gets an empty byte string in its
//! place. While [`join`] runs a deserialisation, each of those empty byte strings takes the next
//! buffer of a [`BlockOwner`]: a matrix read through `packed::matrix` borrows it when it is
//! aligned for `f64` on a little-endian machine (and keeps the owner alive), anything else
//! copies it. Both are per thread and undone on the way out (a nested one restores the outer
//! one's state), so a serialisation elsewhere is not affected and a panic leaves nothing set.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ptr::NonNull;
use std::sync::Arc;

use ndarray::{Array2, ArrayView2};

/// Buffers that stay where they are, unchanged, for as long as their owner lives.
///
/// # Safety
///
/// Every slice [`BlockOwner::blocks`] returns must stay valid and unchanged while `self` lives,
/// wherever the owner is moved (it is kept in an [`Arc`]): matrices read through [`join`] keep
/// pointers into them.
pub unsafe trait BlockOwner: Send + Sync + 'static {
    /// The buffers, in the order [`split`] returned them.
    fn blocks(&self) -> Vec<&[u8]>;
}

/// Runs `serialize` with the binary form's float arrays collected out of line: its result and
/// the arrays' buffers (little-endian `f64`), in the order a deserialisation reads them.
pub fn split<T>(serialize: impl FnOnce() -> T) -> (T, Vec<Vec<u8>>) {
    let _guard = Guard::set(&COLLECTED, Vec::new());
    let value = serialize();
    let blocks = COLLECTED
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    (value, blocks)
}

/// Runs `deserialize` with the float arrays taken from `owner`'s buffers, in order: its result
/// and the number of buffers left unread (a well-formed pair leaves none).
pub fn join<T>(owner: Arc<dyn BlockOwner>, deserialize: impl FnOnce() -> T) -> (T, usize) {
    let blocks = owner
        .blocks()
        .iter()
        .map(|b| (NonNull::from(*b).cast::<u8>(), b.len()))
        .collect();
    let _guard = Guard::set(&SOURCE, Source { owner, blocks });
    let value = deserialize();
    let left = SOURCE.with(|s| s.borrow().as_ref().map_or(0, |s| s.blocks.len()));
    (value, left)
}

thread_local! {
    static COLLECTED: RefCell<Option<Vec<Vec<u8>>>> = const { RefCell::new(None) };
    static SOURCE: RefCell<Option<Source>> = const { RefCell::new(None) };
}

/// The buffers a [`join`] reads, as addresses (valid while `owner` lives).
struct Source {
    owner: Arc<dyn BlockOwner>,
    blocks: VecDeque<(NonNull<u8>, usize)>,
}

/// Sets a thread-local slot for a scope and puts back what it held at the end, even on a panic
/// (so a [`split`] or [`join`] inside another leaves the outer one as it was).
struct Guard<T: 'static> {
    slot: &'static std::thread::LocalKey<RefCell<Option<T>>>,
    outer: Option<T>,
}

impl<T> Guard<T> {
    fn set(slot: &'static std::thread::LocalKey<RefCell<Option<T>>>, value: T) -> Self {
        let outer = slot.with(|s| s.borrow_mut().replace(value));
        Guard { slot, outer }
    }
}

impl<T> Drop for Guard<T> {
    fn drop(&mut self) {
        let outer = self.outer.take();
        self.slot.with(|s| *s.borrow_mut() = outer);
    }
}

/// Puts `bytes` out of line if a [`split`] is running: `None` then, else the bytes back.
pub(crate) fn put(bytes: Vec<u8>) -> Option<Vec<u8>> {
    COLLECTED.with(|c| match c.borrow_mut().as_mut() {
        Some(collected) => {
            collected.push(bytes);
            None
        }
        None => Some(bytes),
    })
}

/// The next out-of-line buffer if a [`join`] is running (`Some(Err)` when there is none left).
pub(crate) fn take() -> Option<Result<Taken, &'static str>> {
    SOURCE.with(|s| {
        let mut source = s.borrow_mut();
        let source = source.as_mut()?;
        Some(match source.blocks.pop_front() {
            Some((ptr, len)) => Ok(Taken {
                owner: Arc::clone(&source.owner),
                ptr,
                len,
            }),
            None => Err("an array with no out-of-line buffer left for it"),
        })
    })
}

/// Little-endian `f64` from `bytes` (whose length is a multiple of 8; a trailing part is ignored).
pub(crate) fn floats_from_bytes(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// One out-of-line buffer, with what keeps it alive.
pub(crate) struct Taken {
    owner: Arc<dyn BlockOwner>,
    ptr: NonNull<u8>,
    len: usize,
}

impl Taken {
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: the owner, held by `self`, keeps the buffer valid and unchanged.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The buffer as `f64` values in place, if it is aligned for them and this machine is
    /// little-endian; `None` otherwise (the caller copies).
    fn floats(&self) -> Option<NonNull<f64>> {
        let aligned = (self.ptr.as_ptr() as usize).is_multiple_of(std::mem::align_of::<f64>());
        let fits = self.len.is_multiple_of(8);
        (aligned && fits && cfg!(target_endian = "little")).then(|| self.ptr.cast())
    }
}

/// A read-only `rows x cols` matrix of `f64`, row-major: owned, or borrowed from an out-of-line
/// buffer whose owner it keeps alive. Maps keep their large arrays in it; everything else reads
/// it through [`Matrix::view`].
#[derive(Clone)]
pub(crate) struct Matrix {
    rows: usize,
    cols: usize,
    store: Store,
}

#[derive(Clone)]
enum Store {
    Owned(Array2<f64>),
    Borrowed {
        _owner: Arc<dyn BlockOwner>,
        ptr: NonNull<f64>,
    },
}

// SAFETY: a borrowed matrix's memory is never written and lives as long as its owner, which the
// matrix holds; `BlockOwner` is `Send + Sync`.
unsafe impl Send for Matrix {}
unsafe impl Sync for Matrix {}

impl Matrix {
    /// `a` in standard layout, copied only when it is not (a deserialised array is, and a copy
    /// of a large one doubled its load time).
    pub(crate) fn owned(a: Array2<f64>) -> Self {
        let (rows, cols) = a.dim();
        let a = match a.is_standard_layout() {
            true => a,
            false => a.as_standard_layout().into_owned(),
        };
        Self {
            rows,
            cols,
            store: Store::Owned(a),
        }
    }

    /// A `rows x cols` matrix on `buffer`'s memory if it can be borrowed, else a copy; `Err`
    /// when the buffer does not hold `rows * cols` floats.
    pub(crate) fn from_taken(rows: usize, cols: usize, buffer: Taken) -> Result<Self, String> {
        let wanted = rows.checked_mul(cols).and_then(|n| n.checked_mul(8));
        if wanted != Some(buffer.len) {
            return Err(format!("{} bytes for a {rows} x {cols} array", buffer.len));
        }
        let Some(ptr) = buffer.floats() else {
            let values = floats_from_bytes(buffer.bytes());
            let a = Array2::from_shape_vec((rows, cols), values).expect("the length was checked");
            return Ok(Self::owned(a));
        };
        let store = Store::Borrowed {
            _owner: buffer.owner,
            ptr,
        };
        Ok(Self { rows, cols, store })
    }

    pub(crate) fn view(&self) -> ArrayView2<'_, f64> {
        match &self.store {
            Store::Owned(a) => a.view(),
            // SAFETY: `rows * cols` aligned floats, row-major, alive and unchanged while the
            // owner this matrix holds lives (checked in `from_taken`).
            Store::Borrowed { ptr, .. } => unsafe {
                ArrayView2::from_shape_ptr((self.rows, self.cols), ptr.as_ptr())
            },
        }
    }

    /// Whether the values are borrowed from an out-of-line buffer (not copied).
    #[cfg(test)]
    pub(crate) fn is_borrowed(&self) -> bool {
        matches!(self.store, Store::Borrowed { .. })
    }
}

impl PartialEq for Matrix {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl std::fmt::Debug for Matrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.view().fmt(f)
    }
}
