//! Row-major input: dense rows (an ndarray view) or sparse rows (compressed sparse rows).
//!
//! Sparse input matters because the papers' data is sparse (Adult rows have 11-14 non-zeros out of
//! 123) and the count sketch costs O(nnz) per row, not O(d). Both forms visit the non-zeros of a
//! row in increasing column order, so a map that only looks at non-zeros gives bit-identical
//! features for the dense and the sparse form of the same data.

use ndarray::{Array2, ArrayView1, ArrayView2, Axis};

use crate::error::{MapError, Result};

/// A compressed-sparse-row matrix of `f64`, column indices strictly increasing within each row.
#[derive(Debug, Clone, PartialEq)]
pub struct CsrMatrix {
    n_cols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl CsrMatrix {
    /// Builds a matrix from its raw arrays, checking every structural invariant and that all
    /// values are finite.
    pub fn new(
        n_cols: usize,
        indptr: Vec<usize>,
        indices: Vec<u32>,
        values: Vec<f64>,
    ) -> Result<Self> {
        if indptr.first() != Some(&0) {
            return Err(MapError::InvalidCsr("indptr must start with 0".into()));
        }
        if indices.len() != values.len() || *indptr.last().unwrap() != indices.len() {
            return Err(MapError::InvalidCsr(format!(
                "indptr ends at {} but there are {} indices and {} values",
                indptr.last().unwrap(),
                indices.len(),
                values.len()
            )));
        }
        if n_cols > u32::MAX as usize {
            return Err(MapError::InvalidCsr(format!(
                "{n_cols} columns do not fit u32 indices"
            )));
        }
        for (row, w) in indptr.windows(2).enumerate() {
            if w[1] < w[0] {
                return Err(MapError::InvalidCsr(format!(
                    "indptr decreases at row {row}"
                )));
            }
            let idx = &indices[w[0]..w[1]];
            for (k, &c) in idx.iter().enumerate() {
                if c as usize >= n_cols {
                    return Err(MapError::InvalidCsr(format!(
                        "row {row}: column {c} out of range for {n_cols} columns"
                    )));
                }
                if k > 0 && idx[k - 1] >= c {
                    return Err(MapError::InvalidCsr(format!(
                        "row {row}: column indices not strictly increasing ({} then {c})",
                        idx[k - 1]
                    )));
                }
                let value = values[w[0] + k];
                if !value.is_finite() {
                    return Err(MapError::NonFinite {
                        row,
                        col: c as usize,
                        value,
                    });
                }
            }
        }
        Ok(Self {
            n_cols,
            indptr,
            indices,
            values,
        })
    }

    /// The non-zeros of a dense matrix (exact zeros are dropped).
    pub fn from_dense(x: ArrayView2<'_, f64>) -> Result<Self> {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    indices.push(j as u32);
                    values.push(v);
                }
            }
            indptr.push(indices.len());
        }
        Self::new(x.ncols(), indptr, indices, values)
    }

    pub fn to_dense(&self) -> Array2<f64> {
        let mut out = Array2::zeros((self.n_rows(), self.n_cols));
        for i in 0..self.n_rows() {
            let (idx, val) = self.row_parts(i);
            for (&j, &v) in idx.iter().zip(val) {
                out[[i, j as usize]] = v;
            }
        }
        out
    }

    pub fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// The raw arrays `(n_cols, indptr, indices, values)`, as [`CsrMatrix::new`] takes them: how
    /// the features leave the library without a copy (the Python package hands them to SciPy).
    pub fn into_parts(self) -> (usize, Vec<usize>, Vec<u32>, Vec<f64>) {
        (self.n_cols, self.indptr, self.indices, self.values)
    }

    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Column indices and values of row `i`.
    pub fn row_parts(&self, i: usize) -> (&[u32], &[f64]) {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.values[a..b])
    }

    pub fn row(&self, i: usize) -> Row<'_> {
        let (indices, values) = self.row_parts(i);
        Row::Sparse { indices, values }
    }

    /// A new matrix made of the given rows, in the given order (rows may repeat).
    pub fn select_rows(&self, rows: &[usize]) -> CsrMatrix {
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        indptr.push(0);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for &r in rows {
            let (idx, val) = self.row_parts(r);
            indices.extend_from_slice(idx);
            values.extend_from_slice(val);
            indptr.push(indices.len());
        }
        CsrMatrix {
            n_cols: self.n_cols,
            indptr,
            indices,
            values,
        }
    }

    /// Stacks `other` below `self`; the result has the larger of the two column counts.
    pub fn vstack(&self, other: &CsrMatrix) -> CsrMatrix {
        let mut indptr = self.indptr.clone();
        let base = self.nnz();
        indptr.extend(other.indptr[1..].iter().map(|&p| p + base));
        let mut indices = self.indices.clone();
        indices.extend_from_slice(&other.indices);
        let mut values = self.values.clone();
        values.extend_from_slice(&other.values);
        CsrMatrix {
            n_cols: self.n_cols.max(other.n_cols),
            indptr,
            indices,
            values,
        }
    }

    /// Multiplies each row by its own factor (used for unit-norm preprocessing).
    pub fn scale_rows(&mut self, factors: &[f64]) {
        assert_eq!(factors.len(), self.n_rows(), "one factor per row");
        for (i, &f) in factors.iter().enumerate() {
            let (a, b) = (self.indptr[i], self.indptr[i + 1]);
            self.values[a..b].iter_mut().for_each(|v| *v *= f);
        }
    }

    /// Euclidean norm of every row.
    pub fn row_norms(&self) -> Vec<f64> {
        (0..self.n_rows())
            .map(|i| {
                self.row_parts(i)
                    .1
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt()
            })
            .collect()
    }
}

