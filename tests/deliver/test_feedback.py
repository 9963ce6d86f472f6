"""Does a student's feedback come whole from the kit's own results, as the other steps write and read them?

What the feedback says, and each of its two renderings, is tested in tests/deliver/feedback/
(test_model.py, test_markdown.py, test_page.py, with the browser test). Here: both files
written together, results.json of an earlier layout, and a notebook graded for real.
"""

import pytest

from autograder.deliver.feedback import write_feedback
from autograder.results.read import read_results
from autograder.results.write import gradescope_json

from .feedback.test_markdown import markdown, sections
from .feedback.test_page import html, points_table
from .students import brief_student, student_results


def test_results_of_the_earlier_layout_still_read():
    """A results.json written before visible_checks (visible checks as 0-point tests) still gives its feedback."""
    results = student_results()
    extra = results["extra_data"]
    for check in extra.pop("visible_checks"):
        results["tests"].append(
            {
                "name": f"{check['name']}: {check['title']}",
                "score": 0.0,
                "max_score": 0.0,
                "status": check["status"],
                "output": check["output"],
                "visibility": "visible",
                "tags": [check["name"]],
                "extra_data": {"kind": "visible", "cases": check["cases"], "mistakes": []},
            }
        )
    assert markdown(results) == markdown(student_results())


def test_write_feedback_writes_both_files_whole(tmp_path):
    folder = tmp_path / "out" / "ada"
    page, text = write_feedback(read_results(student_results()), folder, student="Ada")
    assert (page.name, text.name) == ("feedback.html", "feedback.md")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert text.read_text(encoding="utf-8").startswith("# mha feedback for Ada")
    write_feedback(read_results({"extra_data": {"status": "not graded", "error": "late"}}), folder)
    assert "late" in page.read_text(encoding="utf-8")
    assert sorted(p.name for p in folder.iterdir()) == ["feedback.html", "feedback.md"]  # no temporary file left
    assert page.stat().st_mode & 0o777 == 0o644


# ------------------------------------------------------------------ a real grading


@pytest.mark.slow
def test_a_graded_notebook_gives_that_feedback(mha, mha_grader, tmp_path):
    """Graded for real, does the notebook above give each thing to do: the cell of split_heads that did not run,
    encode not started, the known mistake of PositionalEncoding, and full marks on the others?"""
    report = mha_grader.grade(brief_student(mha, tmp_path / "ada.ipynb"))
    results = gradescope_json(report)
    assert results["extra_data"]["not_started"] == ["encode"]
    assert report.notes[0].startswith("the cell that defines split_heads (") and "SyntaxError" in report.notes[0]
    text = markdown(results)
    found = sections(text)
    assert found["Code that did not run"][1].startswith("- the cell that defines split\\_heads")
    assert found["Known mistakes in your code"][0].startswith(
        "- `positional_cosine_exponent_off_by_one` (in `PositionalEncoding`)"
    )
    assert (
        "- `encode`: not started: its cell still raises NotImplementedError (0 of 3 points)."
        in found["Checks that failed"]
    )
    assert "Its cell did not run" in text
    table = points_table(html(results))
    full = [name for name, _, result in table if result == "✓ full marks"]
    # MultiHeadAttention calls the split_heads that did not load: graded with the reference's, it keeps its points
    assert full == [n for n in mha.graded if n not in ("encode", "PositionalEncoding", "split_heads")]
    assert "MultiHeadAttention graded with the reference's split_heads" in text.replace("\\_", "_")
