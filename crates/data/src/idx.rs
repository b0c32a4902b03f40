//! Parsers for the image datasets' binary formats: IDX (MNIST, Fashion-MNIST) and the
//! CIFAR-10 binary version.
//!
//! IDX (LeCun's format): two zero bytes, a type byte (0x08 = unsigned byte, the only type the
//! MNIST-style files use), the number of dimensions, then each dimension as a big-endian u32,
//! then the data. Image files are 3-dimensional (count, rows, columns) and become one row of
//! rows*columns pixel values 0-255 each; label files are 1-dimensional. CIFAR-10's binary
//! files are records of one label byte and 3,072 pixel bytes (1,024 red, 1,024 green, 1,024
//! blue). Pixels are kept as published (0-255); scaling is a preprocessing step.

use std::io::Read;
use std::path::Path;

use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};
use super::rows::RowBuilder;

/// Bytes of one CIFAR-10 record: the label and a 32x32x3 image.
pub const CIFAR10_RECORD: usize = 1 + 3 * 32 * 32;

/// An IDX tensor of unsigned bytes: its dimensions and data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdxTensor {
    pub dims: Vec<usize>,
    pub data: Vec<u8>,
}

fn record_error(origin: &Path, record: usize, problem: impl Into<String>) -> DataError {
    DataError::ParseRecord {
        path: origin.to_path_buf(),
        record,
        problem: problem.into(),
    }
}

/// Reads an IDX file of unsigned bytes. Errors name the file; record 0 is the header.
pub fn read_idx(mut reader: impl Read, origin: &Path) -> Result<IdxTensor> {
    let mut magic = [0u8; 4];
    reader
        .read_exact(&mut magic)
        .map_err(|_| record_error(origin, 0, "shorter than the 4-byte IDX magic number"))?;
    if magic[0] != 0 || magic[1] != 0 {
        return Err(record_error(
            origin,
            0,
            format!("magic number {magic:02x?} does not start with two zero bytes: not IDX"),
        ));
    }
    if magic[2] != 0x08 {
        return Err(record_error(
            origin,
            0,
            format!(
                "element type 0x{:02x} is not 0x08 (unsigned byte)",
                magic[2]
            ),
        ));
    }
    let n_dims = magic[3] as usize;
    if n_dims == 0 {
        return Err(record_error(origin, 0, "zero dimensions"));
    }
    let mut dims = Vec::with_capacity(n_dims);
    for k in 0..n_dims {
        let mut b = [0u8; 4];
        reader
            .read_exact(&mut b)
            .map_err(|_| record_error(origin, 0, format!("header ends before dimension {k}")))?;
        dims.push(u32::from_be_bytes(b) as usize);
    }
    let total = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= 1 << 36)
        .ok_or_else(|| record_error(origin, 0, format!("dimensions {dims:?} are too large")))?;
    let mut data = Vec::with_capacity(total);
    reader
        .by_ref()
        .take(total as u64)
        .read_to_end(&mut data)
        .map_err(|e| DataError::io("cannot read", origin, e))?;
    let per_item = total / dims[0].max(1);
    if data.len() < total {
        let item = data.len() / per_item.max(1);
        return Err(record_error(
            origin,
            item + 1,
            format!(
                "the file ends after {} of {total} data bytes (dimensions {dims:?})",
                data.len()
            ),
        ));
    }
    let mut extra = [0u8; 1];
    if reader
        .read(&mut extra)
        .map_err(|e| DataError::io("cannot read", origin, e))?
        != 0
    {
        return Err(record_error(
            origin,
            dims[0] + 1,
            format!(
                "trailing bytes after the {} items of dimensions {dims:?}",
                dims[0]
            ),
        ));
    }
    Ok(IdxTensor { dims, data })
}

/// Appends the rows of an IDX image file and its label file (same item count).
pub(crate) fn read_idx_pair(
    rows: &mut RowBuilder,
    features: (impl Read, &Path),
    labels: (impl Read, &Path),
    n_cols: usize,
) -> Result<()> {
    let images = read_idx(features.0, features.1)?;
    let classes = read_idx(labels.0, labels.1)?;
    if classes.dims.len() != 1 {
        return Err(record_error(
            labels.1,
            0,
            format!("a label file has 1 dimension, this one {:?}", classes.dims),
        ));
    }
    if images.dims[0] != classes.dims[0] {
        return Err(record_error(
            labels.1,
            0,
            format!(
                "{} labels for the {} items of {}",
                classes.dims[0],
                images.dims[0],
                features.1.display()
            ),
        ));
    }
    let width: usize = images.dims[1..].iter().product();
    if width != n_cols {
        return Err(record_error(
            features.1,
            0,
            format!(
                "items of dimensions {:?} have {width} values, the registry says d = {n_cols}",
                &images.dims[1..]
            ),
        ));
    }
    for (item, &label) in images.data.chunks_exact(width.max(1)).zip(&classes.data) {
        for (j, &v) in item.iter().enumerate() {
            rows.push(j, f64::from(v));
        }
        rows.end_row(f64::from(label));
    }
    Ok(())
}

/// Parses an IDX image file and its label file into a sparse matrix and labels.
pub fn parse_idx(
    features: (impl Read, &Path),
    labels: (impl Read, &Path),
) -> Result<(CsrMatrix, Vec<f64>)> {
    let mut rows = RowBuilder::new();
    let images = read_idx(features.0, features.1)?;
    let width: usize = images.dims[1..].iter().product();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&[0, 0, 8, images.dims.len() as u8]);
    for d in &images.dims {
        bytes.extend_from_slice(&(*d as u32).to_be_bytes());
    }
    bytes.extend_from_slice(&images.data);
    read_idx_pair(&mut rows, (&bytes[..], features.1), labels, width)?;
    rows.finish(width, features.1)
}

