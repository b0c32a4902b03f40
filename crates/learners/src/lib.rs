//! Linear learners trained on random features, and the exact-kernel baselines the papers compare
//! against.
//!
//! - [`LinearSvm`]: linear SVM (hinge or squared hinge loss) by dual coordinate descent, the
//!   LIBLINEAR solver (Hsieh et al. 2008), with its defaults and stopping rule so that objective
//!   values can be compared with LIBLINEAR's; one-vs-rest for more than two classes.
//!   The squared hinge loss can also be trained in the primal by LIBLINEAR's trust-region Newton
//!   method (`-s 2`; [`Solver::Primal`], or [`Solver::Auto`] by shape and convergence).
//! - [`LogisticRegression`]: L2-regularised logistic regression by the same Newton method
//!   (LIBLINEAR's `-s 0`), one-vs-rest for more classes.
//! - [`Ridge`]: ridge regression and the ridge classifier, solved from the normal equations
//!   `(Z'Z + lambda I) w = Z'y` by Cholesky, with `Z'Z` accumulated over row blocks so that the
//!   `n x D` feature matrix is never needed whole; lambda by k-fold cross-validation over a grid
//!   that extends itself while the best value is at an edge ([`GridSearch`] says whether it still
//!   is); the same for the SVM's C ([`LinearSvmValidParams::cross_validate_c`]) and kernel
//!   ridge's lambda ([`KernelRidgeValidParams::cross_validate_lambda`]).
//! - [`metrics`]: accuracy, misclassification %, RMSE, normalised RMSE.
//! - Exact-kernel baseline for small `n`: [`KernelRidge`] on the full kernel matrix, with a typed
//!   error above a configurable size; kernels are `rfbench-maps`'s one vocabulary [`Kernel`]
//!   (re-exported; LIBSVM's `-t 1` kernel is [`Kernel::libsvm_polynomial`]) or any
//!   [`KernelFunction`].
//! - [`CachedKernelSvm`]: the exact kernel SVM, LIBSVM's C-SVC at LIBSVM's scale — SMO driven by a
//!   bounded least-recently-used cache of kernel rows, with shrinking; one-vs-one for more
//!   classes. Memory is the cache size plus `O(n)`, so it runs where the full matrix does not fit.
//! - With the `full-matrix-svm` feature (off by default; this crate's tests, examples and benches
//!   turn it on): `KernelSvm`, the kernel SVM on the full kernel matrix, the reference the cached
//!   SVM is tested against. Its intercept is either LIBLINEAR's penalised constant feature (dual
//!   coordinate descent) or LIBSVM's free intercept (`KernelIntercept::Free`: LIBSVM's SMO, so
//!   objectives compare with `svm-train`'s). No product code uses it.
//! - linfa's `Fit` / `Predict` traits for [`LinearSvm`] and [`Ridge`] on dense linfa datasets.
//!
//! Life cycle (the linfa convention, as in `rfbench-maps`): `XxxParams` (unchecked, builder
//! setters, explicit `u64` seeds) -> `check()` -> `XxxValidParams` -> `fit(data)` -> fitted model.
//! Every `XxxParams` is linfa's [`ParamGuard`] over its `XxxValidParams` (`check_ref` checks in
//! place), so linfa's `Fit` takes the unchecked parameters too. Solvers report how they ended
//! (iterations, final gap, objective, a `converged` flag) instead of stopping silently.

mod cached_kernel_svm;
mod cross_validation;
mod dual_cd;
mod error;
mod grid_search;
mod kernel_baselines;
mod kernel_cache;
#[cfg(feature = "full-matrix-svm")]
mod kernel_svm;
mod linear_svm;
mod linfa_traits;
mod logistic;
pub mod metrics;
mod params;
mod prediction;
mod primal;
mod ridge;
#[cfg(feature = "full-matrix-svm")]
mod smo;
mod smo_cached;
mod smo_gradient;
mod smo_select;
mod streamed;
mod svm_dual;
mod tridiagonal;
mod tron;

pub use cached_kernel_svm::{
    CachedKernelSvm, CachedKernelSvmParams, CachedKernelSvmValidParams, DEFAULT_CACHE_BYTES,
};
pub use cross_validation::cross_validate_parameter;
pub use dual_cd::{ConvergenceReport, SvmLoss};
pub use error::{LearnerError, Result};
pub use grid_search::{GridSearch, Simpler};
pub use kernel_baselines::{
    kernel_matrix, KernelFunction, KernelRidge, KernelRidgeParams, KernelRidgeValidParams,
    DEFAULT_MAX_KERNEL_BYTES,
};
#[cfg(feature = "full-matrix-svm")]
pub use kernel_svm::{KernelIntercept, KernelSvm, KernelSvmParams, KernelSvmValidParams};
pub use linear_svm::{
    class_labels_from_f64, LinearModel, LinearSvm, LinearSvmParams, LinearSvmValidParams,
    LogisticRegression, Solver, AUTO_DUAL_PASSES, AUTO_PRIMAL_RATIO, DUAL_EPS, PRIMAL_EPS,
};
pub use logistic::{LogisticRegressionParams, LogisticRegressionValidParams};
pub use params::ParamGuard;
/// The one kernel vocabulary, `rfbench-maps`'s: the baselines take it (or any
/// [`KernelFunction`]).
pub use rfbench_maps::Kernel;
pub use ridge::{
    default_lambda_grid, papers_lambda_grid, CrossValidation, Ridge, RidgeAccumulator,
    RidgeClassifier, RidgeClassifierParams, RidgeParams, RidgeValidParams, DEFAULT_LAMBDA_LIMITS,
};
pub use smo_cached::SmoReport;
pub use streamed::{FeatureBlocks, Produce};
