"""Do the written answers travel with every route, graded by hand and never counted as zero?

nbgrader keeps them as manually graded answers (generate_assignment, autograde, the
formgrader's manual score); grade-all gathers them into one page for a TA and reads the
TA's points back into summary.csv's total; results.json and the Gradescope bundle say
they are graded by hand.
"""

import csv
import io
import json
import re
import shutil
import subprocess
import sys
import time
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.author.build import write_master
from autograder.author.lesson import questions
from autograder.author.notebook import ANSWER_STUB, notebook_text
from autograder.author.release import nbgrader_env, run_nbgrader
from autograder.author.samples import sample_notebook
from autograder.deliver.grade_all import answers
from autograder.deliver.intake import Intake, Submission
from autograder.errors import KitError

from ...results.formulas import FORMULAS, HONEST, SPLIT, runs_as_formula

KIT = [sys.executable, "-m", "autograder"]
HOSTILE = "<script>alert('x')</script> & </div>"
CLASS = {"ada": "Ada", "cy": "Cy"}  # the students' names by key, as the kit has them


@pytest.fixture(scope="module")
def numpy_assignment():
    from autograder import assignments

    return assignments.get("attention_numpy")


def answered(assignment, texts: dict[str, str]):
    """The reference's solved notebook with some written answers typed in."""
    notebook = sample_notebook(assignment, None)
    for cell in notebook.cells:
        if cell.get("id") in texts:
            cell.source = texts[cell.id]
    return notebook


def intake_of(*keys: str) -> Intake:
    submissions = [
        Submission(key=key, name=key.title(), student_id="", path=Path(key), source="folders") for key in keys
    ]
    return Intake(source="folders", submissions=submissions, skipped=[])


# ------------------------------------------------------------------ reading answers and points


def test_answers_are_found_by_their_grade_id_and_a_stub_is_no_answer(numpy_assignment, tmp_path):
    """Is each answer read from the cell with its grade id, and a cell still saying YOUR ANSWER HERE not answered?"""
    asked = questions(numpy_assignment)
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook_text(answered(numpy_assignment, {"why_scale": "The variance is d_k."})))
    found = answers.answers_of(path, asked)
    assert found["why_scale"] == answers.Answer(text="The variance is d_k.")
    assert "YOUR ANSWER HERE" in found["causal_rows"].missing


