"""Does plain pytest over the graders grade as the kit does, with the plugin setting aside what would split or cut
a submission's session?"""

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from autograder import KIT_ROOT
from autograder.author.notebook import notebook_text
from autograder.author.samples import sample_notebook, sample_path
from autograder.grade import pytest_plugin
from autograder.sandbox.host.loading import SandboxFailed

NOTE = "MultiHeadAttention graded with the reference's split_heads, since yours fails its own checks"


@pytest.mark.slow
def test_plain_pytest_runs_the_graders(mha, tmp_path):
    """Can an instructor run the hidden graders with plain pytest against a submission?"""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "solutions/mha/graders", "-q", "-p", "no:cacheprovider",
         "--grade-submission", str(sample_path(mha)), "--grade-results", str(tmp_path)],
        capture_output=True, text=True, cwd=KIT_ROOT, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # the sample's PositionalEncoding fails
    assert "test_positional_encoding.py::test_table" in done.stdout and "PositionalEncoding" in done.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["extra_data"]["by_name"]["tokenize"]["score"] == 2
    assert results["score"] == pytest.approx(37.7)


@pytest.mark.slow
def test_plain_pytest_carries_errors_forward(mha, tmp_path):
    """Under plain pytest, does the layer's test fail on the student's own split_heads, while its points, graded
    with the reference's split_heads, are all there, the mistake named and nothing taken for not started, though
    every exercise keeps the stub's line under its return?"""
    submission = tmp_path / "kept.ipynb"
    submission.write_text(notebook_text(sample_notebook(mha, "split_heads_without_transpose", stub_kept=True)))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "solutions/mha/graders", "-q", "-p", "no:cacheprovider",
         "--grade-submission", str(submission), "--grade-results", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=KIT_ROOT, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
    )  # fmt: skip
    assert "FAILED solutions/mha/graders/test_multi_head_attention.py::test_self_attention" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    by_name = results["extra_data"]["by_name"]
    assert by_name["MultiHeadAttention"]["score"] == 8 and by_name["split_heads"]["score"] < 3
    assert NOTE in json.dumps(results["tests"])
    assert results["extra_data"]["mistakes"] == ["split_heads_without_transpose"]
    assert results["extra_data"]["not_started"] == []


@pytest.mark.slow
def test_plain_pytest_without_a_submission_says_what_to_pass():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "solutions/mha/graders", "-q", "-p", "no:cacheprovider"],
        capture_output=True, text=True, cwd=KIT_ROOT, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
    )  # fmt: skip
    assert done.returncode != 0 and "--grade-submission PATH" in done.stdout + done.stderr


def config(plugins=(), **options):
    """What the plugin reads of pytest's config: its plugins and options, and a stash."""
    return SimpleNamespace(
        pluginmanager=SimpleNamespace(hasplugin=lambda name: name in plugins),
        option=SimpleNamespace(**options),
        stash={},
        getoption=lambda name: options.get(name),
    )


def test_xdist_is_turned_off_and_said_so():
    """With pytest-xdist asked for (-n 2, or --dist), are the graders run in one process, the header saying why?"""
    for options in ({"numprocesses": 2, "dist": "load"}, {"numprocesses": None, "dist": "loadfile"}):
        given = config(("xdist",), **options)
        set_aside = pytest_plugin._set_aside_other_plugins(given)
        assert set_aside == ["-n (pytest-xdist): the graders share one sandboxed session, in one process"]
        assert (given.option.numprocesses, given.option.dist) == (None, "no")
    assert pytest_plugin._set_aside_other_plugins(config(("xdist",), numprocesses=None, dist="no")) == []


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")  # pytest-timeout, not here, registers it
def test_pytest_timeouts_limit_is_lifted_from_every_check():
    """With pytest-timeout installed, is it said to be set aside and every check given no limit of its (0)?"""
    given = config(("timeout",))
    assert pytest_plugin._set_aside_other_plugins(given) == [
        "pytest-timeout's limit: the sandbox bounds each exchange (--grade-timeout)"
    ]
    given.stash[pytest_plugin._SET_ASIDE] = pytest_plugin._set_aside_other_plugins(given)
    assert pytest_plugin.pytest_report_header(given) == [
        "autograder set aside pytest-timeout's limit: the sandbox bounds each exchange (--grade-timeout)"
    ]
    marked: list = []
    item = SimpleNamespace(add_marker=marked.append)
    pytest_plugin.pytest_collection_modifyitems(given, [item, item])
    assert [(mark.name, mark.args) for mark in marked] == [("timeout", (0,)), ("timeout", (0,))]
    pytest_plugin.pytest_collection_modifyitems(config(), [item])
    assert len(marked) == 2


