//! Float arrays in the maps' serde form: unchanged for a human-readable format (JSON: ndarray's
//! and serde's lists of numbers), one block of little-endian bytes for a binary one (postcard:
//! the Python package's pickles).
//!
//! **Why.** Written float by float, a binary reader decodes every value through serde (about
//! 6 ns each): a pickled 300 x 4000 map loaded 8x slower than scikit-learn's, which copies one
//! buffer (issue 44). As one byte string the reader converts the block in a single pass. The
//! maps' deserialisers check the values afterwards as before.

use std::cell::Cell;

use ndarray::{Array2, ArrayView2};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::blocks::{self, Matrix, Taken};
use crate::simd::{vector_builds, Isa};

/// `values` as little-endian bytes.
fn to_bytes<'a>(values: impl ExactSizeIterator<Item = &'a f64>) -> Bytes {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    Bytes(Cell::new(out))
}

/// A byte string, serialised as one (serde writes a `&[u8]` element by element), or out of line
/// with an empty one in its place while a [`blocks::split`] runs.
struct Bytes(Cell<Vec<u8>>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match blocks::put(self.0.take()) {
            Some(inline) => s.serialize_bytes(&inline),
            None => s.serialize_bytes(&[]),
        }
    }
}

/// Floats read from one byte string of little-endian `f64`, or from the next out-of-line buffer
/// while a [`blocks::join`] runs (the byte string is then empty).
enum Block {
    Inline(Vec<f64>),
    OutOfLine(Taken),
}

impl Block {
    fn into_vec(self) -> Vec<f64> {
        match self {
            Block::Inline(values) => values,
            Block::OutOfLine(taken) => blocks::floats_from_bytes(taken.bytes()),
        }
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Block;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string of little-endian f64, 8 bytes each")
            }

            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Block, E> {
                let taken = match blocks::take() {
                    None => None,
                    Some(Err(missing)) => return Err(E::custom(missing)),
                    Some(Ok(_)) if !v.is_empty() => {
                        return Err(E::custom(
                            "an array written in line where one out of line was expected",
                        ))
                    }
                    Some(Ok(taken)) => Some(taken),
                };
                let len = taken.as_ref().map_or(v.len(), |t| t.bytes().len());
                if !len.is_multiple_of(8) {
                    return Err(E::invalid_length(len, &self));
                }
                Ok(match taken {
                    Some(taken) => Block::OutOfLine(taken),
                    None => Block::Inline(blocks::floats_from_bytes(v)),
                })
            }
        }
        d.deserialize_bytes(Visitor)
    }
}

/// For `#[serde(with = "crate::packed::vec")]` on a `Vec<f64>`.
pub(crate) mod vec {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => v.serialize(s),
            false => to_bytes(v.iter()).serialize(s),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        match d.is_human_readable() {
            true => Vec::<f64>::deserialize(d),
            false => Ok(Block::deserialize(d)?.into_vec()),
        }
    }
}

/// A matrix's form (JSON: ndarray's).
fn serialize_view<S: Serializer>(a: ArrayView2<'_, f64>, s: S) -> Result<S::Ok, S::Error> {
    match s.is_human_readable() {
        true => a.serialize(s),
        false => (a.nrows(), a.ncols(), to_bytes(a.iter())).serialize(s),
    }
}

/// The shape and values of an array's binary form.
fn deserialize_parts<'de, D: Deserializer<'de>>(d: D) -> Result<(usize, usize, Block), D::Error> {
    <(usize, usize, Block)>::deserialize(d)
}

/// `rows x cols` values into an array, or an error naming the shape.
fn shaped<E: de::Error>(rows: usize, cols: usize, values: Vec<f64>) -> Result<Array2<f64>, E> {
    Array2::from_shape_vec((rows, cols), values)
        .map_err(|e| E::custom(format!("a {rows} x {cols} array: {e}")))
}