def test_a_deleted_cell_or_a_broken_notebook_is_said_so(numpy_assignment, tmp_path, monkeypatch):
    """Does a notebook without an answer's cell, or one that is not JSON (or nested past any notebook, or over the
    notebooks' bound), say why there is no answer, never crashing the class's run?"""
    asked = questions(numpy_assignment)
    notebook = answered(numpy_assignment, {})
    notebook.cells = [cell for cell in notebook.cells if cell.get("id") != "why_positions"]
    (tmp_path / "deleted.ipynb").write_text(notebook_text(notebook))
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert "no cell" in answers.answers_of(tmp_path / "deleted.ipynb", asked)["why_positions"].missing
    assert answers.answers_of(tmp_path / "broken.ipynb", asked)["why_scale"].missing == answers.NO_NOTEBOOK
    assert answers.answers_of(tmp_path / "absent.ipynb", asked)["why_scale"].missing == answers.NO_NOTEBOOK
    (tmp_path / "deep.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    assert answers.answers_of(tmp_path / "deep.ipynb", asked)["why_scale"].missing == answers.NO_NOTEBOOK
    monkeypatch.setattr(answers, "NOTEBOOK_BYTES", 10)
    assert answers.answers_of(tmp_path / "deleted.ipynb", asked)["why_scale"].missing == answers.NO_NOTEBOOK


def points_file(tmp_path, text: str) -> Path:
    path = tmp_path / "points.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_manual_points_are_read_from_a_spreadsheets_csv(numpy_assignment, tmp_path):
    """Are a comma file and a semicolon file with decimal commas (and a BOM) read alike, blanks left ungraded?"""
    asked = questions(numpy_assignment)
    comma = points_file(tmp_path, "key,name,causal_rows,why_scale,why_positions\nada,Ada,1,1.5,\ncy,Cy,0,0,0\n")
    assert answers.read_manual_points(comma, asked, CLASS) == {
        "ada": {"causal_rows": 1, "why_scale": Fraction(3, 2)},
        "cy": {"causal_rows": 0, "why_scale": 0, "why_positions": 0},
    }
    semicolon = points_file(tmp_path, "\ufeffkey;why_scale\nada;1,5\n")
    assert answers.read_manual_points(semicolon, asked, CLASS) == {"ada": {"why_scale": Fraction(3, 2)}}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("key,why_scale\nbob,1\n", "no student has the key 'bob'"),
        ("key,why_scale\nada,3\n", "why_scale is 3, outside 0 to 2 points"),
        ("key,why_scale\nada,-1\n", "outside 0 to 2 points"),
        ("key,why_scale\nada,two\n", "not a number of points"),
        ("key,why_scale\nada,1\nada,2\n", "has a row already"),
        ("key,why_sclae\nada,1\n", "unknown: why_sclae"),
        ("student,why_scale\nada,1\n", "unknown: student"),
        ("", "the file is empty"),
        ("key,why_scale,why_scale\nada,1,2\n", "line 1: the column why_scale is there 2 times"),
        ("key,name,key,why_scale\nada,Ada,cy,2\n", "line 1: the column key is there 2 times"),
        (
            "key,name,why_scale\nada,Ada,1\ncy,Ada,2\n",
            "line 3: the key cy is 'Cy' in this class, but the row's name is 'Ada', the name of the key ada",
        ),
        ("key,name,why_scale\nada,Bob,1\n", "line 2: the key ada is 'Ada' in this class, but the row's name is 'Bob'"),
        ("key,why_scale\nada,1,2\n", "line 2: 3 cells, but the first line names 2 columns"),
        ("key,why_scale\nada,1e-99999999\n", "why_scale is '1e-99999999', not a number of points"),
        ("key,why_scale\nada,1e999999999\n", "not a number of points"),
        ("key;why_scale\nada;1e-99999999\n", "not a number of points"),
        ("key,why_scale\nada,nan\n", "why_scale is 'nan', not a number of points"),
        ("key,why_scale\nada,inf\n", "not a number of points"),
        ("key,why_scale\nada,-inf\n", "not a number of points"),
        ("key,why_scale\nada," + "1" * 100_000 + "\n", "not a number of points"),
        ("key,why_scale\nada,0." + "0" * 100_000 + "1\n", "not a number of points"),
        ("key,why_scale\nada,1e99\n", "outside 0 to 2 points"),
        ("key,why_scale\nada,1/2\n", "not a number of points"),
        ("key,why_scale\nada," + "1" * 200_000 + "\n", "line 2: not CSV"),
        ('key,name,why_scale\nada,"\n",1\ncy,Cy,9\n', "line 4: why_scale is 9, outside 0 to 2 points"),
    ],
    ids=[
        "unknown student",
        "too many points",
        "negative",
        "not a number",
        "twice",
        "misspelt question",
        "no key column",
        "empty",
        "a question's column twice",
        "the key column twice",
        "another student's name",
        "a name no one has",
        "a cell beyond the last column",
        "tiny exponent",
        "huge exponent",
        "tiny exponent, semicolons",
        "nan",
        "inf",
        "-inf",
        "a huge integer",
        "a huge decimal",
        "a short exponent, out of range",
        "a fraction",
        "a cell over the csv module's field limit",
        "the line a row starts on, after a cell of two lines",
    ],
)
def test_a_wrong_points_file_is_refused_with_its_line_and_the_fix(numpy_assignment, tmp_path, text, problem):
    """Does every mistake in the TA's file, and whatever it cannot read one way only, stop grade-all within a
    second, with the file, the line and what is wrong?"""
    path = points_file(tmp_path, text)
    started = time.monotonic()
    with pytest.raises(KitError, match="--manual-points") as error:
        answers.read_manual_points(path, questions(numpy_assignment), CLASS)
    assert time.monotonic() - started < 1.0
    assert problem in str(error.value) and str(path) in str(error.value)


def template_of(names: dict[str, str], asked) -> str:
    """manual_points_template.csv as the kit writes it for a class of these names, no answer missing."""
    answered = {key: {q.id: answers.Answer(text="an answer") for q in asked} for key in names}
    return answers.points_template(asked, answered, names)


def filled(template: str, points: dict[str, str], separator: str = ",", drop_quote: bool = False) -> str:
    """The template as a spreadsheet saves it after a person typed ``points`` (question -> value) on every row:
    its own quoting; with drop_quote, each inert cell's leading ' taken as the spreadsheet's text marker."""
    rows = list(csv.reader(io.StringIO(template)))
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=separator)
    writer.writerow(rows[0])
    for row in rows[1:]:
        cells = [cell[1:] if drop_quote and cell.startswith("'") else cell for cell in row]
        writer.writerow([points.get(column, cell) for column, cell in zip(rows[0], cells)])
    return buffer.getvalue()


