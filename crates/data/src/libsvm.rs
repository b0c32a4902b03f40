//! Parser for the LIBSVM / SVMlight text format: `label idx:val idx:val ...` per line.
//!
//! The parser is strict because the papers' numbers depend on the exact rows and columns: an
//! out-of-order or duplicate index, a zero index or a non-finite value is an error naming the
//! file and line, never silently repaired. Explicit zero values are dropped, since the sparse
//! matrix stores non-zeros (as `CsrMatrix::from_dense` does). Several files can be appended into
//! one matrix (train then test) without a copy, which is what [`LibsvmReader`] is for.

use std::io::BufRead;
use std::path::Path;

use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};
use super::lines::for_each_line;
use super::rows::{parse_finite, RowBuilder};

/// Parses a whole LIBSVM file into a sparse matrix and its labels.
///
/// With `n_features = Some(d)` the matrix has `d` columns and a larger index is an error;
/// with `None` it has as many columns as the largest index seen. `origin` is the path that
/// error messages name.
pub fn parse_libsvm(
    reader: impl BufRead,
    origin: &Path,
    n_features: Option<usize>,
) -> Result<(CsrMatrix, Vec<f64>)> {
    let mut parsed = LibsvmReader::new(n_features);
    parsed.read(reader, origin)?;
    parsed.finish(origin)
}

/// Accumulates rows of one or more LIBSVM files.
#[derive(Debug)]
pub(crate) struct LibsvmReader {
    n_features: Option<usize>,
    max_index: usize,
    rows: RowBuilder,
}

impl LibsvmReader {
    pub(crate) fn new(n_features: Option<usize>) -> Self {
        LibsvmReader {
            n_features,
            max_index: 0,
            rows: RowBuilder::new(),
        }
    }

    pub(crate) fn n_rows(&self) -> usize {
        self.rows.n_rows()
    }

    /// Appends every data row of `reader`; a file without data rows is an error.
    pub(crate) fn read(&mut self, reader: impl BufRead, origin: &Path) -> Result<()> {
        let rows_before = self.n_rows();
        for_each_line(reader, origin, |line| self.parse_line(line))?;
        if self.n_rows() == rows_before {
            return Err(DataError::Empty {
                path: origin.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Parses one line; blank and comment-only lines add nothing.
    fn parse_line(&mut self, line: &str) -> std::result::Result<(), String> {
        let content = line.split_once('#').map_or(line, |(before, _)| before);
        let mut tokens = content.split_ascii_whitespace().peekable();
        let Some(label_token) = tokens.next() else {
            return Ok(());
        };
        let label = parse_finite(label_token).map_err(|why| format!("label {why}"))?;
        if let Some(qid) = tokens.peek().and_then(|t| t.strip_prefix("qid:")) {
            qid.parse::<u64>()
                .map_err(|_| format!("qid '{qid}' is not a non-negative integer"))?;
            tokens.next();
        }
        let mut previous = 0usize;
        for token in tokens {
            previous = self.parse_pair(token, previous)?;
        }
        self.rows.end_row(label);
        Ok(())
    }

    /// Parses `idx:val`, stores it unless the value is zero, and returns the index.
    fn parse_pair(&mut self, token: &str, previous: usize) -> std::result::Result<usize, String> {
        let (idx_text, value_text) = token
            .split_once(':')
            .ok_or_else(|| format!("missing ':' in '{token}' (expected index:value)"))?;
        let index: usize = idx_text
            .parse()
            .map_err(|_| format!("index '{idx_text}' is not a non-negative integer"))?;
        if index == 0 {
            return Err("index 0: indices are 1-based".into());
        }
        if index <= previous {
            return Err(format!(
                "index {index} after {previous}: indices must be strictly increasing"
            ));
        }
        if let Some(d) = self.n_features {
            if index > d {
                return Err(format!("index {index} is larger than the {d} features"));
            }
        }
        if index > u32::MAX as usize {
            return Err(format!("index {index} does not fit 32 bits"));
        }
        let value =
            parse_finite(value_text).map_err(|why| format!("value of index {index} {why}"))?;
        self.rows.push(index - 1, value);
        self.max_index = self.max_index.max(index);
        Ok(index)
    }

    /// The matrix and labels of everything read so far.
    pub(crate) fn finish(self, origin: &Path) -> Result<(CsrMatrix, Vec<f64>)> {
        let n_cols = self.n_features.unwrap_or(self.max_index);
        self.rows.finish(n_cols, origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, n_features: Option<usize>) -> Result<(CsrMatrix, Vec<f64>)> {
        parse_libsvm(text.as_bytes(), Path::new("dir/sample.svm"), n_features)
    }

    #[test]
    fn parses_labels_qid_comments_and_blank_lines() {
        let text = "# header comment\n\
                    +1 qid:3 1:0.5 4:-2 # trailing comment\n\
                    \n\
                    -1\r\n\
                    2.5 2:1e-3 3:0 5:7\n";
        let (x, y) = parse(text, None).unwrap();
        assert_eq!(y, [1.0, -1.0, 2.5]);
        assert_eq!((x.n_rows(), x.n_cols(), x.nnz()), (3, 5, 4));
        assert_eq!(x.row_parts(0), (&[0u32, 3][..], &[0.5, -2.0][..]));
        assert_eq!(x.row_parts(1).0.len(), 0);
        assert_eq!(x.row_parts(2), (&[1u32, 4][..], &[1e-3, 7.0][..]));

        let (x, _) = parse(text, Some(9)).unwrap();
        assert_eq!(x.n_cols(), 9);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let cases = [
            ("+1 1:1\nabc 1:1\n", 2, "label 'abc'"),
            ("+1 1:x\n", 1, "value of index 1 'x'"),
            ("+1 1:1\n-1 1:1 3\n", 2, "missing ':'"),
            ("+1 0:1\n", 1, "1-based"),
            ("+1 a:1\n", 1, "index 'a'"),
            ("+1 -2:1\n", 1, "index '-2'"),
            ("+1 3:1 2:1\n", 1, "strictly increasing"),
            ("\n\n+1 2:1 2:1\n", 3, "strictly increasing"),
            ("+1 1:1 5:1\n", 1, "larger than the 4 features"),
            ("+1 1:NaN\n", 1, "not finite"),
            ("+1 1:inf\n", 1, "not finite"),
            ("nan 1:1\n", 1, "not finite"),
            ("+1 qid:x 1:1\n", 1, "qid 'x'"),
        ];
        for (text, line, problem) in cases {
            let msg = parse(text, Some(4)).unwrap_err().to_string();
            let prefix = format!("dir/sample.svm:{line}: ");
            assert!(
                msg.starts_with(&prefix) && msg.contains(problem),
                "{text:?} gave {msg}"
            );
        }
    }

    #[test]
    fn a_file_without_rows_is_an_error() {
        for text in ["", "\n# only a comment\n  \n"] {
            let err = parse(text, None).unwrap_err();
            assert!(matches!(err, DataError::Empty { .. }));
            assert!(err.to_string().contains("dir/sample.svm"), "{err}");
        }
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let msg = parse_libsvm(&b"+1 1:1\n\xff 1:1\n"[..], Path::new("f"), None)
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("f:2: "), "{msg}");
    }
}
