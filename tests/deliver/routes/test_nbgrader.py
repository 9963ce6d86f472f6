"""Do nbgrader's hidden cells score as the kit grades, and refuse to score, naming the fix, where the kernel's
kit is not the one they were built with?

nbgrader autograde running them for real: tests/deliver/test_routes.py.
"""

import sys

import pytest

from autograder import KIT_ROOT, __version__, assignments
from autograder.author.notebook import hidden_test_source
from autograder.deliver.routes import nbgrader
from autograder.deliver.routes.nbgrader import InProcessStudent, NotScored, grade_in_notebook, refusal
from autograder.grade.deciding import kit_digest
from autograder.grade.reference import Reference
from autograder.results.model import CheckResult
from autograder.results.scoring import points_text
from autograder.sandbox.host.session import StudentError


@pytest.mark.parametrize(
    "points, kit, says",
    [
        (5.0, "ours", ["gives tokenize 2 points, this grade cell 5", "`python -m autograder build mha`", "--force"]),
        (2.0, "0" * 16, ["this kernel imports the kit at", "version", "source COURSE/.venv/bin/activate"]),
        (None, None, ["older build", "`python -m autograder build mha`"]),
    ],
    ids=["other points", "another kit", "an older cell"],
)
def test_hidden_cells_refuse_to_score_naming_the_fix(mha, capsys, points, kit, says):
    """Does a hidden cell whose points or kit differ from the kernel's kit raise, saying what to run, instead of scoring?"""
    namespace = Reference.of(mha).impl._namespace
    with pytest.raises(NotScored) as refused:
        grade_in_notebook("mha", "tokenize", namespace, points=points, kit=kit_digest(mha) if kit == "ours" else kit)
    message = str(refused.value)
    assert message.startswith("not scored:") and all(words in message for words in says), message
    if kit == "0" * 16:
        assert str(KIT_ROOT) in message and __version__ in message
    assert capsys.readouterr().out == ""  # no points printed


def test_hidden_cells_score_with_their_own_kit_and_say_it_can_be_forged(mha, capsys):
    """With the cell's points and kit, does the hidden cell give the points and say that autograde can be forged?"""
    assert f'points=2.0, kit="{kit_digest(mha)}")' in hidden_test_source(mha, "tokenize")
    namespace = Reference.of(mha).impl._namespace
    assert grade_in_notebook("mha", "tokenize", namespace, points=2.0, kit=kit_digest(mha)) == 2.0
    printed = capsys.readouterr().out
    assert printed.startswith("tokenize: 2 of 2 points")
    assert "a cell can forge these points or write to gradebook.db" in printed and "grade-all" in printed


def test_a_cell_of_this_kit_with_these_points_may_score():
    """Is there no refusal where the cell's points and kit are this kernel's, a float's rounding of the points aside?"""
    mha = assignments.get("mha")
    assert refusal("mha", "tokenize", 2.0, kit_digest(mha)) is None
    assert refusal("mha", "tokenize", 2.0 + 1e-12, kit_digest(mha)) is None
    assert refusal("mha", "tokenize", 2.001, kit_digest(mha)).startswith("not scored: the kit this kernel imports")


def test_a_wrong_notebook_gets_its_points_and_each_failed_check(mha, capsys):
    """Does a notebook whose tokenize keeps the punctuation get fewer points, each failed check printed, and nothing
    on stderr (which nbgrader would read as an error)?"""

    def tokenize(text):
        print("a warning of the notebook's own", file=sys.stderr)
        return text.lower().split()  # the punctuation kept

    namespace = {**Reference.of(mha).impl._namespace, "tokenize": tokenize}
    score = grade_in_notebook("mha", "tokenize", namespace, points=2.0, kit=kit_digest(mha))
    printed = capsys.readouterr()
    assert 0 <= score < 2.0
    assert printed.out.startswith(f"tokenize: {points_text(score)} of 2 points")
    assert "  [FAIL] " in printed.out and printed.err == ""


def test_a_failure_of_the_kit_raises_and_scores_nothing(mha, capsys, monkeypatch):
    """Where a check of the kit itself breaks, does the cell raise, naming it, rather than give the student a score?"""
    broken = CheckResult("tokenize", "hidden::tokenize::x", "x", "", False, "KeyError('cases')", internal_error=True)
    monkeypatch.setattr(nbgrader, "run_check", lambda check, fixtures: broken)
    namespace = Reference.of(mha).impl._namespace
    with pytest.raises(RuntimeError, match=r"the grading kit failed: KeyError\('cases'\)"):
        grade_in_notebook("mha", "tokenize", namespace, points=2.0, kit=kit_digest(mha))
    assert "of 2 points" not in capsys.readouterr().out


def test_the_notebooks_code_is_seen_as_a_check_sees_a_student(mha):
    """Does a probe run on the kernel's globals give its outputs, and raise StudentError with the evidence the
    sandboxed route records where the code raises?"""
    mha.module("probes")  # registered as a hidden cell's graders register them (not by an earlier test here)
    student = InProcessStudent({"tokenize": lambda text: text.lower().split()}, "tokenize")
    inputs = {"text": "Hello World"}
    assert [str(t) for t in student.run("mha.tokenize", inputs)["tokens"]] == ["hello", "world"]
    assert student.error_of("mha.tokenize", inputs) is None

    failing = InProcessStudent({"tokenize": lambda text: 1 / 0}, "tokenize")
    with pytest.raises(StudentError) as raised:
        failing.run("mha.tokenize", inputs)
    assert raised.value.evidence == {"probe_id": "mha.tokenize", "inputs": inputs, "error": str(raised.value)}
    assert "ZeroDivisionError" in str(raised.value)
    assert failing.error_of("mha.tokenize", inputs) == str(raised.value)