/// One input row, dense or sparse.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    Dense(ArrayView1<'a, f64>),
    Sparse {
        indices: &'a [u32],
        values: &'a [f64],
    },
}

impl Row<'_> {
    /// Calls `f(column, value)` for every non-zero, in increasing column order.
    #[inline]
    pub fn for_each_nonzero(&self, mut f: impl FnMut(usize, f64)) {
        match self {
            Row::Dense(x) => {
                for (j, &v) in x.iter().enumerate() {
                    if v != 0.0 {
                        f(j, v)
                    }
                }
            }
            Row::Sparse { indices, values } => {
                for (&j, &v) in indices.iter().zip(values.iter()) {
                    f(j as usize, v)
                }
            }
        }
    }

    /// Inner product of two rows of the same dimension, in any combination of forms.
    pub fn dot(&self, other: &Row<'_>) -> f64 {
        match (self, other) {
            (Row::Dense(a), Row::Dense(b)) => a.dot(b),
            (Row::Dense(a), Row::Sparse { indices, values }) => {
                sparse_dense_dot(indices, values, a)
            }
            (Row::Sparse { indices, values }, Row::Dense(a)) => {
                sparse_dense_dot(indices, values, a)
            }
            (
                Row::Sparse {
                    indices: ia,
                    values: va,
                },
                Row::Sparse {
                    indices: ib,
                    values: vb,
                },
            ) => {
                let (mut i, mut j, mut s) = (0, 0, 0.0);
                while i < ia.len() && j < ib.len() {
                    match ia[i].cmp(&ib[j]) {
                        std::cmp::Ordering::Less => i += 1,
                        std::cmp::Ordering::Greater => j += 1,
                        std::cmp::Ordering::Equal => {
                            s += va[i] * vb[j];
                            i += 1;
                            j += 1;
                        }
                    }
                }
                s
            }
        }
    }
}

fn sparse_dense_dot(indices: &[u32], values: &[f64], dense: &ArrayView1<'_, f64>) -> f64 {
    indices
        .iter()
        .zip(values)
        .map(|(&j, &v)| dense[j as usize] * v)
        .sum()
}

