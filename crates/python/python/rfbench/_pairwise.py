"""Nystroem on kernels the Rust crate does not have: a callable, or scikit-learn's other named
kernels (``"sigmoid"``, ``"cosine"``, ``"chi2"``, ``"additive_chi2"``), or any kernel given
``kernel_params``. scikit-learn's ``pairwise_kernels`` computes the kernel, exactly as its own
``Nystroem`` does, so the swapped import computes the same kernel values; the landmarks are the
crate's (``_rfbench.nystroem_landmarks``, the sampler of the Rust fit), so a seed picks the same
rows whatever the kernel, and the inverse square root is the crate's (eigenvalues at or below
``eigenvalue_cutoff`` times the largest dropped).

``"precomputed"``: ``fit`` takes the training rows' ``n x n`` kernel matrix and ``transform``
each row's kernel values against those ``n`` training rows (``n_queries x n``), scikit-learn's
convention for precomputed kernels (``SVC(kernel="precomputed")``). The landmarks are the crate's
sample of training rows, and a row's features are its kernel values at them,
``K[:, component_indices_] @ normalization_.T`` (``PrecomputedNystroemMap``). scikit-learn's own
``Nystroem`` accepts ``"precomputed"`` but fits only when every training row is a landmark (it
takes the landmarks' whole rows as their kernel matrix, which is square only then); with every
row a landmark both give the same ``Z Z'``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import KERNEL_PARAMS, PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

from . import _kernels, _rfbench

# scikit-learn's kernel names the crate has no kernel for (the others go to Rust).
SKLEARN_ONLY = frozenset(PAIRWISE_KERNEL_FUNCTIONS) - _kernels.names(_kernels.ALL)


PRECOMPUTED = "precomputed"


def handles(kernel, kernel_params):
    """Whether this module, rather than the Rust crate, fits Nystroem on ``kernel``."""
    return (
        callable(kernel)
        or kernel in SKLEARN_ONLY
        or kernel == PRECOMPUTED
        or kernel_params is not None
    )


def kernel_arguments(estimator):
    """The keyword arguments ``pairwise_kernels`` gets, as scikit-learn's ``Nystroem`` builds
    them: ``kernel_params``, and for a named kernel its own parameters (gamma, degree, coef0)
    that are set, which win over ``kernel_params`` (scikit-learn's rule) unless the class
    refuses the conflict (``_KERNEL_PARAMS_CONFLICT``)."""
    params = dict(estimator.kernel_params or {})
    if callable(estimator.kernel):
        if estimator.gamma is not None:
            raise ValueError(
                "Nystroem: a callable kernel takes its parameters from kernel_params, not gamma"
            )
        return params
    if estimator.sigma is not None:
        raise ValueError(
            f"Nystroem: kernel={estimator.kernel!r} (with these kernel_params) is computed by "
            "scikit-learn, which takes gamma, not the crate's sigma"
        )
    if estimator.kernel not in KERNEL_PARAMS:
        raise ValueError(
            f"Nystroem: kernel_params is for a callable or scikit-learn's kernels "
            f"({', '.join(sorted(KERNEL_PARAMS))}), not the crate's {estimator.kernel!r}"
        )
    for name in KERNEL_PARAMS[estimator.kernel]:
        value = getattr(estimator, name)
        if value is None:
            continue
        if name in params and params[name] != value and estimator._KERNEL_PARAMS_CONFLICT == "refuse":
            # NystroemMap's degree and coef0 are always set: letting them win, as scikit-learn
            # lets a set parameter win, silently ignored kernel_params (issue 68).
            raise ValueError(
                f"{type(estimator).__name__}: kernel_params[{name!r}] = {params[name]!r} but "
                f"{name} = {value!r}: give it as {name}={params[name]!r} (rfbench.Nystroem, "
                "scikit-learn's signature, leaves it unset by default)"
            )
        params[name] = value
    return params


class _NystroemFeatures:
    """What the fitted Nystroem maps of this module share: the interface of the extension's
    ``FittedMap`` that ``MapTransformer`` uses (``output_dim``, ``transform``,
    ``sklearn_attributes``), with the features ``kernel_at_landmarks(rows) @ normalization.T``.
    They pickle as plain Python."""

    sparse_output = False
    native_float32 = False

    @property
    def output_dim(self):
        return self.normalization.shape[0]

    def transform(self, rows, n_threads):
        """The features of ``rows`` (as ``rows_for_rust`` gives them)."""
        return self.kernel_at_landmarks(_from_rows(rows), n_threads) @ self.normalization.T

    def transform_float32(self, x, n_threads):
        """The features of float32 rows, computed in double precision and rounded."""
        return self.transform(x.astype(np.float64), n_threads).astype(np.float32)


class PairwiseNystroemMap(_NystroemFeatures):
    """A fitted Nystroem map whose kernel scikit-learn computes (the kernel, if callable, must
    pickle)."""

    def __init__(self, kernel, params, landmarks, normalization, rank):
        self.kernel = kernel
        self.params = params
        self.landmarks = landmarks
        self.normalization = normalization
        self.rank = rank

    def kernel_to_landmarks(self, X, n_jobs):
        """``K(X, landmarks)``, ``n x m``."""
        return pairwise_kernels(
            X, self.landmarks, metric=self.kernel, filter_params=True, n_jobs=n_jobs, **self.params
        )

    def kernel_at_landmarks(self, X, n_threads):
        return self.kernel_to_landmarks(X, None if n_threads == 0 else n_threads)

    def sklearn_attributes(self):
        return {"components_": self.landmarks, "normalization_": self.normalization}


class PrecomputedNystroemMap(_NystroemFeatures):
    """A fitted Nystroem map on a precomputed kernel: rows come as their kernel values against
    the ``n`` training rows, and the features are those at the landmarks times
    ``normalization.T``."""

    def __init__(self, indices, components, normalization, rank):
        self.indices = indices
        self.components = components
        self.normalization = normalization
        self.rank = rank

    def kernel_at_landmarks(self, K, n_threads):
        at_landmarks = K[:, self.indices]
        if sp.issparse(at_landmarks):
            at_landmarks = at_landmarks.toarray()
        return np.asarray(at_landmarks, dtype=np.float64)

    def sklearn_attributes(self):
        # scikit-learn's components_ on a precomputed kernel: the landmarks' rows of it.
        return {"components_": self.components, "normalization_": self.normalization}


def fit_precomputed(estimator, K, n_components, seed):
    """The fitted map of a precomputed ``n x n`` training kernel, and its landmarks' indices."""
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            "Nystroem: kernel='precomputed' fits on the training rows' n x n kernel matrix; got "
            f"{K.shape[0]} x {K.shape[1]}"
        )
    if estimator.gamma is not None or estimator.sigma is not None or estimator.kernel_params:
        raise ValueError(
            "Nystroem: kernel='precomputed' takes the kernel's values, not gamma, sigma or "
            "kernel_params"
        )
    indices = np.asarray(_rfbench.nystroem_landmarks(K.shape[0], n_components, seed))
    components = K[indices]
    components = components.toarray() if sp.issparse(components) else np.array(components)
    components = components.astype(np.float64, copy=False)
    gram = components[:, indices]
    normalization, rank = inverse_square_root((gram + gram.T) / 2.0, estimator.eigenvalue_cutoff)
    fitted = PrecomputedNystroemMap(indices, components, normalization, rank)
    return fitted, indices.astype(np.int64)


