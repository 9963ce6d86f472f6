"""Shared fixtures: one warm grader per assignment for the whole test session."""
import pytest

from autograder import assignments
from autograder.engine import Grader


@pytest.fixture(scope="session")
def mha():
    return assignments.get("mha")


@pytest.fixture(scope="session")
def mha_grader(mha):
    with Grader(mha) as grader:
        yield grader


def lost_names(report) -> list[str]:
    """The graded names that did not get full marks."""
    return sorted(name for name, (score, top) in report.by_name().items() if score < top - 1e-9)