/// For `#[serde(with = "crate::packed::matrix")]` on a [`Matrix`]: rows, columns and the values
/// in row-major order (JSON: ndarray's form), read in place from an out-of-line buffer when it
/// can be.
pub(crate) mod matrix {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(a: &Matrix, s: S) -> Result<S::Ok, S::Error> {
        serialize_view(a.view(), s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Matrix, D::Error> {
        if d.is_human_readable() {
            return Ok(Matrix::owned(Array2::<f64>::deserialize(d)?));
        }
        match deserialize_parts(d)? {
            (rows, cols, Block::Inline(values)) => Ok(Matrix::owned(shaped(rows, cols, values)?)),
            (rows, cols, Block::OutOfLine(taken)) => {
                Matrix::from_taken(rows, cols, taken).map_err(de::Error::custom)
            }
        }
    }
}

/// Whether every value is finite: what the maps' deserialisers check of the arrays they read.
/// Without an early exit, so the test runs over vector registers (an `all` over an ndarray
/// iterator took a third of a 300 x 4000 map's load).
pub(crate) fn all_finite<'a>(values: impl IntoIterator<Item = ArrayView2<'a, f64>>) -> bool {
    values.into_iter().all(|a| match a.as_slice_memory_order() {
        Some(slice) => slice_finite(slice),
        None => a.iter().all(|v| v.is_finite()),
    })
}

/// Whether every value of a slice is finite, without an early exit so that the test runs over
/// vector registers, in the processor's widest build ([`crate::simd`]). Also the Python
/// package's overflow check of a transform's output, chunk by chunk.
pub fn slice_finite(values: &[f64]) -> bool {
    finite_f64_with(Isa::widest(), values)
}

/// [`slice_finite`] of `f32` values.
pub fn slice_finite_f32(values: &[f32]) -> bool {
    finite_f32_with(Isa::widest(), values)
}

vector_builds!(
    /// [`slice_finite`] built for `isa`.
    fn finite_f64_with(values: &[f64]) -> bool => fold_finite_f64
);

vector_builds!(
    /// [`slice_finite_f32`] built for `isa`.
    fn finite_f32_with(values: &[f32]) -> bool => fold_finite_f32
);

#[inline(always)]
fn fold_finite_f64(values: &[f64]) -> bool {
    values.iter().fold(true, |ok, v| ok & v.is_finite())
}

#[inline(always)]
fn fold_finite_f32(values: &[f32]) -> bool {
    values.iter().fold(true, |ok, v| ok & v.is_finite())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// Every vector build finds one NaN or infinity wherever it is (first, last, inside a vector,
    /// in the tail), in `f64` and `f32`, and passes finite extremes.
    #[test]
    fn every_vector_build_finds_every_non_finite_value() {
        for len in [1, 7, 64, 1000] {
            for isa in Isa::supported() {
                let finite: Vec<f64> = (0..len).map(|i| [f64::MAX, -0.0, 5e-324][i % 3]).collect();
                assert!(finite_f64_with(isa, &finite), "{isa:?}");
                let narrow: Vec<f32> = (0..len).map(|i| [f32::MAX, -0.0, 1e-45][i % 3]).collect();
                assert!(finite_f32_with(isa, &narrow), "{isa:?}");
                for at in [0, len / 2, len - 1] {
                    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                        let mut v = finite.clone();
                        v[at] = bad;
                        assert!(!finite_f64_with(isa, &v), "{isa:?}, {bad} at {at} of {len}");
                        let mut w = narrow.clone();
                        w[at] = bad as f32;
                        assert!(!finite_f32_with(isa, &w), "{isa:?}, {bad} at {at} of {len}");
                    }
                }
            }
        }
    }

    use super::*;
    use crate::blocks::BlockOwner;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Both {
        #[serde(with = "matrix")]
        a: Matrix,
        #[serde(with = "vec")]
        v: Vec<f64>,
    }

