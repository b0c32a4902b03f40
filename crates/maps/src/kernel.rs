//! Exact kernels: the references every feature map is tested and measured against.

use serde::{Deserialize, Serialize};

use crate::csr::Row;
use crate::error::{MapError, Result};

/// The polynomial kernel `k(x, y) = (<x, y> + c)^p`: homogeneous for `c = 0`, inhomogeneous for
/// `c > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PolynomialKernel {
    degree: u32,
    offset: f64,
}

impl PolynomialKernel {
    pub fn new(degree: u32, offset: f64) -> Result<Self> {
        if degree == 0 {
            return Err(MapError::ZeroDegree(degree));
        }
        if !(offset.is_finite() && offset >= 0.0) {
            return Err(MapError::InvalidOffset(offset));
        }
        Ok(Self { degree, offset })
    }

    pub fn degree(&self) -> u32 {
        self.degree
    }

    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// `(t + c)^p` for an inner product `t`.
    #[inline]
    pub fn from_dot(&self, dot: f64) -> f64 {
        (dot + self.offset).powi(self.degree as i32)
    }

    pub fn eval(&self, x: &Row<'_>, y: &Row<'_>) -> f64 {
        self.from_dot(x.dot(y))
    }
}

/// The parameter checks every polynomial-kernel map shares (Tensor Sketch, Random Maclaurin), in
/// this order: degree `p >= 1`, `D >= 1`, offset `c` finite and `>= 0`.
pub(crate) fn check_polynomial_map(degree: u32, offset: f64, n_components: usize) -> Result<()> {
    if degree == 0 {
        return Err(MapError::ZeroDegree(degree));
    }
    if n_components == 0 {
        return Err(MapError::ZeroComponents(n_components));
    }
    if !(offset.is_finite() && offset >= 0.0) {
        return Err(MapError::InvalidOffset(offset));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn values_and_errors() {
        let (x, y) = (array![1.0, 2.0], array![3.0, -1.0]);
        let k = PolynomialKernel::new(3, 1.0).unwrap();
        assert_eq!(k.eval(&Row::Dense(x.view()), &Row::Dense(y.view())), 8.0);
        assert_eq!(PolynomialKernel::new(0, 1.0), Err(MapError::ZeroDegree(0)));
        assert_eq!(
            PolynomialKernel::new(2, -0.5),
            Err(MapError::InvalidOffset(-0.5))
        );
    }
}
