"""Run the hidden graders with plain pytest: ``pytest autograder --submission PATH``.

The grade command runs the same graders through the same plugin (autograder/plugin.py);
this file only builds that plugin from command-line options when pytest is run by hand.
"""
from pathlib import Path

import pytest

PLUGIN_NAME = "attention-kit-grading"


def pytest_addoption(parser):
    group = parser.getgroup("attention-kit", "grading a submission with the hidden graders")
    group.addoption("--submission", help="the notebook, .py file, package or repository folder to grade")
    group.addoption("--assignment", help="which assignment (inferred from the submission when left out)")
    group.addoption("--device", default="cpu", choices=["cpu", "cuda", "auto"], help="where the student's code runs")
    group.addoption("--timeout", type=float, default=10.0, help="seconds per graded name")
    group.addoption("--results", help="a folder to write results.json into")
    group.addoption("--allow-unsandboxed", action="store_true", help="grade in a plain process where the hardened sandbox cannot run")


def pytest_configure(config):
    from autograder.plugin import Grading

    if any(isinstance(plugin, Grading) for plugin in config.pluginmanager.get_plugins()):
        return  # the grade command registered its own
    submission = config.getoption("--submission")
    if not submission:
        raise pytest.UsageError("the graders need a submission: pytest autograder --submission PATH")
    from autograder import assignments
    from autograder.engine import Grader, Options, infer_assignment
    from autograder.sandbox.session import Limits

    name = config.getoption("--assignment")
    assignment = assignments.get(name) if name else infer_assignment(Path(submission))
    options = Options(
        device=config.getoption("--device"),
        limits=Limits(timeout=config.getoption("--timeout")),
        allow_unsandboxed=config.getoption("--allow-unsandboxed"),
    )
    grader = Grader(assignment, options)
    session, grading = grader.open(Path(submission))
    grading.standalone = (grader, session, submission)
    config.pluginmanager.register(grading, PLUGIN_NAME)


def pytest_terminal_summary(terminalreporter, config):
    grading = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if grading is None or not hasattr(grading, "standalone"):
        return
    from autograder.results import summarize, summary_text, write_results

    grader, session, submission = grading.standalone
    report = summarize(grading.assignment, grading.results, submission=str(submission), notes=session.notes, device=grader.device)
    terminalreporter.write_sep("=", "points")
    terminalreporter.write_line(summary_text(report))
    results = config.getoption("--results")
    if results:
        terminalreporter.write_line(f"wrote {write_results(report, Path(results))}")


def pytest_unconfigure(config):
    grading = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if grading is not None and hasattr(grading, "standalone"):
        grader, session, _ = grading.standalone
        session.close()
        grader.close()
