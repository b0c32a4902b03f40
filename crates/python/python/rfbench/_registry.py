"""The component registry (crate ``rfbench-registry-data``, exported by ``_rfbench.registry()``) as
scikit-learn parameter constraints and defaults.

Every parameter a class shares with the registry (a map's, such as ``n_components``, ``width``,
``eigenvalue_cutoff``; a kernel's, such as ``degree``, ``offset`` (``coef0`` here), ``nu``) takes
its range and default from the registry, the table that also validates the runner's specs and
generates ``docs/spec.md``: a range is written once. A class says which registry maps it
implements (``_registry_maps``: name -> the parameters that select it) and where each of its
parameters comes from (``_registry_params``: Python name -> ``("map" | "kernel", entry,
registry name)``); ``tests/test_registry.py`` holds every class to it.

Python-only parameters keep their own constraints: ``random_state``, the bandwidth (``gamma`` in
scikit-learn's convention or ``sigma``; module ``_kernels``), the kernel choice, Fastfood's
``method`` and Random Maclaurin's ``h01`` (each a registry map of its own).

Where Python deliberately differs from the registry (``DEVIATIONS``, tested):

* ``form`` also takes ``"auto"``, its default: paired when D is even, else phase (the registry's
  default ``"paired"`` needs an even D; scikit-learn's ``RBFSampler`` takes any D).
* A parameter a spec must give (no registry default: ``n_components``, ``n_grids``, ``degree``)
  has scikit-learn's default: 100 features or grids, degree 2 for the sketches
  (``PolynomialCountSketch``) and 3 for ``Nystroem`` (``polynomial_kernel``).
* ``RandomBinning``'s ``width`` defaults to 2^12, not the registry's 2^20: scikit-learn's
  ``check_estimator`` and any dense step densify the ``n_grids * width`` columns (104,857,600 at
  2^20, killed for memory), and the collision bias at 2^12, ``1 / width``, is far below the
  estimate's own noise.
* PRFF's ``learning_rate`` also takes ``"auto"``, its default: a step divided by the training
  rows' mean squared norm, which converges on standardised rows, where the registry's fixed 50
  diverges (``PseudoRandomFourierFeatures``' doc). The runner's specs keep the registry's step.
* ``Nystroem``'s ``coef0`` is scikit-learn's, not the registry's ``offset``: default 1
  (scikit-learn's ``polynomial_kernel``) and any real, where the registry's offset (the sketches'
  ``coef0``, as ``PolynomialCountSketch``'s) defaults to 0 and is ``>= 0``.
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from . import _rfbench

_ENTRIES = _rfbench.registry()
MAPS = {entry["name"]: entry for entry in _ENTRIES["maps"]}
KERNELS = {entry["name"]: entry for entry in _ENTRIES["kernels"]}

# Python name -> how a class's choices or default differ from the registry's (the module doc
# says why); tests/test_registry.py fails on a difference not listed here.
DEVIATIONS = {
    "form": "adds 'auto' (paired when D is even, else phase), the default",
    "n_components": "no registry default (a spec gives it): scikit-learn's 100",
    "n_grids": "no registry default (a spec gives it): 100, as n_components",
    "degree": "no registry default: 2 for the sketches (PolynomialCountSketch), 3 for Nystroem",
    "coef0": "Nystroem's is scikit-learn's (default 1, any real); the registry's offset is 0, >= 0",
    "learning_rate": "PRFF adds 'auto' (a step in the data's own scale), the default",
    "width": "RandomBinning's is 2^12, not 2^20: a dense step (check_estimator's) holds it",
}

# Python name -> the word a class accepts beside the registry's range or choices (DEVIATIONS
# says why).
EXTRA_OPTIONS = {"form": "auto", "learning_rate": "auto"}


def param(source):
    """The registry's parameter at ``source = ("map" | "kernel", entry name, parameter name)``."""
    table, entry, name = source
    entries = MAPS if table == "map" else KERNELS
    for spec in entries[entry]["params"]:
        if spec["name"] == name:
            return spec
    raise KeyError(f"the registry's {table} {entry!r} has no parameter {name!r}")


def default(source):
    """The registry's default of the parameter at ``source``."""
    value = param(source)["default"]
    if value is None:
        raise KeyError(f"{source}: the registry has no default (a spec must give it)")
    return value


def constraint(source):
    """scikit-learn's constraint list for the registry's parameter at ``source``: an ``Interval``
    with the registry's ends (an unbounded end is open), or ``StrOptions`` of its words."""
    spec = param(source)
    kind = spec["kind"]
    if kind in ("int", "float"):
        left, right = spec["min"], spec["max"]
        closed_left = left is not None and not spec["open_min"]
        closed_right = right is not None and not spec["open_max"]
        closed = {
            (True, True): "both",
            (True, False): "left",
            (False, True): "right",
            (False, False): "neither",
        }[(closed_left, closed_right)]
        return [Interval(Integral if kind == "int" else Real, left, right, closed=closed)]
    if kind == "choice":
        return [StrOptions(set(spec["choices"]))]
    if kind == "bool":
        return ["boolean"]
    raise ValueError(f"{source}: no scikit-learn constraint for a {kind!r} parameter")


def constraints(sources):
    """``{python name: constraint}`` for ``sources = {python name: source}``."""
    return {name: constraint(source) for name, source in sources.items()}