    fn both() -> Both {
        // Transposed: a column-major array is written in row-major order.
        let a = Array2::from_shape_vec((3, 2), vec![1.5, -0.0, f64::MIN_POSITIVE, 2.0, 3.0, -7.25])
            .unwrap()
            .reversed_axes();
        Both {
            a: Matrix::owned(a),
            v: vec![0.1, f64::MAX, -1e-300],
        }
    }

    /// JSON keeps the form maps were saved in; the binary form is one block per array, read
    /// back to the same bits.
    #[test]
    fn json_is_unchanged_and_binary_is_a_block() {
        let json = serde_json::to_string(&both()).unwrap();
        assert!(
            json.contains(r#""v":[0.1,1.7976931348623157e+308,-1e-300]"#),
            "{json}"
        );
        assert!(
            json.contains(r#""dim":[2,3],"data":[1.5,2.2250738585072014e-308,3.0,"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Both>(&json).unwrap(), both());
        let binary = postcard::to_allocvec(&both()).unwrap();
        // rows, columns, length, 6 floats; length, 3 floats.
        assert_eq!(binary.len(), 3 + 6 * 8 + 1 + 3 * 8);
        assert_eq!(binary[3..11], 1.5f64.to_le_bytes());
        assert_eq!(postcard::from_bytes::<Both>(&binary).unwrap(), both());
    }

    /// A block whose length is not a whole number of floats, or does not fill the shape, is an
    /// error, not a panic.
    #[test]
    fn a_bad_block_is_an_error() {
        let mut binary = postcard::to_allocvec(&both()).unwrap();
        binary[0] = 4; // 4 rows of 3 for 6 values
        assert!(postcard::from_bytes::<Both>(&binary).is_err());
        let short = [1u8, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(postcard::from_bytes::<Both>(&short).is_err());
    }

    /// Buffers at `offset` bytes into 8-aligned memory; says when it is dropped.
    struct Owner {
        buffers: Vec<Vec<f64>>,
        lens: Vec<usize>,
        offset: usize,
        dropped: Arc<AtomicBool>,
    }

    impl Owner {
        fn new(blocks: &[Vec<u8>], offset: usize) -> (Arc<Self>, Arc<AtomicBool>) {
            let buffers = blocks
                .iter()
                .map(|b| {
                    let mut floats = vec![0.0f64; (offset + b.len()).div_ceil(8)];
                    let bytes = floats_as_bytes_mut(&mut floats);
                    bytes[offset..offset + b.len()].copy_from_slice(b);
                    floats
                })
                .collect();
            let lens = blocks.iter().map(Vec::len).collect();
            let dropped = Arc::new(AtomicBool::new(false));
            let owner = Owner {
                buffers,
                lens,
                offset,
                dropped: Arc::clone(&dropped),
            };
            (Arc::new(owner), dropped)
        }
    }

    fn floats_as_bytes_mut(floats: &mut [f64]) -> &mut [u8] {
        let len = std::mem::size_of_val(floats);
        // SAFETY: any bytes are valid f64 bits; the length is the slice's size in bytes.
        unsafe { std::slice::from_raw_parts_mut(floats.as_mut_ptr().cast::<u8>(), len) }
    }

    // SAFETY: the vectors are never changed after `new`, and their heap memory does not move.
    unsafe impl BlockOwner for Owner {
        fn blocks(&self) -> Vec<&[u8]> {
            self.buffers
                .iter()
                .zip(&self.lens)
                .map(|(f, &len)| {
                    let len_bytes = std::mem::size_of_val(&f[..]);
                    // SAFETY: as in `floats_as_bytes_mut`, read-only.
                    let bytes = unsafe { std::slice::from_raw_parts(f.as_ptr().cast(), len_bytes) };
                    &bytes[self.offset..self.offset + len]
                })
                .collect()
        }
    }

    impl Drop for Owner {
        fn drop(&mut self) {
            self.dropped.store(true, Ordering::SeqCst);
        }
    }

    fn split_both() -> (Vec<u8>, Vec<Vec<u8>>) {
        let (skeleton, blocks) = blocks::split(|| postcard::to_allocvec(&both()));
        (skeleton.unwrap(), blocks)
    }

    fn join_both(owner: Arc<Owner>, skeleton: &[u8]) -> (postcard::Result<Both>, usize) {
        blocks::join(owner, || postcard::from_bytes::<Both>(skeleton))
    }

    /// Out of line, the skeleton holds shapes and empty byte strings; the buffers are the inline
    /// form's blocks, and an aligned one is read in place, kept alive by the map.
    #[test]
    fn out_of_line_arrays_are_borrowed_when_aligned() {
        let (skeleton, blocks) = split_both();
        let inline = postcard::to_allocvec(&both()).unwrap();
        assert_eq!(skeleton, [2, 3, 0, 0]);
        assert_eq!(blocks, [&inline[3..51], &inline[52..76]]);
        let (owner, dropped) = Owner::new(&blocks, 0);
        let (read, left) = join_both(owner, &skeleton);
        let read = read.unwrap();
        assert_eq!((&read, left), (&both(), 0));
        assert!(read.a.is_borrowed());
        assert!(
            !dropped.load(Ordering::SeqCst),
            "the matrix keeps its owner"
        );
        drop(read);
        assert!(dropped.load(Ordering::SeqCst));
    }

    /// A misaligned buffer is copied, to the same values.
    #[test]
    fn a_misaligned_buffer_is_copied() {
        let (skeleton, blocks) = split_both();
        let (owner, dropped) = Owner::new(&blocks, 3);
        let (read, left) = join_both(owner, &skeleton);
        let read = read.unwrap();
        assert_eq!((&read, left), (&both(), 0));
        assert!(!read.a.is_borrowed());
        assert!(
            dropped.load(Ordering::SeqCst),
            "nothing borrowed, nothing kept"
        );
    }

    /// A split or join inside another leaves the outer one's state as it was.
    #[test]
    fn nested_splits_and_joins_keep_the_outer_state() {
        let ((before, inner, after), outer_blocks) = blocks::split(|| {
            let before = postcard::to_allocvec(&both()).unwrap();
            let inner = split_both();
            let after = postcard::to_allocvec(&both()).unwrap();
            (before, inner, after)
        });
        assert_eq!((outer_blocks.len(), inner.1.len()), (4, 2));
        assert_eq!(
            (&before[..], &after[..]),
            (&[2, 3, 0, 0][..], &[2, 3, 0, 0][..])
        );
        let (owner, _) = Owner::new(&outer_blocks, 0);
        let (reads, left) = blocks::join(owner, || {
            let first = postcard::from_bytes::<Both>(&before);
            let (inner_owner, _) = Owner::new(&inner.1, 0);
            let nested = join_both(inner_owner, &inner.0);
            let second = postcard::from_bytes::<Both>(&after);
            (first, nested, second)
        });
        let (first, (nested, nested_left), second) = reads;
        assert_eq!((first.unwrap(), second.unwrap(), left), (both(), both(), 0));
        assert_eq!((nested.unwrap(), nested_left), (both(), 0));
    }

    /// Too few buffers, a buffer of the wrong size and an inline array where one out of line
    /// is expected are errors; buffers left over are counted.
    #[test]
    fn mismatched_buffers_are_errors() {
        let (skeleton, blocks) = split_both();
        let (few, _) = Owner::new(&blocks[..1], 0);
        assert!(join_both(few, &skeleton).0.is_err());
        let (short, _) = Owner::new(&[blocks[0][..40].to_vec(), blocks[1].clone()], 0);
        assert!(join_both(short, &skeleton).0.is_err());
        let (many, _) = Owner::new(&[blocks.clone(), blocks.clone()].concat(), 0);
        let (read, left) = join_both(many, &skeleton);
        assert_eq!((read.unwrap(), left), (both(), 2));
        let inline = postcard::to_allocvec(&both()).unwrap();
        let (owner, _) = Owner::new(&blocks, 0);
        assert!(join_both(owner, &inline).0.is_err());
    }
}
