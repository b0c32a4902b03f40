//! Accumulating parsed rows into a sparse matrix, shared by the parsers.

use std::path::Path;

use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};

/// Rows in CSR form plus one label each; zeros are not stored.
#[derive(Debug, Default)]
pub(crate) struct RowBuilder {
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub values: Vec<f64>,
    pub labels: Vec<f64>,
}

impl RowBuilder {
    pub fn new() -> Self {
        RowBuilder {
            indptr: vec![0],
            ..Default::default()
        }
    }

    pub fn n_rows(&self) -> usize {
        self.labels.len()
    }

    /// Adds a value of the current row; columns must come in increasing order.
    #[inline]
    pub fn push(&mut self, column: usize, value: f64) {
        if value != 0.0 {
            self.indices.push(column as u32);
            self.values.push(value);
        }
    }

    /// Ends the current row.
    #[inline]
    pub fn end_row(&mut self, label: f64) {
        self.labels.push(label);
        self.indptr.push(self.indices.len());
    }

    pub fn finish(self, n_cols: usize, origin: &Path) -> Result<(CsrMatrix, Vec<f64>)> {
        let x = CsrMatrix::new(n_cols, self.indptr, self.indices, self.values).map_err(|e| {
            DataError::Parse {
                path: origin.to_path_buf(),
                line: 0,
                problem: e.to_string(),
            }
        })?;
        Ok((x, self.labels))
    }
}

/// A finite `f64`, or why the text is not one (as a phrase following "label" or "value").
pub(crate) fn parse_finite(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(v) => Err(format!("'{text}' is not finite ({v})")),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}