@pytest.mark.parametrize("drop_quote", [False, True], ids=["as written", "quote dropped"])
@pytest.mark.parametrize("separator", [",", ";"], ids=["comma", "semicolon"])
def test_the_template_is_read_back_once_filled_in(numpy_assignment, tmp_path, separator, drop_quote):
    """The template the kit wrote for a class whose names are formulas (made inert in it), filled in and saved by a
    spreadsheet: is every student's row accepted as their own, with the points typed?"""
    asked = questions(numpy_assignment)
    names = {f"s{i}": name for i, name in enumerate(FORMULAS + SPLIT + HONEST)}
    template = template_of(names, asked)
    assert all(not runs_as_formula(row["name"]) for row in csv.DictReader(io.StringIO(template)))
    typed = {"causal_rows": "1", "why_scale": "1,5" if separator == ";" else "1.5", "why_positions": "2"}
    path = points_file(tmp_path, filled(template, typed, separator, drop_quote))
    given = {"causal_rows": Fraction(1), "why_scale": Fraction(3, 2), "why_positions": Fraction(2)}
    assert answers.read_manual_points(path, asked, names) == {key: given for key in names}


def test_the_summary_total_waits_for_every_written_answer(numpy_assignment):
    """Is the total blank, and the points by hand named, until every written answer of a student has its points?"""
    written = answers.Written(questions(numpy_assignment), {"ada": {"causal_rows": Fraction(1)}, "cy": {
        "causal_rows": Fraction(1), "why_scale": Fraction(2), "why_positions": Fraction(1, 2)}})  # fmt: skip
    assert written.head() == ["causal_rows", "why_scale", "why_positions", "written", "written_status", "total"]
    ada = dict(zip(written.head(), written.row("ada", 12.0)))
    assert (ada["causal_rows"], ada["why_scale"], ada["written"], ada["total"]) == ("1", "", "", "")
    assert ada["written_status"].startswith("4 points graded by hand, not included: 2 of 3 written answers")
    cy = dict(zip(written.head(), written.row("cy", 10.333333)))
    assert (cy["written"], cy["total"], cy["written_status"]) == ("3.5", "13.83", "graded by hand, included in total")
    assert written.row("cy", None)[-1] == ""  # the kit could not grade: no total, whatever the TA gave
    assert answers.Written([]).head() == ["total"] and answers.Written([]).row("ada", 7.5) == ["7.5"]


def test_the_ta_page_escapes_what_students_wrote(numpy_assignment, tmp_path):
    """Does the page show each question once, every student's answer under it, and no student's markup live?"""
    out = tmp_path / "out"
    for key, texts in (("ada", {"why_scale": HOSTILE}), ("cy", {})):
        (out / "students" / key).mkdir(parents=True)
        (out / "students" / key / "submission.ipynb").write_text(notebook_text(answered(numpy_assignment, texts)))
    written = answers.Written(questions(numpy_assignment))
    paths = answers.write_answers(numpy_assignment, intake_of("ada", "cy", "dee"), out, written)
    assert paths == [out / answers.PAGE, out / answers.TEMPLATE]
    page = (out / answers.PAGE).read_text()
    assert HOSTILE not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;/div&gt;" in page
    assert page.count('<h2 id="why_scale">') == 1 and "1 of 3 answered" in page
    assert (
        page.index('<h2 id="causal_rows">') < page.index('<h2 id="why_scale">') < page.index('<h2 id="why_positions">')
    )
    assert answers.NO_NOTEBOOK in page  # dee handed in no notebook
    with open(out / answers.TEMPLATE, newline="") as file:
        template = {row["key"]: row for row in csv.DictReader(file)}
    assert template["ada"]["why_scale"] == "" and template["ada"]["causal_rows"] == "0"  # to grade; nothing written
    assert template["dee"]["why_positions"] == "0" and template["ada"]["name"] == "Ada"


