"""Does grade-all's record reach gradebook.db as the record, and does the notebook placed for nbgrader's feedback
render nothing of the student's?

nbgrader's own commands on a real course (autograde, export, generate_feedback,
formgrader): tests/deliver/test_routes.py.
"""

import json
import re
import shutil
import warnings
from datetime import datetime, timedelta
from types import SimpleNamespace

import nbformat
import pytest

from autograder.author.samples import sample_path
from autograder.deliver.intake import Submission
from autograder.deliver.routes.gradebook import (
    _grade_cell_text,
    _graded,
    _late_penalty,
    _place,
    _say_differences,
    _store_record,
    _store_written,
    as_text,
    feedback_notebook,
)
from autograder.errors import KitError
from autograder.results.read import LatePenalty, read_results
from autograder.results.write import not_graded_json

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


@pytest.mark.slow
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


@pytest.mark.parametrize(
    "stored, keep_manual, named, after",
    [
        ({}, False, [], (None, 1.5, None)),
        ({"auto_score": 0.0}, False, [], (0.0, 1.5, None)),
        ({"manual_score": 1.5}, False, [], (None, 1.5, None)),
        ({"manual_score": 2.0}, False, ["why_scale manual 2 (grade-all 1.5)"], (None, 1.5, None)),
        ({"manual_score": 2.0}, True, ["why_scale manual 2 (grade-all 1.5), kept"], (None, 2.0, None)),
        ({"extra_credit": 0.5}, False, ["why_scale extra credit 0.5"], (None, 1.5, None)),
        ({"extra_credit": 0.5}, True, ["why_scale extra credit 0.5, kept"], (None, 1.5, 0.5)),
    ],
    ids=["new", "autograde's 0", "the same", "another manual grade", "kept by --keep-manual", "extra credit", "kept"],
)
def test_a_written_answers_points_become_its_manual_grade(stored, keep_manual, named, after):
    """Does a written answer's cell get a person's points as its manual grade, every other stored one named?"""
    grade = Grade(**stored)
    grade.name = "why_scale"
    assert _store_written(grade, 1.5, keep_manual) == named
    assert (grade.auto_score, grade.manual_score, grade.extra_credit) == after and grade.needs_manual_grade is False


class Submitted:
    """The field of nbgrader's SubmittedNotebook that the import reads and writes."""

    def __init__(self, penalty):
        self.late_submission_penalty = penalty


@pytest.mark.parametrize(
    "penalty, keep_manual, named, after",
    [
        (None, False, [], None),
        (0.0, False, [], 0.0),
        (1.5, False, ["late penalty 1.5"], 0.0),
        (1.5, True, ["late penalty 1.5, kept"], 1.5),
    ],
    ids=["none", "zero", "autograde's penalty", "kept by --keep-manual"],
)
def test_nbgraders_late_penalty_is_named_and_dropped_unless_kept(penalty, keep_manual, named, after):
    """Where grade-all applied no late policy: is a late penalty autograde computed named, and set to 0 (the record
    has none) unless --keep-manual?"""
    submitted = Submitted(penalty)
    assert _late_penalty(submitted, None, keep_manual) == named
    assert submitted.late_submission_penalty == after


class Notebook:
    """The fields of nbgrader's SubmittedNotebook (and its submission and assignment) the late penalty touches."""

    def __init__(self, penalty, score=31.2, max_score=47.0):
        self.late_submission_penalty, self.score, self.max_score = penalty, score, max_score
        self.assignment = SimpleNamespace(timestamp=None, extension=None, assignment=SimpleNamespace(duedate=None))


@pytest.mark.parametrize(
    "stored, percent, of, score, named, after",
    [
        (None, 10.0, "possible", 31.2, [], 4.7),  # 10% of the 47 points possible
        (4.7, 10.0, "possible", 31.2, [], 4.7),  # the same: nothing to name
        (9.4, 10.0, "possible", 31.2, ["late penalty 9.4 (grade-all 4.7)"], 4.7),
        (None, 10.0, "score", 31.2, [], 3.12),  # of the student's own points
        (None, 100.0, "possible", 31.2, [], 31.2),  # within the score, as nbgrader keeps it
        (2.0, 0.0, "possible", 31.2, ["late penalty 2 (grade-all 0)"], 0.0),  # on time by the record
    ],
    ids=["stored", "the same", "another", "of the score", "within the score", "on time"],
)
def test_the_records_late_penalty_is_stored_as_nbgrader_computes_it(stored, percent, of, score, named, after):
    """Where grade-all applied a late policy: is its penalty stored as nbgrader's AssignLatePenalties would (of the
    notebook's points possible or score, within the score), another one named, and the due date, the time and the
    extension stored as nbgrader keeps them (UTC without a zone) even with --keep-manual?"""
    notebook = Notebook(stored, score)
    late = LatePenalty(
        "late", percent, of, submitted_at="2025-02-16T09:59:00-05:00", due="2025-02-14T23:59:00-05:00",
        student_due="2025-02-15T23:59:00-05:00",
    )  # fmt: skip
    assert _late_penalty(notebook, late, keep_manual=True) == named
    assert notebook.late_submission_penalty == pytest.approx(after)
    submission = notebook.assignment
    assert submission.assignment.duedate == datetime(2025, 2, 15, 4, 59)
    assert (submission.timestamp, submission.extension) == (datetime(2025, 2, 16, 14, 59), timedelta(days=1))


