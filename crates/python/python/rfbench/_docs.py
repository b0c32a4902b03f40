"""The numpydoc sections every class ends with: See Also, References and Examples (the Examples
run as doctests: tests/test_docs.py). Kept here, keyed by class name, so that the class modules
hold the code and the shared Parameters text, and a class without its three sections fails the
test by name."""

_SEE_ALSO_FOURIER = """
    See Also
    --------
    RandomFourierFeatures : i.i.d. frequencies, any D, sparse-friendly.
    OrthogonalRandomFeatures : orthogonal frequency blocks, lower variance at equal D.
    Fastfood : structured frequencies, O(D log d) per row and O(D) memory.
    NystroemMap : data-dependent landmarks; often more accurate at small D.
    RBFSampler : scikit-learn's class, the phase form of random Fourier features.
"""

_SEE_ALSO_POLYNOMIAL = """
    See Also
    --------
    TensorSketch : count sketches multiplied by FFT, O(nnz + D log D) per row.
    RandomMaclaurin : Rademacher products, any dot-product kernel's Maclaurin series.
    NystroemMap : landmarks; exact once they span the kernel's rank.
    PolynomialCountSketch : scikit-learn's class and parameters for Tensor Sketch.
"""

_RAHIMI_RECHT = (
    "A. Rahimi and B. Recht, \"Random features for large-scale kernel machines\", "
    "NIPS 2007."
)
_YU = (
    "F. X. Yu, A. T. Suresh, K. Choromanski, D. Holtmann-Rice and S. Kumar, \"Orthogonal "
    "random features\", NIPS 2016."
)


def _references(*papers):
    lines = "\n".join(f"    .. [{k}] {paper}" for k, paper in enumerate(papers, start=1))
    return f"\n    References\n    ----------\n{lines}\n"


def _example(code):
    """An Examples section from doctest lines (already indented by four spaces)."""
    return "\n    Examples\n    --------\n" + code


SECTIONS = {
    "TensorSketch": _SEE_ALSO_POLYNOMIAL
    + _references(
        "N. Pham and R. Pagh, \"Fast and scalable polynomial kernels via explicit feature "
        "maps\", KDD 2013."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import TensorSketch
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> sketch = TensorSketch(256, degree=2, coef0=1.0, random_state=0).fit(X)
    >>> sketch.transform(X).shape
    (50, 256)
    >>> sketch.indexHash_.shape, sketch.bitHash_.shape  # degree x (d + 1): coef0 > 0
    ((2, 9), (2, 9))
"""
    ),
    "RandomMaclaurin": _SEE_ALSO_POLYNOMIAL
    + _references(
        "P. Kar and H. Karnick, \"Random feature maps for dot product kernels\", AISTATS 2012.",
        "R. Hamid, Y. Xiao, A. Gittens and D. DeCoste, \"Compact random feature maps\", "
        "ICML 2014 (H0/1).",
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import RandomMaclaurin
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> RandomMaclaurin(100, degree=2, coef0=1.0, h01=True, random_state=0).fit_transform(X).shape
    (50, 109)
"""
    ),
    "RandomFourierFeatures": _SEE_ALSO_FOURIER
    + _references(_RAHIMI_RECHT)
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import RandomFourierFeatures
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> rff = RandomFourierFeatures(64, gamma="scale", random_state=0).fit(X)
    >>> Z = rff.transform(X)
    >>> Z.shape, rff.random_weights_.shape, rff.random_offset_.shape
    ((50, 64), (8, 64), (64,))
    >>> bool(np.allclose(Z, np.sqrt(2 / 64) * np.cos(X @ rff.random_weights_ + rff.random_offset_)))
    True
"""
    ),
    "OrthogonalRandomFeatures": _SEE_ALSO_FOURIER
    + _references(_YU)
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import OrthogonalRandomFeatures
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> OrthogonalRandomFeatures(64, gamma=0.1, random_state=0).fit_transform(X).shape
    (50, 64)
"""
    ),
    "StructuredOrthogonalRandomFeatures": _SEE_ALSO_FOURIER
    + _references(_YU)
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import StructuredOrthogonalRandomFeatures
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> StructuredOrthogonalRandomFeatures(64, gamma=0.1, random_state=0).fit_transform(X).shape
    (50, 64)
"""
    ),
    "Fastfood": _SEE_ALSO_FOURIER
    + _references(
        "Q. Le, T. Sarlos and A. Smola, \"Fastfood - approximating kernel expansions in "
        "loglinear time\", ICML 2013."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import Fastfood
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> Fastfood(64, gamma=0.1, method="fft", random_state=0).fit_transform(X).shape
    (50, 64)
"""
    ),
    "RandomBinning": """
    See Also
    --------
    RandomFourierFeatures : dense features of the same Laplacian kernel (kernel="laplacian").
"""
    + _references(_RAHIMI_RECHT)
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import RandomBinning
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> Z = RandomBinning(n_grids=10, width=64, gamma=0.5, random_state=0).fit_transform(X)
    >>> Z.shape, Z.nnz  # a SciPy CSR matrix, one entry per grid and row
    ((50, 640), 500)