/// A batch of input rows: a dense matrix view or a sparse matrix.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    Dense(ArrayView2<'a, f64>),
    Sparse(&'a CsrMatrix),
}

impl<'a> Rows<'a> {
    pub fn n_rows(&self) -> usize {
        match self {
            Rows::Dense(x) => x.nrows(),
            Rows::Sparse(x) => x.n_rows(),
        }
    }

    pub fn n_cols(&self) -> usize {
        match self {
            Rows::Dense(x) => x.ncols(),
            Rows::Sparse(x) => x.n_cols(),
        }
    }

    pub fn row(&self, i: usize) -> Row<'a> {
        match *self {
            Rows::Dense(x) => Row::Dense(x.index_axis_move(Axis(0), i)),
            Rows::Sparse(x) => x.row(i),
        }
    }

    /// The first non-finite value, if any, as an error naming its position. Sparse matrices are
    /// checked at construction, so only dense input is scanned here.
    pub fn check_finite(&self) -> Result<()> {
        if let Rows::Dense(x) = self {
            for (row, r) in x.rows().into_iter().enumerate() {
                if let Some((col, &value)) = r.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                    return Err(MapError::NonFinite { row, col, value });
                }
            }
        }
        Ok(())
    }
}

impl<'a> From<ArrayView2<'a, f64>> for Rows<'a> {
    fn from(x: ArrayView2<'a, f64>) -> Self {
        Rows::Dense(x)
    }
}

impl<'a> From<&'a Array2<f64>> for Rows<'a> {
    fn from(x: &'a Array2<f64>) -> Self {
        Rows::Dense(x.view())
    }
}

impl<'a> From<&'a CsrMatrix> for Rows<'a> {
    fn from(x: &'a CsrMatrix) -> Self {
        Rows::Sparse(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn dense_round_trip_and_dot() {
        let x = array![
            [0.0, 1.5, 0.0, -2.0],
            [3.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0]
        ];
        let m = CsrMatrix::from_dense(x.view()).unwrap();
        assert_eq!(m.nnz(), 3);
        assert_eq!(m.to_dense(), x);
        let d0 = Row::Dense(x.row(0));
        assert_eq!(m.row(0).dot(&m.row(0)), 1.5 * 1.5 + 4.0);
        assert_eq!(d0.dot(&m.row(0)), 1.5 * 1.5 + 4.0);
        assert_eq!(m.row(0).dot(&m.row(1)), 0.0);
    }

    #[test]
    fn invalid_structures_are_errors() {
        assert!(matches!(
            CsrMatrix::new(3, vec![0, 2], vec![1, 1], vec![1.0, 2.0]),
            Err(MapError::InvalidCsr(_))
        ));
        assert!(matches!(
            CsrMatrix::new(3, vec![0, 1], vec![3], vec![1.0]),
            Err(MapError::InvalidCsr(_))
        ));
        assert!(matches!(
            CsrMatrix::new(3, vec![0, 2], vec![0], vec![1.0]),
            Err(MapError::InvalidCsr(_))
        ));
        assert_eq!(
            CsrMatrix::new(3, vec![0, 1], vec![2], vec![f64::NAN])
                .unwrap_err()
                .to_string(),
            "non-finite input value NaN at row 0, column 2"
        );
    }

    #[test]
    fn select_and_stack() {
        let x = array![[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]];
        let m = CsrMatrix::from_dense(x.view()).unwrap();
        assert_eq!(
            m.select_rows(&[2, 0, 2]).to_dense(),
            array![[3.0, 4.0], [1.0, 0.0], [3.0, 4.0]]
        );
        assert_eq!(
            m.vstack(&m.select_rows(&[1])).to_dense(),
            array![[1.0, 0.0], [0.0, 2.0], [3.0, 4.0], [0.0, 2.0]]
        );
    }
}
