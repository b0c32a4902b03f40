"""What every map transformer shares: scikit-learn's validation, seeds, dtypes and sparse input.

A subclass says how to build its kernel and fit its map (``_fit_map``); everything else (the
checks scikit-learn's ``estimator_checks`` make, float32 handling, CSR input, the features' names)
is here once, so the nine transformers cannot disagree.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

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


class MapTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of every random feature map (not for direct use).

    Subclasses define ``_parameter_constraints`` and ``_fit_map(X, seed)``, which returns the
    fitted Rust map; ``_feature_scale`` (a constant the features are multiplied by) is 1 unless
    the subclass says otherwise.
    """

    def _fit_map(self, X, seed):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _feature_scale(self):
        return 1.0

    def fit(self, X, y=None):
        """Draw the map's randomness (and, for Nystroem and PRFF, fit it on ``X``).

        ``X``: array-like or SciPy sparse matrix of shape (n_samples, n_features). ``y`` is
        ignored. Returns ``self``.
        """
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        self.map_ = self._fit_map(X, seed_from(self.random_state))
        return self

    def transform(self, X):
        """The features of ``X``: an ndarray of shape (n_samples, n_components), float32 for
        float32 input (random binning: a CSR matrix)."""
        check_is_fitted(self, "map_")
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        single = X.dtype == np.float32
        if self.map_.sparse_output:
            data, indices, indptr, shape = self.map_.transform_sparse(rows_for_rust(X))
            Z = sp.csr_matrix((data, indices.astype(np.int64), indptr.astype(np.int64)), shape)
        elif single and not sp.issparse(X) and self.map_.native_float32:
            Z = self.map_.transform_float32(np.ascontiguousarray(X))
        else:
            Z = self.map_.transform(rows_for_rust(X))
        scale = self._feature_scale()
        if scale != 1.0:
            Z *= scale
        return Z.astype(np.float32, copy=False) if single else Z

    @property
    def _n_features_out(self):
        return self.map_.output_dim

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
