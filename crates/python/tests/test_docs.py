"""Every class's docstring has numpydoc's See Also, References and Examples sections, and its
Examples run (doctest) and print what they show."""

import doctest

import pytest

import rfbench
from conftest import REGISTRY_CLASSES

CLASSES = sorted(
    {cls for cls, _ in REGISTRY_CLASSES.values()} | set(rfbench._SKLEARN_CLASSES),
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_docstring_has_see_also_references_and_examples(cls):
    doc = cls.__doc__
    for section in ("Parameters", "Attributes", "See Also", "References", "Examples"):
        assert f"\n    {section}\n    {'-' * len(section)}\n" in doc, (cls.__name__, section)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_examples_run(cls):
    tests = doctest.DocTestFinder(recurse=False).find(cls, cls.__name__, globs={})
    assert tests and tests[0].examples, cls.__name__
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, cls.__name__
