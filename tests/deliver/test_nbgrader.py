"""Do nbgrader's hidden cells score as the kit grades, and refuse to score, naming the fix, where the kernel's
kit is not the one they were built with?

nbgrader autograde running them for real: tests/deliver/test_routes.py.
"""

import pytest

from autograder import KIT_ROOT, __version__
from autograder.author.notebook import hidden_test_source
from autograder.deliver.nbgrader import NotScored, grade_in_notebook
from autograder.grade.deciding import kit_digest
from autograder.grade.reference import Reference


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
