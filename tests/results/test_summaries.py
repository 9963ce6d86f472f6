"""Do the short summaries of a grading (terminal, results.json's output, a CI job's Markdown) say the points,
what the score leaves out, and whether the kit failed?"""

from fractions import Fraction

from autograder.results.model import CheckSummary, Report
from autograder.results.summaries import graded_text, hand_graded, markdown_not_graded, markdown_summary, summary_text

from ..deliver.students import student_report


def test_the_terminal_summary_gives_the_points_and_the_written_answers():
    """Are the total and each exercise's points there, and the written answers' points said to be apart?"""
    text = summary_text(student_report())
    assert text.splitlines()[0] == "mha: 31.2 of 40 points"
    assert "  PositionalEncoding               1.2 / 4" in text
    written = hand_graded("mha")  # points.toml's [written]: the lessons may ask more or fewer
    assert text.endswith(
        f"{sum(written.values()):g} more points, for {len(written)} written answers, are graded by hand and not included here."
    )
    assert "While loading your code:\n  - the cell that defines split_heads" in text
    assert "31.2" not in graded_text(student_report())  # before the due date: graded, no points


def test_a_failure_of_the_kit_is_said():
    """When a check broke inside the kit, does the summary say it is the kit's, not the student's?"""
    broken = CheckSummary(
        "tokenize", "t::t", "splits", "hidden", 0, 1, Fraction(0), Fraction(2), "KeyError", internal_error=True
    )
    report = Report(assignment="mha", submission="x", checks=[broken], order=("tokenize",))
    assert "The grading kit itself failed on some checks (not your code): tell your instructor." in summary_text(report)


def test_the_ci_summary_lists_the_checks_that_lost_points_without_their_details():
    """Does the Markdown table give the points, the checks that lost points by title, and no hidden message?"""
    text = markdown_summary(student_report())
    assert text.startswith("### mha: 31.2 of 40 points\n\n| exercise | points |\n|---|---|\n| `tokenize` | 2 / 2 |")
    assert "- `PositionalEncoding`: stores pe\\[0, pos, 2i\\] = sin(...)" in text and "got 0.950415" not in text
    assert markdown_not_graded("x.pdf is not a notebook", "mha") == (
        "### mha: not graded\n\nWhy:\n\n```text\nx.pdf is not a notebook\n```\n"
    )
