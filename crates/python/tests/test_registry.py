"""The classes against the component registry (crate ``rfbench-registry-data``, exported by
``_rfbench.registry()``): every registry map has a class, every parameter a class shares with the
registry has the registry's range and default (or a deviation stated in ``rfbench._registry``),
and the ranges hold at their ends."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError, StrOptions

from conftest import REGISTRY_CLASSES, feature_maps
from rfbench import NystroemMap, PseudoRandomFourierFeatures, RandomBinning, RandomFourierFeatures
from rfbench import _registry, _rfbench

X = np.random.RandomState(0).randn(40, 5)
CLASSES = sorted({cls for cls, _ in REGISTRY_CLASSES.values()}, key=lambda cls: cls.__name__)


def describe(constraints):
    """A constraint list as comparable data (scikit-learn's constraints have no equality)."""
    out = []
    for c in constraints:
        if isinstance(c, StrOptions):
            out.append(("options", frozenset(c.options)))
        elif hasattr(c, "closed"):
            out.append(("interval", c.type, c.left, c.right, c.closed))
        else:
            out.append(c)
    return out


def test_the_export_has_every_map_and_kernel_with_typed_parameters():
    entries = _rfbench.registry()
    names = [m["name"] for m in entries["maps"]]
    assert {"rff", "nystroem", "prff", "exact", "none"} <= set(names)
    assert [m["name"] for m in entries["maps"] if not m["is_feature_map"]] == ["exact", "none"]
    assert {k["name"] for k in entries["kernels"]} == {
        "polynomial",
        "gaussian",
        "laplacian",
        "matern",
        "linear",
    }
    cutoff = _registry.param(("map", "nystroem", "eigenvalue_cutoff"))
    assert cutoff == {
        "name": "eigenvalue_cutoff",
        "kind": "float",
        "min": 0.0,
        "max": 1.0,
        "open_min": False,
        "open_max": True,
        "choices": [],
        "default": 1e-10,
        "doc": cutoff["doc"],
    }
    n_components = _registry.param(("map", "rff", "n_components"))
    assert (n_components["kind"], n_components["min"], n_components["default"]) == ("int", 1, None)
    assert type(n_components["max"]) is int
    assert _registry.param(("map", "rff", "form"))["choices"] == ["paired", "phase"]
    assert _registry.param(("kernel", "gaussian", "sigma"))["kind"] == "bandwidth"


def test_every_registry_map_has_a_python_class():
    registry = set(feature_maps())
    missing = sorted(registry - set(REGISTRY_CLASSES))
    assert not missing, f"registry maps without a Python class (rfbench._REGISTRY_CLASSES): {missing}"
    unknown = sorted(set(REGISTRY_CLASSES) - registry)
    assert not unknown, f"Python classes for maps the registry does not have: {unknown}"


@pytest.mark.parametrize("name", feature_maps())
def test_a_class_takes_every_parameter_of_its_registry_map(name):
    cls, selects = REGISTRY_CLASSES[name]
    taken = {source[2] for source in cls._registry_params.values() if source[0] == "map"}
    for spec in _registry.MAPS[name]["params"]:
        assert spec["name"] in taken, f"{cls.__name__} lacks the registry's {name}.{spec['name']}"
    # The parameters that select the map are the class's own and their values valid.
    cls(**selects)._validate_params()


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_constraints_and_defaults_are_the_registrys(cls):
    defaults = inspect.signature(cls.__init__).parameters
    for python_name, source in cls._registry_params.items():
        expected = describe(_registry.constraint(source))
        extra = _registry.EXTRA_OPTIONS.get(python_name)
        if extra is not None and expected[0][0] == "options":
            expected = [("options", expected[0][1] | {extra})]
        elif extra is not None:
            expected = expected + [("options", frozenset({extra}))]
        assert describe(cls._parameter_constraints[python_name]) == expected, python_name
        registry_default = _registry.param(source)["default"]
        default = defaults[python_name].default
        if default != registry_default or type(default) is not type(registry_default):
            assert python_name in _registry.DEVIATIONS, (
                f"{cls.__name__}.{python_name} defaults to {default!r}, the registry's "
                f"{source} to {registry_default!r}, and rfbench._registry.DEVIATIONS says nothing"
            )


def test_the_deviations_are_the_ones_stated():
    assert RandomFourierFeatures().form == "auto"
    assert _registry.default(("map", "rff", "form")) == "paired"
    assert NystroemMap().coef0 == 1.0
    assert _registry.default(("kernel", "polynomial", "offset")) == 0.0


def ends(spec):
    """Each finite end of an "int" or "float" range, a step inside and a step outside it, and
    whether the registry accepts each."""
    step = 1 if spec["kind"] == "int" else 1e-9
    for end, sign, is_open in ((spec["min"], -1, spec["open_min"]), (spec["max"], 1, spec["open_max"])):
        if end is None:
            continue
        yield end, not is_open
        yield end - sign * step, True
        yield end + sign * step, False


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_ranges_hold_at_their_ends(cls):
    tried = 0
    for python_name, source in cls._registry_params.items():
        spec = _registry.param(source)
        if spec["kind"] not in ("int", "float"):
            continue
        for value, accepted in ends(spec):
            estimator = cls(**{python_name: value})
            if accepted:
                estimator._validate_params()
            else:
                with pytest.raises(InvalidParameterError, match=python_name):
                    estimator._validate_params()
            tried += 1
    assert tried >= 3


def test_nystroem_eigenvalue_cutoff_accepts_0_and_refuses_1():
    NystroemMap(10, eigenvalue_cutoff=0.0, random_state=0).fit(X)
    with pytest.raises(ValueError, match="eigenvalue_cutoff"):
        NystroemMap(10, eigenvalue_cutoff=1.0, random_state=0).fit(X)


def test_random_binning_width_is_2_to_the_12_and_its_features_stay_sparse():
    # scikit-learn's checks densify the output: the registry's 2^20 was killed for memory.
    assert RandomBinning().width == 2**12
    assert _registry.default(("map", "random-binning", "width")) == 2**20
    Z = RandomBinning(n_grids=4, random_state=0).fit_transform(X)
    assert sp.issparse(Z) and Z.shape == (X.shape[0], 4 * 2**12) and Z.nnz == 4 * X.shape[0]


def test_prff_max_iterations_0_is_the_registrys_and_the_librarys():
    assert _registry.param(("map", "prff", "max_iterations"))["min"] == 0
    PseudoRandomFourierFeatures(10, max_iterations=0, random_state=0).fit(X)


def test_matern_nu_is_the_registrys_range_and_the_librarys_closed_forms():
    for nu in (0.5, 1.5, 2.5):
        RandomFourierFeatures(20, kernel="matern", nu=nu, random_state=0).fit(X)
    # Inside the registry's range but no closed form: the library refuses it at fit.
    with pytest.raises(ValueError, match="nu = 1 is out of range"):
        RandomFourierFeatures(20, kernel="matern", nu=1.0).fit(X)
    # Outside the range: the parameter check, whatever the kernel.
    for nu in (0.25, 3.0):
        for estimator in (RandomFourierFeatures(kernel="matern", nu=nu), NystroemMap(nu=nu)):
            with pytest.raises(InvalidParameterError, match="nu"):
                estimator.fit(X)


@pytest.mark.parametrize("name", feature_maps())
def test_a_class_credits_its_registry_maps_paper(name):
    cls, _ = REGISTRY_CLASSES[name]
    paper = _registry.MAPS[name]["paper"].split(" (")[0]
    assert paper in " ".join(cls.__doc__.split()), f"{cls.__name__} does not credit {paper}"
