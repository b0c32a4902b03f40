"""rfbench: random feature maps for kernel approximation, implemented in Rust, as scikit-learn
transformers.

Every map is a scikit-learn estimator (``fit``, ``transform``, ``get_params``, ``clone``,
pickling, pipelines, grid search). An integer ``random_state`` is the Rust map's seed, so the
features equal the Rust crate's (``rfbench-maps``) for the same seed and parameters. Float32 input
gives float32 features; SciPy sparse input is taken as CSR; transforms release the GIL.

scikit-learn's own classes are here by name, with its parameters, defaults and estimators,
computed by the crate (module ``sklearn_classes``): ``RBFSampler``, ``PolynomialCountSketch``,
``Nystroem``, so that ``from rfbench import RBFSampler, Nystroem, PolynomialCountSketch`` is the
only change a scikit-learn script needs. The crate's own classes take more (bandwidths as
``sigma``, other kernels and forms): ``RandomFourierFeatures``, ``TensorSketch``,
``NystroemMap``, and the maps scikit-learn does not have. They take scikit-learn's names too:
``kernel="rbf"``, ``gamma="scale"``, Nystroem's ``gamma=None`` as ``1 / n_features``, and the
fitted attributes ``components_``, ``component_indices_``, ``normalization_``,
``random_weights_``, ``random_offset_``, ``indexHash_``, ``bitHash_``. Both Nystroem classes take
the kernels the crate does not have, as scikit-learn's does: a callable with ``kernel_params``,
and ``"sigmoid"``, ``"cosine"``, ``"chi2"``, ``"additive_chi2"``, computed by scikit-learn's
``pairwise_kernels`` on the crate's landmarks (module ``_pairwise``).

Threads: every class but ``RBFSampler`` and ``PolynomialCountSketch`` (scikit-learn's signatures
have none) takes ``n_jobs`` (None: the package's setting, on which those two run);
``set_num_threads(n)`` sets that, and ``threadpoolctl.threadpool_limits(n)`` reaches it too
(module ``_threads``). The features do not depend on the thread count. A fit or transform that
would not fit in memory raises ``MemoryError`` before allocating (module ``_memory``).
"""

from . import _rfbench

__version__ = _rfbench.__version__

from . import _docs  # noqa: E402
from ._threads import _register_with_threadpoolctl, get_num_threads, set_num_threads  # noqa: E402
from .data_dependent import NystroemMap, PseudoRandomFourierFeatures
from .fourier import (
    Fastfood,
    OrthogonalRandomFeatures,
    RandomBinning,
    RandomFourierFeatures,
    StructuredOrthogonalRandomFeatures,
)
from .polynomial import RandomMaclaurin, TensorSketch
from .sklearn_classes import Nystroem, PolynomialCountSketch, RBFSampler

_register_with_threadpoolctl()

_CLASSES = (
    TensorSketch,
    RandomMaclaurin,
    RandomFourierFeatures,
    OrthogonalRandomFeatures,
    StructuredOrthogonalRandomFeatures,
    Fastfood,
    RandomBinning,
    NystroemMap,
    PseudoRandomFourierFeatures,
)
# scikit-learn's classes by name: the same maps as TensorSketch, RandomFourierFeatures (phase
# form) and NystroemMap, not further entries of the registry.
_SKLEARN_CLASSES = (RBFSampler, PolynomialCountSketch, Nystroem)
for _cls in _CLASSES + _SKLEARN_CLASSES:
    _docs.finish(_cls)

# Every random feature map of the component registry (``_rfbench.registry()``) by name: the class
# that implements it and the parameters that select it (Fastfood's ``method``, Random
# Maclaurin's ``h01``). tests/test_registry.py fails naming a registry map missing here.
_REGISTRY_CLASSES = {
    name: (cls, selects) for cls in _CLASSES for name, selects in cls._registry_maps.items()
}

__all__ = [
    "RBFSampler",
    "PolynomialCountSketch",
    "Nystroem",
    "TensorSketch",
    "RandomMaclaurin",
    "RandomFourierFeatures",
    "OrthogonalRandomFeatures",
    "StructuredOrthogonalRandomFeatures",
    "Fastfood",
    "RandomBinning",
    "NystroemMap",
    "PseudoRandomFourierFeatures",
    "set_num_threads",
    "get_num_threads",
]