def test_the_ta_page_shows_each_question_as_the_notebook_does_and_runs_nothing(numpy_assignment, tmp_path):
    """Is each question's Markdown rendered and its formula MathML, on a page with no script and a policy that runs
    and fetches nothing, while a student's <script> and $$ math stay text?"""
    out = tmp_path / "out"
    student = "<script>alert(1)</script> $$\\sqrt{d_k}$$ **not bold**"
    (out / "students" / "ada").mkdir(parents=True)
    notebook = answered(numpy_assignment, {"why_scale": student})
    (out / "students" / "ada" / "submission.ipynb").write_text(notebook_text(notebook))
    answers.write_answers(numpy_assignment, intake_of("ada"), out, answers.Written(questions(numpy_assignment)))
    page = (out / answers.PAGE).read_text()
    prompt = next(q.prompt for q in questions(numpy_assignment) if q.id == "why_scale")
    assert "$d_k = 1024$" in prompt and "**Explain why.**" in prompt
    section = page[page.index('<h2 id="why_scale">') : page.index('<h2 id="why_positions">')]
    assert "<strong>Explain why.</strong>" in section and "**Explain why.**" not in section
    assert "<msub><mi>d</mi><mi>k</mi></msub><mo>=</mo><mn>1024</mn>" in section and "$d_k" not in section
    assert "<msqrt>" in section  # the question's own \\sqrt{d_k}
    answer = section[section.index('<div class="answer">') :]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; $$\\sqrt{d_k}$$ **not bold**" in answer
    assert "<math" not in answer and "<strong>" not in answer
    assert "<script" not in page.lower() and re.search(r"<[^>]*\son\w+\s*=", page) is None  # no script, no handler
    policy = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    assert policy in page


# ------------------------------------------------------------------ results.json and Gradescope


def test_results_say_the_written_points_are_not_included(numpy_assignment):
    """Do results.json, its output and the CI table say how many points are graded by hand, apart from the score?"""
    from autograder.results.model import Report
    from autograder.results.summaries import markdown_summary
    from autograder.results.write import gradescope_json

    report = Report(assignment=numpy_assignment.name, submission="x", checks=[], order=numpy_assignment.graded)
    results = gradescope_json(report, hidden_visibility="visible")
    note = "5 more points, for 3 written answers, are graded by hand and not included here."
    assert results["extra_data"]["written"] == {
        "points": 5.0,
        "questions": {"causal_rows": 1.0, "why_scale": 2.0, "why_positions": 2.0},
        "note": note,
    }
    assert note in results["output"] and note in gradescope_json(report)["output"] and note in markdown_summary(report)
    assert results["score"] == 0.0  # the automatic score alone


def test_the_gradescope_bundle_lists_the_answers_to_grade_by_hand(numpy_assignment):
    """Does the autograder zip say which answers, for how many points, to add as manually graded questions?"""
    from autograder.deliver.routes.gradescope import zip_files

    note = zip_files(numpy_assignment)["written_answers.txt"].decode()
    assert "graded by hand" in note and "why_scale (2 points)" in note and "never includes their 5 points" in note


# ------------------------------------------------------------------ nbgrader


def test_a_written_answer_is_nbgraders_manually_graded_answer(numpy_assignment):
    """Does the master notebook give each answer nbgrader's metadata of a manually graded answer, with its points?"""
    from autograder.author.build import fresh_bundle_cell
    from autograder.author.notebook import master_notebook

    notebook = master_notebook(numpy_assignment, fresh_bundle_cell(numpy_assignment))
    cells = {cell.get("id"): cell for cell in notebook.cells}
    for answer_id, points in numpy_assignment.written.items():
        cell = cells[answer_id]
        assert (cell.cell_type, cell.source) == ("markdown", ANSWER_STUB)
        meta = cell.metadata["nbgrader"]
        assert (meta["grade"], meta["solution"], meta["task"], meta["locked"]) == (True, True, False, False)
        assert (meta["grade_id"], meta["points"]) == (answer_id, points)


@pytest.mark.slow(seconds=12)
def test_nbgrader_leaves_the_answers_for_a_person_and_counts_their_points(numpy_assignment, tmp_path):
    """After real generate_assignment and autograde, are the answers manual grades with their points, scored by hand only?"""
    from nbgrader.api import Gradebook

    assignment = numpy_assignment
    root = tmp_path / "course"
    (root / "source" / assignment.name).mkdir(parents=True)
    shutil.copy(write_master(assignment), root / "source" / assignment.name / assignment.notebook_name)
    run_nbgrader(assignment, root)
    release = json.loads((root / "release" / assignment.name / assignment.notebook_name).read_text())
    kept = {
        c["id"]: c for c in release["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") in assignment.written
    }
    assert {k: ("".join(c["source"]), c["metadata"]["nbgrader"]["points"]) for k, c in kept.items()} == {
        k: (ANSWER_STUB, p) for k, p in assignment.written.items()
    }
    submitted = root / "submitted" / "ada" / assignment.name
    submitted.mkdir(parents=True)
    (submitted / assignment.notebook_name).write_text(notebook_text(answered(assignment, {"why_scale": "d_k"})))
    done = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment.name, f"--CourseDirectory.root={root}"],
                          capture_output=True, text=True, env=nbgrader_env(), cwd=KIT_ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    notebook = Path(assignment.notebook_name).stem
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        automatic = gradebook.find_submission(assignment.name, "ada").score
        assert automatic == pytest.approx(sum(assignment.points.values()))  # the exercises only
        for answer_id, points in assignment.written.items():
            grade = gradebook.find_grade(answer_id, notebook, assignment.name, "ada")
            # Written: for a person. Left as the release had it: nbgrader scores it 0 itself (SaveAutoGrades).
            expected = (None, True) if answer_id == "why_scale" else (0, False)
            assert (grade.max_score, grade.auto_score, grade.needs_manual_grade) == (points, *expected), answer_id
        grade = gradebook.find_grade("why_scale", notebook, assignment.name, "ada")
        grade.manual_score = 1.5  # what the formgrader stores when a person grades it
        gradebook.db.commit()
        assert gradebook.find_submission(assignment.name, "ada").score == pytest.approx(automatic + 1.5)