def test_only_grader_modules_are_collected_by_the_plugin(tmp_path):
    """Is a file outside a graders folder, or not named test_*, left to pytest's own collection?"""
    assert pytest_plugin.pytest_pycollect_makemodule(tmp_path / "tests" / "test_x.py", None) is None
    assert pytest_plugin.pytest_pycollect_makemodule(tmp_path / "graders" / "helpers.py", None) is None


def test_a_grader_module_without_graded_is_a_usage_error():
    """Does a grader module that does not set GRADED stop pytest saying what to write?"""
    node = SimpleNamespace(module=SimpleNamespace(__name__="autograder.course.mha.graders.test_x"))
    with pytest.raises(pytest.UsageError, match="graders.test_x must name the graded name it checks: GRADED = '...'"):
        pytest_plugin._graded_name(node)
    node.module.GRADED = "split_heads"
    assert pytest_plugin._graded_name(node) == "split_heads"


def test_a_session_without_a_submission_says_what_to_pass():
    """Is a grading session asked of pytest without --grade-submission a usage error naming the option?"""
    with pytest.raises(pytest.UsageError, match="--grade-submission PATH"):
        pytest_plugin.Grading(config())


def test_pytests_verdict_is_replayed_as_the_kits():
    """Is a test's failure raised again for the kit's check (so that it is judged as the grade command judges it),
    and a pass left passing?"""
    failure = ValueError("from the test")
    with pytest.raises(ValueError, match="from the test"):
        pytest_plugin._reraise(SimpleNamespace(excinfo=SimpleNamespace(value=failure)))
    pytest_plugin._reraise(SimpleNamespace(excinfo=None))


def test_a_submission_that_cannot_be_graded_fails_every_check_and_ends_as_grade_does(tmp_path, monkeypatch):
    """When the submission cannot be loaded (here the sandbox cannot read it: the kit's failure), does every check
    fail with the reason, with no second grader started, results.json say 'not graded' with no score, and pytest
    end with grade's exit status, 3?"""
    started = []

    def cannot_read(assignment, config):
        started.append(assignment)
        raise SandboxFailed("the kit cannot read this submission's files")

    monkeypatch.setattr(pytest_plugin, "Grader", cannot_read)
    given = config(**{"--grade-submission": str(tmp_path / "ada.ipynb"), "--grade-results": str(tmp_path / "out")})
    grading = pytest_plugin.Grading(given)
    for _ in range(2):
        with pytest.raises(pytest.fail.Exception, match="^not graded: the kit cannot read this submission's files"):
            grading.start("mha")
    assert len(started) == 1
    given.stash[pytest_plugin._STATE] = grading
    said: list = []
    reporter = SimpleNamespace(write_sep=lambda *words: said.append(words), write_line=said.append)
    pytest_plugin.pytest_terminal_summary(reporter, given)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["extra_data"]["status"] == "not graded" and "score" not in results
    assert "the kit cannot read this submission's files" in said
    session = SimpleNamespace(config=given, exitstatus=1)
    pytest_plugin.pytest_sessionfinish(session, 1)
    assert session.exitstatus == 3
