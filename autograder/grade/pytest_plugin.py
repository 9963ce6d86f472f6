"""Run the hidden graders with plain pytest: ``pytest solutions/mha/graders --grade-submission PATH``.

The grade commands replay the same graders without a pytest session (grade/plan.py);
this plugin gives pytest what they need: the grader modules imported under the kit's
names (autograder.course.<name>.graders.<module>), the fixtures ``student``,
``reference`` and ``submission`` backed by a sandboxed session, and results.json at
the end. pytest's own verdicts are those of the student's code as it is; the points
(the summary, results.json) carry errors forward as the grade command does. A
submission that cannot be graded (nothing gradable, or the kit failed) fails every
check with the reason, and results.json and the exit status say so as ``grade``'s do
(results/outcome.py). Its options all start with ``--grade-`` so that none can collide with
another plugin's (pytest-timeout's --timeout, say). solutions/conftest.py loads it.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from autograder import assignments
from autograder.config import GradingConfig
from autograder.grade.engine import Grader, StudentView, run_check
from autograder.grade.plan import Check
from autograder.results.outcome import Outcome, outcome_of_error
from autograder.results.scoring import summarize
from autograder.results.summaries import summary_text
from autograder.results.write import write_outcome, write_results

OPTIONS = "grade-"
_STATE: pytest.StashKey[Grading] = pytest.StashKey()
_SET_ASIDE: pytest.StashKey[list[str]] = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("autograder", "grading a submission with the hidden graders")
    group.addoption("--grade-submission", help="the notebook, .py file, package or repository folder to grade")
    group.addoption("--grade-results", help="a folder to write results.json and junit.xml into")
    GradingConfig.add_arguments(group, prefix=OPTIONS)


def pytest_configure(config):
    config.addinivalue_line("markers", "weight(w): this check's share of its graded name's points (default 1)")
    config.addinivalue_line("markers", "gate: failing this check costs its graded name all its points")
    config.stash[_SET_ASIDE] = _set_aside_other_plugins(config)


def _set_aside_other_plugins(config) -> list[str]:
    """Plugins a CI image may bring that would split or cut one submission's session; what was set aside.

    pytest-xdist (-n) would run the checks in several processes, each with a sandbox of
    its own and a part of the results: the graders run in one process. pytest-timeout
    would stop a check in the middle of an exchange with the student's process and
    count the kit's stop as the student's failure: the sandbox's own limits
    (--grade-timeout, --grade-cpu-seconds) bound each exchange instead. xdist's own
    pytest_configure runs last, so turning it off here is in time.
    """
    set_aside = []
    if config.pluginmanager.hasplugin("xdist") and (
        getattr(config.option, "numprocesses", None) or getattr(config.option, "dist", "no") != "no"
    ):
        config.option.numprocesses, config.option.dist = None, "no"
        set_aside.append("-n (pytest-xdist): the graders share one sandboxed session, in one process")
    if config.pluginmanager.hasplugin("timeout"):
        set_aside.append("pytest-timeout's limit: the sandbox bounds each exchange (--grade-timeout)")
    return set_aside


def pytest_report_header(config):
    return [f"autograder set aside {what}" for what in config.stash.get(_SET_ASIDE, [])]


def pytest_collection_modifyitems(config, items):
    if config.pluginmanager.hasplugin("timeout"):
        for item in items:
            item.add_marker(pytest.mark.timeout(0))  # 0: no limit from pytest-timeout


class GraderModule(pytest.Module):
    """A grader file, imported as autograder.course.<assignment>.graders.<module>, as the kit imports it."""

    def _getobj(self):
        assignment = self.path.parent.parent.name
        return importlib.import_module(f"autograder.course.{assignment}.graders.{self.path.stem}")


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.parent.name == "graders" and module_path.name.startswith("test_"):
        return GraderModule.from_parent(parent, path=module_path)
    return None


class Grading:
    """One submission's session, built on first use, and the results of every check run."""

    def __init__(self, config):
        submission = config.getoption("--grade-submission")
        if not submission:
            raise pytest.UsageError(
                "the graders need a submission: pytest solutions/<assignment>/graders --grade-submission PATH"
            )
        self.submission = Path(submission)
        self.config = GradingConfig.from_arguments(config.getoption, prefix=OPTIONS)
        self.results = []
        self.started = None
        self.refused: Outcome | None = None  # why the submission could not be graded
        self.assignment: str | None = None

    def start(self, assignment_name: str):
        if self.refused is not None:
            pytest.fail(f"not graded: {self.refused.message}", pytrace=False)
        if self.started is not None:
            return self.started
        self.assignment = assignment_name
        grader = session = None
        try:
            grader = Grader(assignments.get(assignment_name), self.config)
            session, entry, notes = grader.open_session(self.submission, grader.runtime.submission_folder())
            for name, calls in grader.rehearsal.calls.items():
                session.prefetch(name, calls)
        except Exception as error:  # nothing gradable, or the kit failed: results/outcome.py says which
            if session is not None:
                session.close()
            if grader is not None:
                grader.close()
            self.refused = outcome_of_error(error)
            pytest.fail(f"not graded: {self.refused.message}", pytrace=False)
        self.started = (grader, session, entry, notes)
        return self.started

    def close(self):
        if self.started is not None:
            grader, session, _, _ = self.started
            session.close()
            grader.close()


