"""Does grade-all's record reach gradebook.db as the record, and does the notebook placed for nbgrader's feedback
render nothing of the student's?

nbgrader's own commands on a real course (autograde, export, generate_feedback,
formgrader): tests/deliver/test_routes.py.
"""

import json
import re
import warnings

import nbformat
import pytest

from autograder.author.samples import sample_path
from autograder.deliver.gradebook import _store_record, feedback_notebook
from autograder.results.read import read_results

# ------------------------------------------------------------------ what nbgrader's feedback renders


def hostile_notebook(mha):
    """A finished notebook whose Markdown, outputs, raw cells and metadata carry scripts, and whose grade cell lies."""
    notebook = nbformat.read(sample_path(mha), as_version=4)
    notebook.cells.insert(
        1,
        nbformat.v4.new_markdown_cell(
            'Hi <script>window.fromMarkdown=1</script><img src=x onerror="window.fromImage=1"> '
            "[x](javascript:window.fromLink=1) ```` <b>bold</b>"
        ),
    )
    code = nbformat.v4.new_code_cell("print(1)")
    code.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<script>window.fromOutput=1</script>"})]
    notebook.cells.insert(2, code)
    notebook.cells.insert(
        3, nbformat.v4.new_raw_cell("<script>window.fromRaw=1</script>", metadata={"format": "text/html"})
    )
    tests = next(c for c in notebook.cells if c.get("id") == "tokenize-tests")
    tests.metadata.nbgrader["grade_id"] = '"><script>window.fromGradeId=1</script>'
    tests.outputs = [
        nbformat.v4.new_output("execute_result", data={"text/html": "<script>window.fromGrade=1</script>"})
    ]
    notebook.cells.append(nbformat.from_dict(json.loads(json.dumps(tests))))  # the grade cell again, its id too
    state = {"model": {"state": {"value": "</script><script>window.fromWidgets=1</script>"}}}
    notebook.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {"state": state, "version_major": 2, "version_minor": 0}
    }
    return notebook


def rendered_scripts(html: str) -> list[str]:
    """The student's scripts that reach a page as markup: `window.from...` inside a tag, not escaped as text."""
    return re.findall(r"<[^<>]*window\.from\w+|<script>[^<]*window\.from\w+", html)


def test_the_feedback_notebook_renders_nothing_of_the_students(mha, tmp_path):
    """Does the notebook placed for nbgrader's feedback show the student's Markdown as text and keep no output or metadata of theirs?"""
    from nbconvert import HTMLExporter

    student = hostile_notebook(mha)
    release = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    results = {
        "tests": [{"name": "tokenize: splits", "tags": ["tokenize"], "status": "passed", "output": "<b>ok</b>"}],
        "extra_data": {"by_name": {"tokenize": {"score": 2.0, "max_score": 2.0}}},
    }
    placed = feedback_notebook(student, release, read_results(results))
    assert placed.metadata == release.metadata
    assert all(not cell.get("outputs") for cell in placed.cells if cell.get("id") != "tokenize-tests")
    tests = next(c for c in placed.cells if c.get("id") == "tokenize-tests")
    assert tests.metadata == next(c for c in release.cells if c.get("id") == "tokenize-tests").metadata
    assert tests.outputs[0]["text"].startswith("tokenize: 2 of 2 points\n[pass] tokenize: splits: <b>ok</b>")
    markdown = placed.cells[1]
    assert markdown.cell_type == "markdown" and markdown.source.startswith("`````text\nHi <script>")
    assert placed.cells[3].cell_type == "markdown" and "window.fromRaw" in placed.cells[3].source
    course_prose = [c for c in placed.cells if c.cell_type == "markdown" and c.get("id", "").startswith("md-")]
    assert course_prose and not any(c.source.startswith("```") for c in course_prose)  # the course's own, rendered
    assert placed.cells[-1].id == f"student-{len(student.cells) - 1}" and placed.cells[-1].metadata == {}
    html, _ = HTMLExporter().from_notebook_node(placed)
    assert "window.fromMarkdown" in html and rendered_scripts(html) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbformat renames the copied cell id, and says so
        html, _ = HTMLExporter().from_notebook_node(student)
    assert rendered_scripts(html)  # the same check sees them in the notebook as handed in


# ------------------------------------------------------------------ grade-all's record in gradebook.db


class Grade:
    """The fields of nbgrader's Grade that the import reads and writes."""

    def __init__(self, auto_score=None, manual_score=None, extra_credit=None):
        self.name = "tokenize-tests"
        self.auto_score, self.manual_score, self.extra_credit = auto_score, manual_score, extra_credit
        self.needs_manual_grade = True


@pytest.mark.parametrize(
    "stored, keep_manual, named, after",
    [
        ({}, False, [], (2.0, None, None)),
        ({"auto_score": 2.0}, False, [], (2.0, None, None)),
        ({"auto_score": 0.0}, False, ["tokenize automatic 0 (grade-all 2)"], (2.0, None, None)),
        ({"auto_score": 2.0, "manual_score": 0.0}, False, ["tokenize manual 0 (grade-all 2)"], (2.0, None, None)),
        (
            {"manual_score": 1.0, "extra_credit": -1.0},
            True,
            ["tokenize manual 1 (grade-all 2), kept", "tokenize extra credit -1, kept"],
            (2.0, 1.0, -1.0),
        ),
    ],
    ids=["new", "the same", "autograde's other score", "a manual score", "kept by --keep-manual"],
)
def test_the_import_stores_the_record_and_names_each_other_score(stored, keep_manual, named, after):
    """Does each grade cell end with grade-all's points, every other stored score named (and kept only when asked)?"""
    grade = Grade(**stored)
    assert _store_record(grade, 2.0, keep_manual) == named
    assert (grade.auto_score, grade.manual_score, grade.extra_credit) == after and grade.needs_manual_grade is False