# ------------------------------------------------------------------ grade-all


@pytest.mark.slow
def test_grade_all_gathers_the_answers_and_reads_the_points_back(numpy_assignment, tmp_path):
    """Does grade-all write the TA's page and template, and a rerun with --manual-points put the points in the total?"""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.ipynb").write_text(
        notebook_text(answered(numpy_assignment, {"why_scale": HOSTILE, "causal_rows": "1/3"}))
    )
    shutil.copy(numpy_assignment.release_dir / numpy_assignment.notebook_name, folder / "cy.ipynb")
    out = tmp_path / "out"
    command = KIT + ["grade-all", str(folder), "-a", numpy_assignment.name, "--out", str(out), "--jobs", "1", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "the written answers, 5 points, are graded by hand" in done.stdout
    page = (out / answers.PAGE).read_text()
    assert "&lt;script&gt;" in page and "<script>" not in page and "1/3" in page

    def summary():
        with open(out / "summary.csv", newline="") as file:
            return {row["key"]: row for row in csv.DictReader(file)}

    assert (summary()["ada"]["score"], summary()["ada"]["total"]) == ("12", "")
    # ada left one question as handed out: 0 for it, as nbgrader gives it; 3 points wait for a person
    assert summary()["ada"]["written_status"].startswith("3 points graded by hand, not included: 2 of 3")
    cy = summary()["cy"]  # nothing written: nothing waits for a person, and the status says why the points are 0
    assert (cy["written"], cy["total"], cy["written_status"]) == ("0", "0", "no written answer: 0, included in total")
    filled = (out / answers.TEMPLATE).read_text().replace('"ada","ada","","","0"', '"ada","ada","1","1.5","0"')
    points = points_file(tmp_path, filled)
    done = subprocess.run(command + ["--manual-points", str(points)], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 0 and "0 graded, 2 unchanged" in done.stdout, done.stderr[-2000:]
    ada, cy = summary()["ada"], summary()["cy"]
    assert (ada["causal_rows"], ada["why_scale"], ada["written"], ada["total"]) == ("1", "1.5", "2.5", "14.5")
    assert (cy["score"], cy["written"], cy["total"]) == ("0", "0", "0")  # nothing written: 0 in the template
    wrong = points_file(tmp_path, "key,why_scale\nada,9\n")
    done = subprocess.run(command + ["--manual-points", str(wrong)], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 2 and "why_scale is 9, outside 0 to 2 points" in done.stderr
    assert summary()["ada"]["total"] == "14.5"  # a refused file changes nothing


def test_grade_all_help_names_the_manual_points():
    """Does grade-all --help say how manual points come in?"""
    done = subprocess.run(KIT + ["grade-all", "--help"], capture_output=True, text=True, cwd=KIT_ROOT)
    assert "--manual-points FILE" in done.stdout and "manual_points_template.csv" in done.stdout


def test_no_route_counts_a_written_answer_in_an_automatic_score(numpy_assignment):
    """Are the written answers' points kept out of points.toml's exercise points, so no grader scores them?"""
    assert set(numpy_assignment.written).isdisjoint(numpy_assignment.points)
    assert sum(numpy_assignment.points.values()) == 12 and sum(numpy_assignment.written.values()) == 5


def test_the_bundle_zip_carries_the_note(numpy_assignment, tmp_path):
    """Is written_answers.txt at the root of the zip Gradescope is given?"""
    from autograder.deliver.routes.gradescope import write_bundle

    with zipfile.ZipFile(write_bundle(numpy_assignment, tmp_path / "a.zip")) as archive:
        assert "written_answers.txt" in archive.namelist()
