//! scikit-learn's fitted attributes, read from the maps that have a scikit-learn counterpart, so
//! that code written against `sklearn.kernel_approximation` finds the names, shapes and meaning
//! it expects (`RBFSampler`, `PolynomialCountSketch`, `Nystroem`). The maps keep their own
//! layout; these are copies made when Python asks (the estimators expose them as properties), so
//! a pickle carries the draws once.

use std::f64::consts::FRAC_PI_2;

use ndarray::{concatenate, Array1, Array2, Axis};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use rfbench_maps::{
    Fastfood, Nystroem, OrthogonalRandomFeatures, Prff, RandomBinning, RandomFourierFeatures,
    RandomMaclaurin, RandomMaclaurinH01, StructuredOrthogonalFeatures, TensorSketch,
};

/// Attributes by scikit-learn's name.
pub type Named<'py> = Vec<(&'static str, Bound<'py, PyAny>)>;

/// scikit-learn's fitted attributes of a map; none for a map scikit-learn has no estimator of.
pub trait Attributes {
    fn sklearn_attributes<'py>(&self, _py: Python<'py>) -> Named<'py> {
        Vec::new()
    }
}

impl Attributes for RandomMaclaurin {}
impl Attributes for RandomMaclaurinH01 {}
impl Attributes for OrthogonalRandomFeatures {}
impl Attributes for StructuredOrthogonalFeatures {}
impl Attributes for Fastfood {}
impl Attributes for RandomBinning {}
impl Attributes for Prff {}

/// `RBFSampler`'s `random_weights_` (`d x D`) and `random_offset_` (`D`): the features are
/// `sqrt(2/D) cos(x W + b)` in both forms. The phase form is that formula with its own draws;
/// the paired form `[cos(x W_m), sin(x W_m)] / sqrt(m)` (`D = 2m`) is it with every frequency
/// twice and phases `0` (cosines) and `3 pi / 2` (`cos(t + 3 pi / 2) = sin t`), so code that
/// recomputes the features from the attributes gets the transform's.
impl Attributes for RandomFourierFeatures {
    fn sklearn_attributes<'py>(&self, py: Python<'py>) -> Named<'py> {
        let w = self.frequencies();
        let (weights, offsets) = if self.offsets().is_empty() {
            let m = w.ncols();
            let offsets =
                Array1::from_shape_fn(2 * m, |j| if j < m { 0.0 } else { 3.0 * FRAC_PI_2 });
            (concatenate![Axis(1), w, w], offsets)
        } else {
            (w.to_owned(), Array1::from(self.offsets().to_vec()))
        };
        vec![
            ("random_weights_", weights.into_pyarray(py).into_any()),
            ("random_offset_", offsets.into_pyarray(py).into_any()),
        ]
    }
}

/// `PolynomialCountSketch`'s `indexHash_` (bucket of key `i` in sketch `k`) and `bitHash_` (its
/// sign, +-1), both `degree x n_keys` integers; `n_keys = d + 1` with an offset (the constant
/// coordinate `sqrt(coef0)`, appended last as scikit-learn does).
impl Attributes for TensorSketch {
    fn sklearn_attributes<'py>(&self, py: Python<'py>) -> Named<'py> {
        let degree = self.degree() as usize;
        let n_keys = self.sketch(0).n_keys();
        let index =
            Array2::from_shape_fn((degree, n_keys), |(k, i)| self.sketch(k).bucket(i) as i64);
        let bit = Array2::from_shape_fn((degree, n_keys), |(k, i)| self.sketch(k).sign(i) as i64);
        vec![
            ("indexHash_", index.into_pyarray(py).into_any()),
            ("bitHash_", bit.into_pyarray(py).into_any()),
        ]
    }
}

/// `Nystroem`'s `components_` (the landmarks, `m x d`) and `normalization_` (`K_mm^{-1/2}`,
/// symmetric, so scikit-learn's `K(X, components_) @ normalization_.T` is the transform).
/// `component_indices_` is not the map's (module `fit` returns it with the map).
impl Attributes for Nystroem {
    fn sklearn_attributes<'py>(&self, py: Python<'py>) -> Named<'py> {
        vec![
            (
                "components_",
                self.landmarks().to_owned().into_pyarray(py).into_any(),
            ),
            (
                "normalization_",
                self.normalization().to_owned().into_pyarray(py).into_any(),
            ),
        ]
    }
}