def fit(estimator, X, n_components, seed, n_threads):
    """The fitted map and its landmarks' row indices."""
    if estimator.kernel == PRECOMPUTED:
        return fit_precomputed(estimator, X, n_components, seed)
    indices = np.asarray(_rfbench.nystroem_landmarks(X.shape[0], n_components, seed))
    landmarks = X[indices]
    landmarks = landmarks.toarray() if sp.issparse(landmarks) else np.array(landmarks)
    landmarks = landmarks.astype(np.float64, copy=False)
    params = kernel_arguments(estimator)
    n_jobs = None if n_threads == 0 else n_threads
    fitted = PairwiseNystroemMap(estimator.kernel, params, landmarks, None, 0)
    gram = fitted.kernel_to_landmarks(landmarks, n_jobs)
    fitted.normalization, fitted.rank = inverse_square_root(
        (gram + gram.T) / 2.0, estimator.eigenvalue_cutoff
    )
    return fitted, indices.astype(np.int64)


def inverse_square_root(gram, cutoff):
    """``V diag(lambda^{-1/2}) V'`` over the eigenvalues above ``cutoff`` times the largest
    (the others weighted 0, a pseudo-inverse), and how many were kept: the Rust fit's rule."""
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    threshold = cutoff * max(float(eigenvalues.max()), 0.0)
    kept = eigenvalues > threshold
    scales = np.zeros_like(eigenvalues)
    scales[kept] = eigenvalues[kept] ** -0.5
    return (eigenvectors * scales) @ eigenvectors.T, int(kept.sum())


def _from_rows(rows):
    """The matrix ``rows_for_rust`` made: an array, or CSR parts."""
    if isinstance(rows, tuple):
        data, indices, indptr, n_cols = rows
        return sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n_cols))
    return rows
