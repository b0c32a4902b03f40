//! Explicit random feature maps for kernel approximation, and the exact kernels they approximate.
//!
//! A feature map `z: R^d -> R^D` approximates a kernel when `E[<z(x), z(y)>] = k(x, y)`: a linear
//! learner trained on `z(x)` then behaves like the kernel machine at a cost linear in `n`.
//! Every map here follows the same life cycle (the linfa convention):
//!
//! 1. `XxxParams` — unchecked hyper-parameters with builder setters and an explicit `u64` seed;
//! 2. `check()` — validation, every invalid value an error carrying the offending number;
//! 3. `fit(input_dim)` — draws the randomness once (hash functions, Rademacher vectors, FFT plans);
//! 4. the fitted map implements [`FeatureMap`]: `transform` (allocating) and `transform_into`
//!    (caller's buffer), on dense rows ([`ndarray::ArrayView2`]) or sparse rows ([`CsrMatrix`]).
//!
//! A fitted map is a pure function of its parameters and seed: rows are mapped independently, so
//! the features are the same whatever the number of threads `transform` runs on.
//!
//! Maps: [`TensorSketch`] (Pham & Pagh 2013) and [`RandomMaclaurin`] (Kar & Karnick 2012) for the
//! polynomial kernel `(<x, y> + c)^p`, whose exact value is [`PolynomialKernel`].

mod count_sketch;
mod csr;
mod error;
mod feature_map;
mod kernel;
mod nystroem;
mod prff;
mod random_binning;
mod random_maclaurin;
mod random_maclaurin_h01;
mod tensor_sketch;

pub use count_sketch::{count_sketch_into, CountSketch};
pub use csr::{CsrMatrix, Row, Rows};
pub use error::{MapError, Result};
pub use feature_map::FeatureMap;
pub use kernel::PolynomialKernel;
pub use nystroem::{
    Kernel as NystroemKernel, Nystroem, NystroemParams, NystroemScratch, NystroemValidParams,
};
pub use prff::{Prff, PrffParams, PrffValidParams};
pub use random_binning::{RandomBinning, RandomBinningParams, RandomBinningValidParams};
pub use random_maclaurin::{RandomMaclaurin, RandomMaclaurinParams, RandomMaclaurinValidParams};
pub use random_maclaurin_h01::{
    RandomMaclaurinH01, RandomMaclaurinH01Params, RandomMaclaurinH01ValidParams,
};
pub use tensor_sketch::{TensorSketch, TensorSketchParams, TensorSketchValidParams};
