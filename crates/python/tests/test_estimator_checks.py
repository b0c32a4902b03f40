"""scikit-learn's own conformance suite over every estimator, and over every public class at its
defaults within 4 GiB of address space."""

import subprocess
import sys

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import rfbench

from conftest import assert_covers_the_registry, every_estimator, sklearn_named_estimators


@parametrize_with_checks(every_estimator() + sklearn_named_estimators())
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_checks_cover_every_registry_map():
    assert_covers_the_registry(every_estimator(), "every_estimator()")


# scikit-learn's whole suite on one class at its defaults, in a process whose address space is
# limited to 4 GiB (issue 68: a default a user cannot check is not a default).
_CHECK_AT_DEFAULTS = """
import resource, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
warnings.simplefilter("ignore")
import rfbench
from sklearn.utils.estimator_checks import check_estimator
check_estimator(getattr(rfbench, sys.argv[1])())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"passed, peak {peak / 2**20:.2f} GB")
"""

PUBLIC_CLASSES = [name for name in rfbench.__all__ if isinstance(getattr(rfbench, name), type)]


@pytest.mark.parametrize("name", PUBLIC_CLASSES)
def test_check_estimator_passes_at_the_defaults_within_4_gib(name):
    run = subprocess.run(
        [sys.executable, "-c", _CHECK_AT_DEFAULTS, name],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0 and "passed" in run.stdout, (
        name,
        run.returncode,
        run.stdout[-1000:],
        run.stderr[-3000:],
    )