def _grading(request) -> Grading:
    config = request.config
    if _STATE not in config.stash:
        config.stash[_STATE] = Grading(config)
    return config.stash[_STATE]


def _graded_name(node) -> str:
    name = getattr(node.module, "GRADED", None)
    if name is None:
        raise pytest.UsageError(f"{node.module.__name__} must name the graded name it checks: GRADED = '...'")
    return name


@pytest.fixture
def student(request):
    grader, session, _, _ = _grading(request).start(Path(request.node.path).parent.parent.name)
    return StudentView(session, _graded_name(request.node), grader.device, grader.rehearsal.sizes)


@pytest.fixture
def reference(request):
    return _grading(request).start(Path(request.node.path).parent.parent.name)[0].reference


@pytest.fixture
def submission(request):
    return _grading(request).start(Path(request.node.path).parent.parent.name)[2]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or _STATE not in item.config.stash:
        return
    marker = item.get_closest_marker("weight")
    check = Check(
        _graded_name(item), Path(item.path).stem, item.originalname, (item.function.__doc__ or "").strip().splitlines()[0].rstrip(".") if item.function.__doc__ else item.originalname,
        item.callspec.id if hasattr(item, "callspec") else "", float(marker.args[0]) if marker else 1.0,
        item.get_closest_marker("gate") is not None, lambda: _reraise(call), {}, (),
    )  # fmt: skip
    item.config.stash[_STATE].results.append(run_check(check, {}))


def _reraise(call):
    if call.excinfo is not None:
        raise call.excinfo.value


def pytest_terminal_summary(terminalreporter, config):
    if _STATE not in config.stash:
        return
    grading = config.stash[_STATE]
    if grading.refused is not None:
        terminalreporter.write_sep("=", "not graded")
        terminalreporter.write_line(grading.refused.reason)
        results = config.getoption("--grade-results")
        if results:
            write_outcome(grading.refused, Path(results), grading.assignment)
            terminalreporter.write_line(f"wrote {Path(results) / 'results.json'}")
        return
    if grading.started is None:
        return
    grader, session, entry, notes = grading.started
    not_started = grader.not_started(grading.results, session)
    carried = grader.carry_forward(grading.results, entry, grading.submission, not_started, visible=False)
    grader._diagnose_all(grading.results, entry, not_started, carried)
    report = summarize(
        grader.assignment.points, grading.results, assignment=grader.assignment.name, submission=str(grading.submission),
        entry=entry.path.name, notes=notes + session.notes, isolation=grader.isolation.as_dict(), device=grader.device, device_why=grader.device_why,
        mistake_messages=grader.mistake_messages, hidden_summary=grader.hidden_summary, not_started=not_started,
    )  # fmt: skip
    terminalreporter.write_sep("=", "points")
    for what in config.stash.get(_SET_ASIDE, []):
        terminalreporter.write_line(f"autograder set aside {what}")
    terminalreporter.write_line(summary_text(report))
    results = config.getoption("--grade-results")
    if results:
        terminalreporter.write_line(f"wrote {write_results(report, Path(results))}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """A submission that could not be graded ends with grade's exit status: 2 the student's, 3 the kit's."""
    grading = session.config.stash.get(_STATE, None)
    if grading is not None and grading.refused is not None:
        session.exitstatus = grading.refused.exit_code


def pytest_unconfigure(config):
    if _STATE in config.stash:
        config.stash[_STATE].close()