"""
    ),
    "NystroemMap": """
    See Also
    --------
    Nystroem : scikit-learn's class and parameters on the same fit.
    RandomFourierFeatures : data-independent features of the shift-invariant kernels.
    TensorSketch : data-independent features of the polynomial kernel.
"""
    + _references(
        "C. K. I. Williams and M. Seeger, \"Using the Nystroem method to speed up kernel "
        "machines\", NIPS 2001."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import NystroemMap
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> matern = NystroemMap(20, kernel="matern", nu=2.5, sigma=2.0, random_state=0).fit(X)
    >>> matern.transform(X).shape
    (50, 20)
"""
    ),
    "Nystroem": """
    See Also
    --------
    NystroemMap : the crate's parameters (sigma, the Matern kernel, eigenvalue_cutoff).
    RBFSampler : data-independent features of the Gaussian kernel.
    sklearn.kernel_approximation.Nystroem : scikit-learn's (the same parameters and attributes).
"""
    + _references(
        "C. K. I. Williams and M. Seeger, \"Using the Nystroem method to speed up kernel "
        "machines\", NIPS 2001."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import Nystroem
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> nystroem = Nystroem(kernel="rbf", n_components=20, random_state=0).fit(X)
    >>> nystroem.transform(X).shape, nystroem.components_.shape, nystroem.normalization_.shape
    ((50, 20), (20, 8), (20, 20))
    >>> bool(np.array_equal(nystroem.components_, X[nystroem.component_indices_]))
    True

    A kernel the crate does not have, computed by scikit-learn on the same landmarks:

    >>> def gaussian(x, y, gamma):
    ...     return np.exp(-gamma * np.sum((x - y) ** 2))
    >>> custom = Nystroem(kernel=gaussian, kernel_params={"gamma": 1 / 8}, n_components=20,
    ...                   random_state=0).fit(X)
    >>> bool(np.array_equal(custom.component_indices_, nystroem.component_indices_))
    True
    >>> bool(np.allclose(custom.transform(X), nystroem.transform(X), atol=1e-10))
    True
"""
    ),
    "PseudoRandomFourierFeatures": """
    See Also
    --------
    RandomFourierFeatures : the same features before the descent (``max_iterations=0``).
    NystroemMap : another data-dependent map.
"""
    + _references(
        "B. B. Damodaran, N. Courty and P.-H. Gosselin, \"Data dependent kernel approximation "
        "using pseudo random Fourier features\", arXiv:1711.09783, 2017."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import PseudoRandomFourierFeatures
    >>> X = np.random.RandomState(0).randn(60, 8)
    >>> prff = PseudoRandomFourierFeatures(32, gamma=0.1, max_iterations=5, random_state=0)
    >>> prff.fit_transform(X).shape
    (60, 32)
"""
    ),
}


SECTIONS["RBFSampler"] = (
    """
    See Also
    --------
    RandomFourierFeatures : the crate's class: the paired form, Laplacian and Matern kernels.
    Nystroem : data-dependent landmarks.
    sklearn.kernel_approximation.RBFSampler : scikit-learn's (the same parameters).
"""
    + _references(_RAHIMI_RECHT)
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import RBFSampler
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> rbf = RBFSampler(gamma=0.1, n_components=64, random_state=0).fit(X)
    >>> rbf.transform(X).shape, rbf.random_weights_.shape, rbf.random_offset_.shape
    ((50, 64), (8, 64), (64,))
    >>> sorted(rbf.get_params())
    ['gamma', 'n_components', 'random_state']
"""
    )
)
SECTIONS["PolynomialCountSketch"] = (
    """
    See Also
    --------
    TensorSketch : the crate's class (the same map).
    Nystroem : landmarks; exact once they span the kernel's rank.
    sklearn.kernel_approximation.PolynomialCountSketch : scikit-learn's (the same parameters).
"""
    + _references(
        "N. Pham and R. Pagh, \"Fast and scalable polynomial kernels via explicit feature "
        "maps\", KDD 2013."
    )
    + _example(
        """    >>> import numpy as np
    >>> from rfbench import PolynomialCountSketch
    >>> X = np.random.RandomState(0).randn(50, 8)
    >>> sketch = PolynomialCountSketch(degree=3, coef0=1.0, n_components=128, random_state=0)
    >>> sketch.fit_transform(X).shape, sketch.indexHash_.shape
    ((50, 128), (3, 9))
"""
    )
)


def finish(cls):
    """Appends the class's See Also, References and Examples to its docstring."""
    cls.__doc__ = cls.__doc__.rstrip() + "\n" + SECTIONS[cls.__name__]
    return cls
