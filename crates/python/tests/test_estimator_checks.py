"""scikit-learn's own conformance suite over every estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from conftest import every_estimator


@parametrize_with_checks(every_estimator())
def test_sklearn_compatible(estimator, check):
    check(estimator)
