"""What every map transformer shares: scikit-learn's validation, seeds, dtypes and sparse input.

A subclass says how to build its kernel and fit its map (``_fit_map``); everything else (the
checks scikit-learn's ``estimator_checks`` make, float32 handling, CSR input, the features' names)
is here once, so the nine transformers cannot disagree.
"""

import os
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _memory, _rfbench

# The largest seed drawn from a RandomState (or from fresh entropy when random_state is None);
# an integer random_state is used as the seed itself, so it matches the Rust crate bit for bit.
_SEED_BOUND = np.iinfo(np.int64).max


def seed_from(random_state):
    """The u64 seed of the Rust map: the integer itself, else a draw from the RandomState."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(_SEED_BOUND, dtype=np.int64))


def rows_for_rust(X):
    """Float64 rows as the extension takes them: a C-contiguous array, or CSR parts (sorted
    column indices, no duplicates, int64), never modifying the caller's matrix."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return (
            np.ascontiguousarray(X.data, dtype=np.float64),
            np.ascontiguousarray(X.indices, dtype=np.int64),
            np.ascontiguousarray(X.indptr, dtype=np.int64),
            X.shape[1],
        )
    return np.ascontiguousarray(X, dtype=np.float64)


def n_threads(n_jobs):
    """The extension's thread count for ``n_jobs``: 0 (the package's setting,
    ``rfbench.set_num_threads``, by default every core) for None, joblib's count otherwise
    (-1 every core, -2 all but one, ...)."""
    if n_jobs is None:
        return 0
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning: give None, a count >= 1, or -1 (every core)")
    if n_jobs > 0:
        return int(n_jobs)
    return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))


def fitted_attribute(name, doc):
    """scikit-learn's fitted attribute ``name``, read from the Rust map when asked (module
    ``attributes`` of the extension): before fit, ``hasattr`` is False as scikit-learn's."""

    def get(self):
        check_is_fitted(self, "map_")
        return self.map_.sklearn_attributes()[name]

    return property(get, doc=doc)


class MapTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of every random feature map (not for direct use).

    Subclasses define ``_parameter_constraints`` and ``_fit_map(X, seed)``, which returns the
    fitted Rust map (fitting on ``self._n_threads()`` threads); ``_feature_scale`` (a constant
    the features are multiplied by) is 1 unless the subclass says otherwise. Every subclass has
    ``n_jobs``.
    """

    # Whether the features are a sparse matrix with one entry per grid (random binning): its
    # output dimension is then no measure of the memory a transform takes.
    _sparse_output = False

    def _nonzeros_per_row(self):  # pragma: no cover - only sparse maps define it
        raise NotImplementedError

    def _fit_map(self, X, seed):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _feature_scale(self):
        return 1.0

    def _n_threads(self):
        return n_threads(self.n_jobs)

    def _size_params(self, X):
        """The map's integer parameters by registry name, for the registry's size model."""
        return {
            source[2]: int(getattr(self, name))
            for name, source in self._registry_params.items()
            if source[0] == "map" and isinstance(getattr(self, name), Integral)
        }

    def _registry_name(self):
        """The registry map this estimator is (its class's, selected by its parameters)."""
        for name, selects in self._registry_maps.items():
            if all(getattr(self, key) == value for key, value in selects.items()):
                return name
        raise AssertionError(f"{type(self).__name__}: no registry map for {selects}")

    def _size(self, X):
        """``(output_dim, state values, working values per thread)`` from the registry's model."""
        polynomial = self._polynomial(X.shape[1])
        degree = 1 if polynomial is None else polynomial[0]
        output_dim, state = _rfbench.map_size(
            self._registry_name(), self._size_params(X), X.shape[1], degree
        )
        per_thread = _memory.working_values(output_dim, degree, self._sparse_output)
        return output_dim, state, per_thread

    def _polynomial(self, n_features):
        """``(degree, gamma, coef0)`` of the polynomial kernel this estimator maps, else None."""
        return None

    def _check_degree(self, X):
        """A ``ValueError`` when the polynomial kernel overflows on ``X``: at the row of largest
        norm, ``(gamma |x|^2 + |coef0|)^degree`` bounds every kernel value and every feature's
        square sum; past the largest double the features would be infinite or NaN."""
        polynomial = self._polynomial(X.shape[1])
        if polynomial is None or X.shape[0] == 0:
            return
        degree, gamma, coef0 = polynomial
        squares = X.multiply(X).sum(axis=1) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
        largest = gamma * float(np.max(squares)) + abs(coef0)
        if largest > 1 and degree * np.log(largest) >= np.log(np.finfo(np.float64).max):
            raise ValueError(
                f"{type(self).__name__}: degree={degree} overflows on these rows: "
                f"(gamma |x|^2 + coef0)^degree = {largest:.3g}^{degree} at the row of largest "
                "norm is past the largest double, so features would be non-finite; scale X "
                "down or lower the degree"
            )

    def fit(self, X, y=None):
        """Draw the map's randomness (and, for Nystroem and PRFF, fit it on ``X``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (only their number of columns matters, except for Nystroem and
            PRFF).
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        MemoryError
            When the map's parameters would not fit in the memory the process may allocate (module
            ``rfbench._memory``); ``ValueError`` when their size overflows.
        """
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        self._check_degree(X)
        _, state, per_thread = self._size(X)
        _memory.check(type(self).__name__, "fit", 8 * (2 * state + per_thread))
        self.map_ = self._fit_map(X, seed_from(self.random_state))
        return self

    def transform(self, X):
        """The features of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features_out)
            Float32 for float32 input; a CSR matrix for random binning.

        Raises
        ------
        MemoryError
            When the features would not fit in the memory the process may allocate.
        ValueError
            When a feature is not finite (a polynomial kernel's degree too high for the scale
            of ``X``: ``|x|^degree`` overflows).
        """
        check_is_fitted(self, "map_")
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        single = X.dtype == np.float32
        self._check_degree(X)
        self._check_transform_memory(X)
        n_jobs = self._n_threads()
        if self.map_.sparse_output:
            data, indices, indptr, shape = self.map_.transform_sparse(rows_for_rust(X), n_jobs)
            Z = sp.csr_matrix((data, indices.astype(np.int64), indptr.astype(np.int64)), shape)
        elif single and not sp.issparse(X):
            # Single precision in the map where it has its own path (``native_float32``), else
            # its double-precision features rounded block by block, never all n x D at once.
            Z = self.map_.transform_float32(np.ascontiguousarray(X), n_jobs)
        else:
            Z = self.map_.transform(rows_for_rust(X), n_jobs)
        scale = self._feature_scale()
        if scale != 1.0:
            Z *= scale
        if self._polynomial(X.shape[1]) is not None:
            # The degree check bounds the kernel; a sketch's intermediate products can still
            # overflow first (the Fourier maps' features are bounded by construction).
            _check_finite(self, Z, n_jobs)
        return Z.astype(np.float32, copy=False) if single else Z

    def _check_transform_memory(self, X):
        _, _, per_thread = self._size(X)
        n = X.shape[0]
        if self._sparse_output:
            # A value (8 bytes) and a column index (4, then 8 once SciPy's) per entry.
            features = 16 * n * self._nonzeros_per_row() + 8 * (n + 1)
        else:
            features = 8 * n * self.map_.output_dim
        threads = self._n_threads() or _rfbench.get_num_threads()
        _memory.check(type(self).__name__, "transform", features + 8 * threads * per_thread)

    @property
    def _n_features_out(self):
        return self.map_.output_dim

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _check_finite(estimator, Z, n_jobs):
    # The extension's scan: no boolean copy of Z, on the call's threads (NumPy's
    # ``np.isfinite(Z).all()`` took 0.05-0.33 s of a 0.6 s Tensor Sketch transform of a9a).
    all_finite = _rfbench.all_finite_f32 if Z.dtype == np.float32 else _rfbench.all_finite_f64
    if not all_finite(Z, n_jobs):
        raise ValueError(
            f"{type(estimator).__name__}: non-finite features (a degree of "
            f"{getattr(estimator, 'degree', '?')} overflows |x|^degree at this scale of X: "
            "scale X down or lower the degree)"
        )