def test_the_differences_are_said_with_the_students_not_graded(capsys):
    """Does the import say how many students held other scores, each one's, and who is in gradebook.db ungraded?"""
    _say_differences(["cy: tokenize automatic 0 (grade-all 2)"], ["dee", "eve"], keep_manual=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (
        "gradebook.db held other scores than grade-all's for 1 students; grade-all's are stored now "
        "(--keep-manual keeps manual scores and extra credit):"
    )
    assert printed[1] == "  cy: tokenize automatic 0 (grade-all 2)"
    assert "can forge them" in printed[2]
    assert printed[3] == "in gradebook.db but not graded by grade-all, their scores unchecked (2): dee, eve"
    _say_differences(["cy: tokenize manual 1 (grade-all 2), kept"], [], keep_manual=True)
    assert capsys.readouterr().out.startswith("gradebook.db held other scores than grade-all's for 1 students:\n")
    _say_differences([], [], keep_manual=False)
    assert capsys.readouterr().out == ""


# ------------------------------------------------------------------ which results are the record


def write_results(out, key: str, results: dict) -> None:
    (out / "students" / key).mkdir(parents=True)
    (out / "students" / key / "results.json").write_text(json.dumps(results))


def test_only_graded_results_of_the_assignment_are_the_record(mha, tmp_path):
    """Are results not graded, or of another assignment, left out of the record, in the students' order?"""
    graded = {"score": 2, "extra_data": {"assignment": "mha", "status": "graded", "max_score": 2}}
    write_results(tmp_path, "ben", graded)
    write_results(tmp_path, "ada", graded)
    write_results(tmp_path, "cy", {**graded, "extra_data": {**graded["extra_data"], "assignment": "encoder_block"}})
    write_results(tmp_path, "dee", not_graded_json("nothing to grade", "mha", student_fault=True))
    assert [folder.name for folder, _ in _graded(tmp_path, mha)] == ["ada", "ben"]


def test_no_record_to_store_says_to_run_grade_all(mha, tmp_path):
    """With no graded results of the assignment, or an unreadable one, does the import refuse, naming the fix?"""
    with pytest.raises(KitError, match="holds no graded students/<key>/results.json of mha: run grade-all first"):
        _graded(tmp_path, mha)
    (tmp_path / "students" / "ada").mkdir(parents=True)
    (tmp_path / "students" / "ada" / "results.json").write_text("{not json")
    with pytest.raises(KitError, match=r"ada/results.json: .*; run grade-all again to write it anew"):
        _graded(tmp_path, mha)


# ------------------------------------------------------------------ what a grade cell shows


def test_a_grade_cell_shows_its_points_then_each_hidden_check():
    """Does each exercise's grade cell show its points and its hidden checks, pass or FAIL, and no notebook check?"""
    results = read_results(
        {
            "tests": [
                {"name": "tokenize: splits", "tags": ["tokenize"], "score": 1, "max_score": 1, "status": "passed"},
                {
                    "name": "tokenize: lower-cases",
                    "tags": ["tokenize"],
                    "score": 0,
                    "max_score": 1,
                    "status": "failed",
                    "output": "got 'Hello'",
                },
            ],
            "extra_data": {
                "by_name": {"tokenize": {"score": 1.0, "max_score": 2.0}, "encode": {"score": 0, "max_score": 3}},
                "visible_checks": [{"name": "tokenize", "title": "the notebook's example", "status": "failed"}],
            },
        }
    )
    assert _grade_cell_text(results) == {
        "tokenize": "tokenize: 1 of 2 points\n[pass] tokenize: splits: \n[FAIL] tokenize: lower-cases: got 'Hello'\n",
        "encode": "encode: 0 of 3 points\n\n",
    }


@pytest.mark.parametrize(
    "source, fence",
    [("plain text", "```"), ("a ``` fence", "````"), ("`````", "``````"), ("<script>x</script>", "```")],
)
def test_a_students_markdown_becomes_text_fenced_beyond_its_backticks(source, fence):
    """Is Markdown shown as text in a fence no backtick run of it can close, three backticks at least?"""
    assert as_text(source) == f"{fence}text\n{source}\n{fence}"


def test_a_cell_that_copies_a_course_cells_id_or_changes_its_type_is_the_students(mha):
    """Is a second cell with a course cell's id, or a course cell turned into another type, treated as the student's
    (its Markdown as text, no metadata of the course's)?"""
    release = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    course_md = next(c for c in release.cells if c.cell_type == "markdown")
    course_code = next(c for c in release.cells if c.cell_type == "code")
    student = nbformat.v4.new_notebook()  # its cells set after: new_notebook would give the copied id another
    student.cells = [
        nbformat.from_dict(json.loads(json.dumps(course_md))),
        nbformat.from_dict({**json.loads(json.dumps(course_md)), "source": "# mine **bold**"}),
        nbformat.v4.new_markdown_cell("<b>was code</b>", id=course_code.id),
    ]
    assert student.cells[1].id == course_md.id
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbformat says the ids repeat
        placed = feedback_notebook(student, release, read_results({}))
    assert placed.cells[0].source == course_md.source and placed.cells[0].metadata == course_md.metadata
    assert placed.cells[1].id == "student-1" and placed.cells[1].source == as_text("# mine **bold**")
    assert placed.cells[2].id == "student-2" and placed.cells[2].source == as_text("<b>was code</b>")
    assert placed.cells[1].metadata == {} and placed.cells[2].metadata == {}


# ------------------------------------------------------------------ collect: a student's notebook into submitted/


def submission(path, submitted_at="") -> Submission:
    return Submission("ada-1", "Ada Lovelace", "1", path, "folders", submitted_at=submitted_at)


def test_a_notebook_is_placed_where_autograde_looks_with_its_modules_and_time(mha, tmp_path):
    """Is the notebook copied under the assignment's name, with the .py files beside it (no link), and the LMS's
    time in nbgrader's timestamp.txt, replacing what an earlier collect placed?"""
    handed = tmp_path / "ada"
    handed.mkdir()
    shutil.copy(sample_path(mha), handed / "my work.ipynb")
    (handed / "helpers.py").write_text("X = 1\n")
    (handed / "notes.txt").write_text("not code")
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    (handed / "linked.py").symlink_to(tmp_path / "outside.py")  # a link may lead anywhere: never followed
    target = tmp_path / "course" / "submitted" / "ada-1" / "mha"
    target.mkdir(parents=True)
    (target / "stale.py").write_text("")
    assert _place(submission(handed, "2024-05-01 10:00:00 UTC"), mha, target) is None
    assert sorted(p.name for p in target.iterdir()) == ["helpers.py", "mha.ipynb", "timestamp.txt"]
    assert (target / "mha.ipynb").read_bytes() == sample_path(mha).read_bytes()
    assert (target / "timestamp.txt").read_text() == "2024-05-01 10:00:00 UTC"
    assert _place(submission(handed / "my work.ipynb"), mha, target) is None  # a file alone: nothing beside it
    assert sorted(p.name for p in target.iterdir()) == ["mha.ipynb"]


def test_work_that_is_no_notebook_is_left_to_grade_all(mha, tmp_path):
    """Does a .py submission, or one with nothing to grade, get the reason it is not placed, and nothing placed?"""
    module = tmp_path / "ada.py"
    module.write_text("def tokenize(text):\n    return text.split()\n")
    target = tmp_path / "submitted" / "ada-1" / "mha"
    assert _place(submission(module), mha, target) == (
        "module ada.py is not a notebook: nbgrader autograde grades notebooks; grade-all grades it"
    )
    (tmp_path / "empty").mkdir()
    assert "holds no notebook, .py file or package defining any of" in _place(
        submission(tmp_path / "empty"), mha, target
    )
    assert not target.exists()


def test_a_student_the_export_does_not_tell_gets_nothing_placed(mha, tmp_path):
    """Is nothing placed for nbgrader for a student whose files the export does not tell, the reason given?"""
    target = tmp_path / "submitted" / "u999" / "mha"
    why = "x.ipynb: reads as user 777 or user 999: graded for no one"
    undecided = Submission("u999", "mallory", "999", tmp_path, "canvas", undecided=why)
    (tmp_path / "x.ipynb").write_bytes(sample_path(mha).read_bytes())
    assert _place(undecided, mha, target) == why and not target.exists()
