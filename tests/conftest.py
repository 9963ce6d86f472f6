"""Shared fixtures: one warm grader per assignment for the whole test session."""

import pytest

from autograder import assignment as assignments
from autograder.config import GradingConfig
from autograder.grade.engine import Grader, single_threaded

single_threaded(import_torch=True)  # before any test runs PyTorch: grade-all forks its workers from this process
NAMES = assignments.names()


@pytest.fixture(scope="session")
def mha():
    return assignments.get("mha")


@pytest.fixture(scope="session")
def graders():
    """A warm Grader per assignment, started on first use, in the strongest tier this machine allows."""
    started = {}

    def grader_for(assignment):
        if assignment.name not in started:
            started[assignment.name] = Grader(assignment, GradingConfig(allow_unsandboxed=True))
        return started[assignment.name]

    yield grader_for
    for grader in started.values():
        grader.close()


@pytest.fixture(scope="session")
def mha_grader(mha, graders):
    return graders(mha)


@pytest.fixture(params=NAMES)
def assignment(request):
    """Each assignment in turn."""
    return assignments.get(request.param)


def lost_names(report) -> list[str]:
    """The graded names that did not get full marks."""
    return sorted(name for name, (score, top) in report.by_name().items() if score < top)