/// Appends the records of a CIFAR-10 binary file.
pub(crate) fn read_cifar10(
    rows: &mut RowBuilder,
    mut reader: impl Read,
    origin: &Path,
) -> Result<()> {
    let mut record = vec![0u8; CIFAR10_RECORD];
    let mut count = 0;
    loop {
        let mut filled = 0;
        while filled < CIFAR10_RECORD {
            let n = reader
                .read(&mut record[filled..])
                .map_err(|e| DataError::io("cannot read", origin, e))?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        count += 1;
        if filled < CIFAR10_RECORD {
            return Err(record_error(
                origin,
                count,
                format!("only {filled} of the record's {CIFAR10_RECORD} bytes"),
            ));
        }
        if record[0] > 9 {
            return Err(record_error(
                origin,
                count,
                format!("label {} is not a class 0-9", record[0]),
            ));
        }
        for (j, &v) in record[1..].iter().enumerate() {
            rows.push(j, f64::from(v));
        }
        rows.end_row(f64::from(record[0]));
    }
    if count == 0 {
        return Err(DataError::Empty {
            path: origin.to_path_buf(),
        });
    }
    Ok(())
}

/// Parses a CIFAR-10 binary batch into a sparse matrix (3,072 columns) and labels.
pub fn parse_cifar10(reader: impl Read, origin: &Path) -> Result<(CsrMatrix, Vec<f64>)> {
    let mut rows = RowBuilder::new();
    read_cifar10(&mut rows, reader, origin)?;
    rows.finish(CIFAR10_RECORD - 1, origin)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An IDX file of unsigned bytes with the given dimensions.
    pub(crate) fn idx_bytes(dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut out = vec![0, 0, 8, dims.len() as u8];
        for d in dims {
            out.extend_from_slice(&d.to_be_bytes());
        }
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn idx_images_and_labels_pair_up() {
        let images = idx_bytes(&[2, 2, 2], &[0, 1, 2, 3, 255, 0, 0, 7]);
        let labels = idx_bytes(&[2], &[9, 4]);
        let (x, y) = parse_idx(
            (&images[..], Path::new("img")),
            (&labels[..], Path::new("lab")),
        )
        .unwrap();
        assert_eq!(y, [9.0, 4.0]);
        assert_eq!(x.n_cols(), 4);
        assert_eq!(x.row_parts(0), (&[1u32, 2, 3][..], &[1.0, 2.0, 3.0][..]));
        assert_eq!(x.row_parts(1), (&[0u32, 3][..], &[255.0, 7.0][..]));
    }

    #[test]
    fn malformed_idx_names_file_and_record() {
        let labels = idx_bytes(&[2], &[1, 2]);
        let cases: [(Vec<u8>, &str, &str); 6] = [
            (vec![0, 0], "img: record 0", "shorter than"),
            (vec![1, 0, 8, 1], "img: record 0", "not IDX"),
            (
                vec![0, 0, 8, 2, 0, 0, 0, 2],
                "img: record 0",
                "header ends before dimension 1",
            ),
            (
                idx_bytes(&[2, 2, 2], &[0; 5]),
                "img: record 2",
                "ends after 5 of 8",
            ),
            (
                idx_bytes(&[2, 2, 2], &[0; 9]),
                "img: record 3",
                "trailing bytes",
            ),
            (
                idx_bytes(&[3, 1, 1], &[0; 3]),
                "lab: record 0",
                "2 labels for the 3 items",
            ),
        ];
        for (images, prefix, problem) in cases {
            let msg = parse_idx(
                (&images[..], Path::new("img")),
                (&labels[..], Path::new("lab")),
            )
            .unwrap_err()
            .to_string();
            assert!(msg.starts_with(prefix) && msg.contains(problem), "{msg}");
        }
        let mut float_type = idx_bytes(&[1], &[0]);
        float_type[2] = 0x0d;
        let msg = read_idx(&float_type[..], Path::new("f"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("0x0d is not 0x08"), "{msg}");
    }

    #[test]
    fn cifar10_records() {
        let mut bytes = vec![0u8; 2 * CIFAR10_RECORD];
        bytes[0] = 3;
        bytes[1] = 200;
        bytes[CIFAR10_RECORD] = 9;
        bytes[2 * CIFAR10_RECORD - 1] = 1;
        let (x, y) = parse_cifar10(&bytes[..], Path::new("b.bin")).unwrap();
        assert_eq!(y, [3.0, 9.0]);
        assert_eq!(x.n_cols(), 3072);
        assert_eq!(x.row_parts(0), (&[0u32][..], &[200.0][..]));
        assert_eq!(x.row_parts(1), (&[3071u32][..], &[1.0][..]));

        let msg = parse_cifar10(&bytes[..CIFAR10_RECORD + 10], Path::new("b.bin"))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("b.bin: record 2: only 10 of"), "{msg}");
        bytes[CIFAR10_RECORD] = 10;
        let msg = parse_cifar10(&bytes[..], Path::new("b.bin"))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("b.bin: record 2: label 10"), "{msg}");
        assert!(matches!(
            parse_cifar10(&b""[..], Path::new("b.bin")).unwrap_err(),
            DataError::Empty { .. }
        ));
    }
}
