"""Shared fixtures: one warm grader per assignment for the whole test session, and after every test
a check of the results.json files it left against Gradescope's format (tests/results/gradescope_format.py)."""

import os
import shutil
import sys

import pytest

from autograder import assignments
from autograder.config import GradingConfig
from autograder.grade.engine import Grader
from autograder.grade.threads import single_threaded

# The Jupyter kernels the tests start (nbclient, nbgrader autograde) and every process they run draw their
# figures to Agg and render none: what those tests prove is checks, points and pages, and an inline backend's
# PNGs were 7 of the 18.5 s a run of mha's lesson takes. One test draws them as a student's Jupyter does
# (tests/author/test_notebooks.py::test_solved_release_passes_its_checks_and_shows_its_figures).
os.environ.setdefault("MPLBACKEND", "Agg")
single_threaded(import_torch=True)  # before any test runs PyTorch: grade-all forks its workers from this process
NAMES = assignments.names()


def pytest_collection_modifyitems(items):
    """The slow tests first, in their order: pytest-xdist hands the first quarter of the tests round the workers,
    and the rest as each frees up, so the longest ones (the simulated hosts' hostile sets, bench, the nbgrader
    loops, collected last or late) no longer keep one worker busy while the other has nothing left to run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def results_follow_gradescopes_format(request):
    """After each test that used tmp_path: does every results.json the kit left there follow Gradescope's format?"""
    # asked for first, so that it is torn down after this check
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None:
        from .results.gradescope_format import tree_problems

        found = tree_problems(folder)
        assert not found, "results.json against Gradescope's format:\n" + "\n".join(found[:20])


def forget_what_the_kit_cached() -> None:
    """Empty every functools cache of the kit's modules (mistakes, plans, references, stores, visible data)."""
    for module in list(sys.modules.values()):
        if (getattr(module, "__name__", None) or "").split(".")[0] == "autograder":
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@pytest.fixture
def forgets_the_edit():
    """For a test that points an assignment at edited files (a copy of its folder, a changed reference or points):
    the kit's caches are keyed by the assignment's name, so after the test they are emptied, and no later test in
    this process (the suite's order differs under pytest-xdist) is graded against the edited copy."""
    yield
    forget_what_the_kit_cached()


@pytest.fixture
def copy_of_mha(monkeypatch, tmp_path, forgets_the_edit):
    """mha's folder copied where the test may change it, discovered as the assignment 'mha': the kit's own files
    stay as they are for the tests that run beside it (a hostile run checks that none of them changes)."""
    shutil.copytree(assignments.get("mha").folder, tmp_path / "mha", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(assignments, "SOLUTIONS", tmp_path)
    return assignments.Assignment("mha")


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
