"""rfbench: random feature maps for kernel approximation, implemented in Rust, as scikit-learn
transformers.

Every map is a scikit-learn estimator (``fit``, ``transform``, ``get_params``, ``clone``,
pickling, pipelines, grid search). An integer ``random_state`` is the Rust map's seed, so the
features equal the Rust crate's (``rfbench-maps``) for the same seed and parameters. Float32 input
gives float32 features; SciPy sparse input is taken as CSR; transforms release the GIL.
"""

from . import _rfbench
from .data_dependent import Nystroem, PseudoRandomFourierFeatures
from .fourier import (
    Fastfood,
    OrthogonalRandomFeatures,
    RandomBinning,
    RandomFourierFeatures,
    StructuredOrthogonalRandomFeatures,
)
from .polynomial import RandomMaclaurin, TensorSketch

__version__ = _rfbench.__version__

# Every random feature map of the component registry (``_rfbench.registry()``) by name: the class
# that implements it and the parameters that select it (Fastfood's ``method``, Random
# Maclaurin's ``h01``). tests/test_registry.py fails naming a registry map missing here.
_REGISTRY_CLASSES = {
    name: (cls, selects)
    for cls in (
        TensorSketch,
        RandomMaclaurin,
        RandomFourierFeatures,
        OrthogonalRandomFeatures,
        StructuredOrthogonalRandomFeatures,
        Fastfood,
        RandomBinning,
        Nystroem,
        PseudoRandomFourierFeatures,
    )
    for name, selects in cls._registry_maps.items()
}

__all__ = [
    "TensorSketch",
    "RandomMaclaurin",
    "RandomFourierFeatures",
    "OrthogonalRandomFeatures",
    "StructuredOrthogonalRandomFeatures",
    "Fastfood",
    "RandomBinning",
    "Nystroem",
    "PseudoRandomFourierFeatures",
]
