"""The Python classes give the Rust crate's features, bit for bit, for the same parameters and
seed: the Rust side is `crates/maps/examples/reference_features.rs`, which builds each map with the
library's own builders (no code of this package), so a parameter or seed lost or converted on the
way through Python fails here."""

import os
import pathlib
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import assert_covers_the_registry
from rfbench import (
    Fastfood,
    NystroemMap,
    OrthogonalRandomFeatures,
    PseudoRandomFourierFeatures,
    RandomBinning,
    RandomFourierFeatures,
    RandomMaclaurin,
    StructuredOrthogonalRandomFeatures,
    TensorSketch,
)

SEED = 7
# The same configurations, by label, as the Rust example's `maps()`; every registry map is among
# them (test_every_registry_map_is_compared_with_the_rust_crate).
CONFIGURATIONS = {
    "tensor_sketch": TensorSketch(64, degree=3, coef0=1.0),
    "random_maclaurin": RandomMaclaurin(64, degree=2, coef0=1.0),
    "random_maclaurin_h01": RandomMaclaurin(64, degree=2, coef0=1.0, h01=True),
    "rff_phase": RandomFourierFeatures(64, sigma=0.5, form="phase"),
    "rff_paired_laplacian": RandomFourierFeatures(64, kernel="laplacian", sigma=2.0, form="paired"),
    "rff_matern": RandomFourierFeatures(64, kernel="matern", nu=2.5, sigma=1.5, form="phase"),
    "orf": OrthogonalRandomFeatures(64, sigma=0.5, form="phase"),
    "sorf_paired": StructuredOrthogonalRandomFeatures(64, sigma=0.5, form="paired"),
    "fastfood": Fastfood(64, sigma=0.5, form="phase"),
    # form="auto" with an even D: the crate's paired form.
    "fastfood_fft_paired": Fastfood(64, sigma=0.5, method="fft"),
    "random_binning": RandomBinning(16, width=256, sigma=2.0),
    "nystroem": NystroemMap(32, sigma=0.5),
    "nystroem_polynomial": NystroemMap(32, kernel="polynomial", degree=2, gamma=0.5, coef0=1.0),
    # The crate's default step (Python's default, "auto", scales it by the data).
    "prff": PseudoRandomFourierFeatures(32, sigma=0.5, learning_rate=50.0, max_iterations=5),
}

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


def reference_binary():
    """The example built by `just test-python` (or named by RFBENCH_REFERENCE_FEATURES)."""
    path = os.environ.get("RFBENCH_REFERENCE_FEATURES") or str(
        REPOSITORY / "target" / "debug" / "examples" / "reference_features"
    )
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"{path} is missing: build it with `cargo build --profile test -p rfbench-maps "
            "--example reference_features` (just test-python does)"
        )
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    rng = np.random.RandomState(3)
    X = rng.randn(150, 13) * 0.3
    folder = tmp_path_factory.mktemp("reference")
    X.astype("<f8").tofile(folder / "rows.f64")
    subprocess.run(
        [reference_binary(), str(folder / "rows.f64"), str(X.shape[0]), str(folder)], check=True
    )
    return X, folder


def test_every_registry_map_is_compared_with_the_rust_crate():
    assert_covers_the_registry(CONFIGURATIONS.values(), "test_agreement.CONFIGURATIONS")


@pytest.mark.parametrize("label", sorted(CONFIGURATIONS))
def test_features_equal_the_rust_crates_bit_for_bit(reference, label):
    X, folder = reference
    expected = np.fromfile(folder / f"{label}.f64", dtype="<f8").reshape(X.shape[0], -1)
    estimator = CONFIGURATIONS[label].set_params(random_state=SEED)
    Z = estimator.fit_transform(X)
    Z = Z.toarray() if sp.issparse(Z) else Z
    assert Z.shape == expected.shape
    np.testing.assert_array_equal(Z, expected)


def test_float32_features_equal_the_rust_single_precision_path(reference):
    X, folder = reference
    expected = np.fromfile(folder / "rff_phase_f32.f32", dtype="<f4").reshape(X.shape[0], -1)
    estimator = RandomFourierFeatures(64, sigma=0.5, form="phase", random_state=SEED).fit(X)
    Z = estimator.transform(X.astype(np.float32))
    assert Z.dtype == np.float32
    np.testing.assert_array_equal(Z, expected)
