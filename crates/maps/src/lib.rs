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
//! [`RandomFourierFeatures`] and [`OrthogonalRandomFeatures`] also map `f32` records to `f32`
//! features (`transform_f32`; module `fourier_f32`: sgemm and a single-precision sine/cosine,
//! half the output memory, the same Gram tolerances).
//!
//! The parameters implement linfa's `Fit` and the fitted maps its `Transformer` (module
//! `linfa_traits`), so maps compose with linfa's models.
//!
//! Fitted maps and parameters are serde `Serialize + Deserialize`. A fitted map stores its random
//! draws (not its seed: the features must not depend on the random number generator's version);
//! FFT plans are rebuilt when it is read, and reading checks the parts against each other, so a
//! tampered map is a [`MapError::InvalidSerializedMap`] rather than a panic in `transform`.
//!
//! **One kernel vocabulary.** [`Kernel`] names every exact kernel (linear, polynomial
//! `(gamma <x, y> + offset)^degree`, Gaussian, Laplacian, Matern) with one bandwidth convention
//! (module `kernels`), computes it ([`Kernel::eval`], blocked [`Kernel::cross_gram`]) and reports a
//! bad parameter as one error, [`MapError::InvalidKernelParameter`]. Every map's params have
//! `for_kernel(&Kernel, D)`, which is [`MapError::UnsupportedKernel`] for a kernel the map cannot
//! approximate. [`ShiftInvariantKernel`] and [`PolynomialKernel`] are the parts of it that the
//! Fourier-type maps and the polynomial sketches take ([`Kernel::shift_invariant`],
//! [`Kernel::as_polynomial`]).
//!
//! **Object-safe maps.** [`DynFeatureMap`] is [`FeatureMap`] as a trait object
//! (`Box<dyn DynFeatureMap>`), implemented for every map, for code that picks the map at run
//! time; `tests/conformance.rs` runs every map through it against the same checks.
//!
//! Maps: [`TensorSketch`] (Pham & Pagh 2013) and [`RandomMaclaurin`] (Kar & Karnick 2012) for the
//! polynomial kernel `(<x, y> + c)^p`, whose exact value is [`PolynomialKernel`].
//!
//! Shift-invariant kernels ([`ShiftInvariantKernel`]: Gaussian, Laplacian, Matern): random Fourier
//! features ([`RandomFourierFeatures`], Rahimi & Recht 2007), orthogonal and structured orthogonal
//! random features ([`OrthogonalRandomFeatures`], [`StructuredOrthogonalFeatures`], Yu et al.
//! 2016) and [`Fastfood`] (Le, Sarlos & Smola 2013, Hadamard and FFT blocks), all with the two
//! output forms of [`FourierForm`]; [`Prff`] (Gaussian) and [`RandomBinning`] (Laplacian).
//!
//! [`Nystroem`] (Williams & Seeger 2001) approximates every [`Kernel`].

// Links the system OpenBLAS behind ndarray's `blas` feature (turned on by ndarray-linalg).
extern crate openblas_src;

pub mod backend;
mod big_alloc;
mod block_product;
pub mod blocks;
mod count_sketch;
mod csr;
mod dense_map;
mod dyn_map;
mod error;
mod fast_exp;
mod fastfood;
mod feature_map;
mod fourier;
mod fourier_f32;
mod hadamard;
mod kernels;
mod linfa_traits;
mod nystroem;
mod orthogonal;
mod orthogonal_revrand;
mod packed;
mod prff;
mod projections;
mod random_binning;
mod random_fourier;
mod random_maclaurin;
mod random_maclaurin_h01;
mod ranges;
pub mod seeds;
mod simd;
pub mod sym_eig;
mod tensor_sketch;
#[cfg(test)]
mod test_support;

pub use count_sketch::{count_sketch_into, CountSketch};
pub use csr::{CsrMatrix, Row, Rows};
pub use dyn_map::DynFeatureMap;
pub use error::{MapError, Result};
pub use fastfood::{
    Fastfood, FastfoodParams, FastfoodScratch, FastfoodTransform, FastfoodValidParams,
};
pub use feature_map::FeatureMap;
pub use fourier::FourierForm;
pub use hadamard::{fwht, fwht_radix2, fwht_reference};
pub use kernels::shift_invariant::ShiftInvariantKernel;
pub use kernels::{Kernel, PolynomialKernel};
pub use nystroem::{
    landmark_indices, Nystroem, NystroemParams, NystroemScratch, NystroemValidParams,
};
pub use orthogonal::{
    OrthogonalRandomFeatures, OrthogonalRandomFeaturesParams, OrthogonalRandomFeaturesValidParams,
    StructuredOrthogonalFeatures, StructuredOrthogonalParams, StructuredOrthogonalValidParams,
};
pub use orthogonal_revrand::{
    RevrandOrthogonalFeatures, RevrandOrthogonalParams, RevrandOrthogonalValidParams,
};
pub use packed::{slice_finite, slice_finite_f32};
pub use prff::{Prff, PrffParams, PrffValidParams, PrffWeighting};
pub use random_binning::{RandomBinning, RandomBinningParams, RandomBinningValidParams};
pub use random_fourier::{RandomFourierFeatures, RandomFourierParams, RandomFourierValidParams};
pub use random_maclaurin::{RandomMaclaurin, RandomMaclaurinParams, RandomMaclaurinValidParams};
pub use random_maclaurin_h01::{
    RandomMaclaurinH01, RandomMaclaurinH01Params, RandomMaclaurinH01ValidParams,
};
pub use ranges::Interval;
pub use tensor_sketch::{TensorSketch, TensorSketchParams, TensorSketchValidParams};
