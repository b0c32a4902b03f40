"""scikit-learn's own conformance suite over every estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from conftest import assert_covers_the_registry, every_estimator


@parametrize_with_checks(every_estimator())
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_checks_cover_every_registry_map():
    assert_covers_the_registry(every_estimator(), "every_estimator()")
