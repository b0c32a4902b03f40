//! Float arrays in the maps' serde form: unchanged for a human-readable format (JSON: ndarray's
//! and serde's lists of numbers), one block of little-endian bytes for a binary one (postcard:
//! the Python package's pickles).
//!
//! **Why.** Written float by float, a binary reader decodes every value through serde (about
//! 6 ns each): a pickled 300 x 4000 map loaded 8x slower than scikit-learn's, which copies one
//! buffer (issue 44). As one byte string the reader converts the block in a single pass. The
//! maps' deserialisers check the values afterwards as before.

use ndarray::Array2;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// `values` as little-endian bytes.
fn to_bytes<'a>(values: impl ExactSizeIterator<Item = &'a f64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// A byte string, serialised as one (serde writes a `&[u8]` element by element).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// Floats read from one byte string of little-endian `f64`.
struct Block(Vec<f64>);

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Block;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string of little-endian f64, 8 bytes each")
            }

            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Block, E> {
                if !v.len().is_multiple_of(8) {
                    return Err(E::invalid_length(v.len(), &self));
                }
                let values = v
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect();
                Ok(Block(values))
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
            false => Bytes(&to_bytes(v.iter())).serialize(s),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        match d.is_human_readable() {
            true => Vec::<f64>::deserialize(d),
            false => Ok(Block::deserialize(d)?.0),
        }
    }
}

/// For `#[serde(with = "crate::packed::array2")]` on an `Array2<f64>`: rows, columns and the
/// values in row-major order.
pub(crate) mod array2 {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(a: &Array2<f64>, s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => a.serialize(s),
            false => (a.nrows(), a.ncols(), Bytes(&to_bytes(a.iter()))).serialize(s),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Array2<f64>, D::Error> {
        if d.is_human_readable() {
            return Array2::<f64>::deserialize(d);
        }
        let (rows, cols, Block(values)) = <(usize, usize, Block)>::deserialize(d)?;
        Array2::from_shape_vec((rows, cols), values)
            .map_err(|e| de::Error::custom(format!("a {rows} x {cols} array: {e}")))
    }
}

/// Whether every value is finite: what the maps' deserialisers check of the arrays they read.
/// Without an early exit, so the test runs over vector registers (an `all` over an ndarray
/// iterator took a third of a 300 x 4000 map's load).
pub(crate) fn all_finite<'a>(values: impl IntoIterator<Item = &'a Array2<f64>>) -> bool {
    values.into_iter().all(|a| match a.as_slice_memory_order() {
        Some(slice) => slice_finite(slice),
        None => a.iter().all(|v| v.is_finite()),
    })
}

/// [`all_finite`] of one slice.
pub(crate) fn slice_finite(values: &[f64]) -> bool {
    values.iter().fold(true, |ok, v| ok & v.is_finite())
}

/// `a` in standard (row-major) layout, copied only when it is not (a deserialised array is,
/// and a copy of a large one doubled its load time).
pub(crate) fn standard_layout(a: Array2<f64>) -> Array2<f64> {
    match a.is_standard_layout() {
        true => a,
        false => a.as_standard_layout().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Both {
        #[serde(with = "array2")]
        a: Array2<f64>,
        #[serde(with = "vec")]
        v: Vec<f64>,
    }

    fn both() -> Both {
        // Transposed: a column-major array is written in row-major order.
        let a = Array2::from_shape_vec((3, 2), vec![1.5, -0.0, f64::MIN_POSITIVE, 2.0, 3.0, -7.25])
            .unwrap()
            .reversed_axes();
        Both {
            a,
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
        assert!(json.contains(r#""dim":[2,3]"#), "{json}");
        assert_eq!(serde_json::from_str::<Both>(&json).unwrap(), both());
        let binary = postcard::to_allocvec(&both()).unwrap();
        // rows, columns, length, 6 floats; length, 3 floats.
        assert_eq!(binary.len(), 3 + 6 * 8 + 1 + 3 * 8);
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
}
