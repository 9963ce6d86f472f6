"""The pytest plugin that turns the hidden graders into a grade.

Each grader module names the graded name it checks (``GRADED = "split_heads"``) and
reaches the student's code only through the ``student`` fixture, whose one method
``run(probe_id, inputs)`` returns plain arrays: the student's side may live in this
process or in a sandboxed one, and no grader can tell which.

Every test item becomes a ``CheckResult``; results.py turns them into points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from . import mutants
from .assignments import Assignment
from .judge import Mismatch
from .sandbox.session import StudentError


@dataclass
class CheckResult:
    name: str  # the graded name
    check: str  # the test function: one check, possibly over several cases
    title: str  # what the check verifies, from the test's docstring
    case: str  # the parametrized case, "" when there is one
    passed: bool
    message: str = ""  # feedback, when it failed
    mistakes: list[str] = field(default_factory=list)  # ids of the known mistakes it matched
    weight: float = 1.0
    gate: bool = False  # failing it costs the name all its points
    internal_error: bool = False  # the grader itself broke: a bug in the kit


class StudentView:
    """The narrow interface graders use: run a probe on the student's code for one graded name."""

    def __init__(self, session, name: str, device: str):
        self._session = session
        self.name = name
        self.device = device

    def run(self, probe_id: str, inputs: dict) -> dict:
        return self._session.run(self.name, probe_id, inputs)


def graded_name(item) -> str:
    name = getattr(item.module, "GRADED", None)
    if name is None:
        raise RuntimeError(f"{item.module.__name__} must name the graded name it checks: GRADED = '...'")
    return name


def check_title(item) -> str:
    doc = (item.function.__doc__ or "").strip()
    return doc.splitlines()[0].rstrip(".") if doc else item.originalname.removeprefix("test_").replace("_", " ")


class Grading:
    """A pytest plugin: fixtures for one submission, and the collection of its results."""

    def __init__(self, assignment: Assignment, session, reference, device: str = "cpu", entry=None, only=None):
        self.assignment = assignment
        self.only = set(only) if only else None  # run the checks of these graded names only
        self.session = session
        self._reference = reference
        self.device = device
        self.entry = entry
        self.results: list[CheckResult] = []
        self._diagnosed: set[str] = set()  # checks whose first failure has been matched against the catalogue

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "weight(w): this check's share of its graded name's points (default 1)")
        config.addinivalue_line("markers", "gate: failing this check costs its graded name all its points")

    @pytest.fixture
    def student(self, request) -> StudentView:
        return StudentView(self.session, graded_name(request.node), self.device)

    @pytest.fixture
    def reference(self):
        return self._reference

    @pytest.fixture
    def submission(self):
        """The submission's entry (kind and path), for checks that read its source."""
        return self.entry

    def pytest_collection_modifyitems(self, session, config, items):
        mine = str(self.assignment.graders_dir)
        kept = [
            item
            for item in items
            if str(item.path).startswith(mine) and (self.only is None or graded_name(item) in self.only)
        ]
        deselected = [item for item in items if item not in kept]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        items[:] = kept

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.skipped or not (report.when == "call" or report.failed):
            return
        self.results.append(self._result(item, call, report.passed))

    def _result(self, item, call, passed: bool) -> CheckResult:
        name = graded_name(item)
        marker = item.get_closest_marker("weight")
        result = CheckResult(
            name=name,
            check=f"{item.module.__name__.rsplit('.', 1)[-1]}::{item.originalname}",
            title=check_title(item),
            case=item.callspec.id if hasattr(item, "callspec") else "",
            passed=passed,
            weight=float(marker.args[0]) if marker else 1.0,
            gate=item.get_closest_marker("gate") is not None,
        )
        if passed:
            return result
        error = call.excinfo.value if call.excinfo else None
        if isinstance(error, Mismatch):
            result.message = error.message
            evidence = error.evidence
            if evidence and result.check not in self._diagnosed:
                # Only the first failing case of a check is shown: match that one only.
                self._diagnosed.add(result.check)
                found = mutants.diagnose(
                    self.assignment, name, evidence["probe_id"], evidence["inputs"], evidence["got"]
                )
                result.mistakes = [mistake.id for mistake in found]
                for mistake in found:
                    where = "" if mistake.target == name else f" (in {mistake.target}, which {name} calls)"
                    result.message += f"\nThis looks like a known mistake{where}: {mistake.message}"
        elif isinstance(error, StudentError):
            result.message = str(error)
        else:
            result.internal_error = True
            result.message = (
                f"the grader itself failed ({type(error).__name__}: {error}); this is an error in the "
                f"grading kit, not in your code: tell your instructor"
            )
        return result
