//! Preprocessing applied to a loaded dataset before any feature map sees it.
//!
//! The polynomial-kernel papers (Pham-Pagh, Kar-Karnick) normalise every row to unit L2 norm, so
//! that `<x, y>` lies in [-1, 1] and the kernel values of different degrees stay comparable.

use rfbench_maps::CsrMatrix;

/// Scales every row to unit Euclidean norm; rows that are entirely zero stay zero.
///
/// The norm is computed relative to the row's largest magnitude, so rows with very large or
/// very small values are normalised without overflow or underflow of the squares.
pub fn unit_norm(x: &mut CsrMatrix) {
    let factors: Vec<f64> = (0..x.n_rows())
        .map(|i| {
            let norm = scaled_norm(x.row_parts(i).1);
            if norm > 0.0 {
                1.0 / norm
            } else {
                1.0
            }
        })
        .collect();
    x.scale_rows(&factors);
}

/// Euclidean norm as `max |v| * sqrt(sum (v / max |v|)^2)`.
fn scaled_norm(values: &[f64]) -> f64 {
    let largest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if largest == 0.0 {
        return 0.0;
    }
    let sum: f64 = values.iter().map(|v| (v / largest) * (v / largest)).sum();
    largest * sum.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rows_get_unit_norm_and_zero_rows_stay_zero() {
        let dense = array![
            [3.0, 0.0, -4.0],
            [0.0, 0.0, 0.0],
            [1e200, 1e200, 0.0],
            [0.0, 2.0, 0.0]
        ];
        let mut x = CsrMatrix::from_dense(dense.view()).unwrap();
        unit_norm(&mut x);
        let norms = x.row_norms();
        for (i, expected) in [1.0, 0.0, 1.0, 1.0].into_iter().enumerate() {
            assert!((norms[i] - expected).abs() < 1e-15, "row {i}: {}", norms[i]);
        }
        let row0 = x.row_parts(0).1;
        assert!(
            (row0[0] - 0.6).abs() < 1e-15 && (row0[1] + 0.8).abs() < 1e-15,
            "{row0:?}"
        );
        assert_eq!(x.row_parts(3).1, &[1.0]);
    }
}
