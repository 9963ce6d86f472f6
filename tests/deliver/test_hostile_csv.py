"""Can a student's name, id or email open a formula in any CSV file grade-all writes, whatever LMS exported the class?

For each source the intake reads (canvas, moodle, blackboard, gradescope, classroom,
folders) a class is exported as that LMS writes it, its students named, numbered and
addressed with the cells of tests/data/hostile/spreadsheet_formulas.json (as far as that
LMS lets a name hold them) beside one honest student. The intake reads it; the kit's own
writers then write every CSV of the output folder (summary.csv, the points template,
similarity.csv, the LMS's grade file) from faked results, without grading. Each file is
read back with Python's csv module: no cell of a column that came from the export opens a
formula, and the honest student's row is what it always was.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest

from autograder.author.lesson import questions
from autograder.deliver.class_view import similarity
from autograder.deliver.grade_all import answers, summary
from autograder.deliver.intake import Intake, read_intake
from autograder.deliver.routes import lms_grades
from autograder.results.outcome import GRADED
from autograder.results.read import read_results
from autograder.results.write import gradescope_json

from ..results.formulas import FORMULAS, SPLIT, runs_as_formula
from .intake.exports import NOTEBOOK, build
from .students import student_report

TOTAL = "38.2"  # student_report's 31.2 automatic points and mha's 7 written points, all given

# The columns of each file that come from the export (names, ids, emails, keys, file names).
FROM_THE_EXPORT = {
    "summary.csv": ["key", "name", "student_id", "email", "submitted_at", "reason", "file", "earlier", "group"],
    "manual_points_template.csv": ["key", "name"],
    "similarity.csv": ["student_a", "student_b", "name_a", "name_b"],
    "canvas_grades.csv": ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"],
    "moodle_grades.csv": ["Identifier", "Full name", "Email address", "Feedback comments"],
    "blackboard_grades.csv": ["Last Name", "First Name", "Username"],
    "gradescope_grades.csv": ["Name", "SID", "Email"],
    "classroom_grades.csv": ["github_username"],
}
# The honest student's row in the LMS's file, as before.
HONEST_ROW = {
    "canvas": ["doejane", "12345", "", "", "", TOTAL],
    "blackboard": ["Doe", "Jane", "jdoe", TOTAL],
    "gradescope": ["Jane Doe", "111", "jane@example.edu", TOTAL, "47", "graded"],
    "classroom": ["mha", "octocat", TOTAL, "47"],
}


def in_a_file_name(texts: list[str], banned: str = "/\x00") -> list[str]:
    """The texts a file or folder name can hold (no separator, no NUL, not hidden)."""
    return [t for t in texts if not any(c in t for c in banned) and not t.startswith(".")]


def canvas_name(text: str) -> str:
    """A formula as Canvas's file names could hold it: lower-case ASCII letters and digits, '=' '+' '-' '@' in their
    full-width forms (Canvas drops or lower-cases other ASCII, not the rest of Unicode)."""
    wide = {"=": "\uff1d", "+": "\uff0b", "-": "\uff0d", "@": "\uff20"}
    return "".join(wide.get(c, c) for c in text.lower() if c in wide or c.isdigit() or "a" <= c <= "z" or c >= "\x80")


def canvas() -> dict[str, bytes]:
    names = dict.fromkeys(n for n in map(canvas_name, FORMULAS + SPLIT) if n.strip())
    files = {f"{name}_{900 + i}_{7100 + i}_mha.ipynb": NOTEBOOK for i, name in enumerate(names)}
    return {**files, "doejane_12345_7000_mha.ipynb": NOTEBOOK}


def moodle() -> dict[str, bytes]:
    names = in_a_file_name(FORMULAS + SPLIT)
    files = {f"{name}_{2000 + i}_assignsubmission_file_/mha.ipynb": NOTEBOOK for i, name in enumerate(names)}
    return {**files, "Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK}


def receipt(name: str, user: str, attempt: str) -> bytes:
    return (
        f"Name: {name} ({user})\nAssignment: HW 1\nDate Submitted: Wednesday, January 31, 2024 12:00:00 PM EST\n"
        f"Current Grade: Needs Grading\n\nFiles:\n\tOriginal filename: mha.ipynb\n\tFilename: {attempt}_mha.ipynb\n"
    ).encode()


def blackboard() -> dict[str, bytes]:
    names = in_a_file_name(FORMULAS + SPLIT, "\x00\r\n")
    users = in_a_file_name(FORMULAS, "/\x00\r\n()")
    files = {}
    people = [(name, f"{users[i % len(users)]}{i}") for i, name in enumerate(names)] + [("Jane Doe", "jdoe")]
    for i, (name, user) in enumerate(people):
        attempt = f"HW 1_{user}_attempt_2024-01-31-12-{i // 60:02d}-{i % 60:02d}"
        files[f"{attempt}.txt"] = receipt(name, user, attempt)
        files[f"{attempt}_mha.ipynb"] = NOTEBOOK
    return files


def gradescope() -> dict[str, bytes]:
    records = []
    people = [
        (name, sid, email)
        for name, sid, email in zip(FORMULAS, FORMULAS[1:] + FORMULAS[:1], FORMULAS[2:] + FORMULAS[:2])
    ]
    people += [(name, f"9{i}", f"{name}@example.edu") for i, name in enumerate(SPLIT)]
    groups = [[person] for person in people] + [[people[0], people[-1]]]  # a group: its members each have a row
    groups += [[("Jane Doe", "111", "jane@example.edu")]]
    for i, group in enumerate(groups):
        submitters = "".join(
            f"  - :name: {json.dumps(n)}\n    :sid: {json.dumps(s)}\n    :email: {json.dumps(e)}\n" for n, s, e in group
        )
        records.append(f"submission_{1000 + i}:\n  :submitters:\n{submitters}  :created_at: 2024-02-01 10:00:00 Z\n")
    files = {f"submission_{1000 + i}/mha.ipynb": NOTEBOOK for i in range(len(groups))}
    return {**files, "submission_metadata.yml": ("---\n" + "".join(records)).encode()}


def classroom() -> dict[str, bytes]:
    logins = in_a_file_name(FORMULAS + SPLIT) + ["octocat"]
    files = {f"mha-submissions/mha-{login}/mha.ipynb": NOTEBOOK for login in logins}
    return {**files, **{f"mha-submissions/mha-{login}/.git/HEAD": b"ref: refs/heads/main\n" for login in logins}}


def folders() -> dict[str, bytes]:
    return {f"{name}.ipynb": NOTEBOOK for name in in_a_file_name(FORMULAS + SPLIT) + ["Jane Doe"]}


EXPORTS = {
    "canvas": canvas,
    "moodle": moodle,
    "blackboard": blackboard,
    "gradescope": gradescope,
    "classroom": classroom,
    "folders": folders,
}


def write_every_csv(mha, intake: Intake, out: Path) -> None:
    """What grade-all writes of a class as CSV, by its own writers, every student graded as student_report."""
    results = {s.key: read_results(gradescope_json(student_report())) for s in intake.submissions}
    status = {s.key: (GRADED, "") for s in intake.submissions}
    asked = questions(mha)
    full = {s.key: {q.id: Fraction(str(q.points)) for q in asked} for s in intake.submissions}
    answers.write_answers(mha, intake, out, answers.Written(asked))  # the template: nothing graded yet
    rows = summary.write_summary(intake, mha, out, results, status, written=answers.Written(asked, full))
    keys = [s.key for s in intake.submissions]
    pairs = [similarity.Pair(a, b, 0.9, 0.9, 0.9) for a, b in zip(keys, keys[1:])]
    similarity.write_similarity(out / "similarity.csv", pairs, {s.key: s.name for s in intake.submissions})
    lms_grades.write_lms_grades(intake, mha, out, rows)


@pytest.mark.slow
@pytest.mark.parametrize("source", list(EXPORTS))
def test_no_csv_cell_from_an_export_opens_a_formula(mha, tmp_path, source):
    """A class named with formulas, through this LMS's export: does every CSV grade-all writes show each as text,
    and the honest student's row as before?"""
    intake = read_intake(build(tmp_path, EXPORTS[source](), as_zip=False), tmp_path / "scratch")
    assert intake.source == source and len(intake.submissions) > len(FORMULAS) // 3, intake.skipped
    hostile = [s for s in intake.submissions if runs_as_formula(s.name) or runs_as_formula(s.student_id)]
    assert len(hostile) >= 4  # the export did carry formulas to the kit
    out = tmp_path / "out"
    out.mkdir()
    write_every_csv(mha, intake, out)
    lms = [] if source == "folders" else [f"{source}_grades.csv"]
    assert sorted(p.name for p in out.glob("*.csv")) == sorted(
        ["summary.csv", answers.TEMPLATE, "similarity.csv", *lms]
    )
    for path in out.glob("*.csv"):
        with open(path, newline="", encoding="utf-8") as file:
            table = list(csv.reader(file))
        head, body = table[0], table[1:]
        columns = [head.index(column) for column in FROM_THE_EXPORT[path.name] if column in head]
        assert columns, path.name
        opened = [(row[0], row[i]) for row in body for i in columns if i < len(row) and runs_as_formula(row[i])]
        assert not opened, (path.name, opened[:5])
    with open(out / "summary.csv", newline="", encoding="utf-8") as file:
        honest = [row for row in csv.DictReader(file) if row["name"] in ("Jane Doe", "doejane", "octocat")]
    assert len(honest) == 1 and (honest[0]["score"], honest[0]["total"]) == ("31.2", TOTAL)
    if source in HONEST_ROW:
        with open(out / lms[0], newline="", encoding="utf-8") as file:
            assert HONEST_ROW[source] in list(csv.reader(file))
