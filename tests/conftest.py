"""Shared fixtures: one warm grader per assignment for the whole test session."""
import pytest

from autograder import assignments
from autograder.engine import Grader, Options

NAMES = sorted(assignments.ASSIGNMENTS)


@pytest.fixture(scope="session")
def mha():
    return assignments.get("mha")


@pytest.fixture(scope="session")
def graders():
    """A warm Grader per assignment, started on first use."""
    started = {}

    def grader_for(assignment):
        if assignment.name not in started:
            # Hardened wherever this machine allows it (test_sandbox checks that it does here).
            started[assignment.name] = Grader(assignment, Options(allow_unsandboxed=True))
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
    return sorted(name for name, (score, top) in report.by_name().items() if score < top - 1e-9)
