"""Written answers: gathered from a class's notebooks for a person to grade, and their points read back.

A written answer is a Markdown cell of the notebook (the lesson's ```{answer} ID fence,
with its points in points.toml's [written] table), nbgrader's "manually graded answer".
The kit never scores one: nbgrader's formgrader grades it by hand, and so does a TA
after ``grade-all``, which writes, beside summary.csv:

    answers.html                  one section per question, shown as the notebook shows it
                                  (Markdown, math as MathML), the class's answers one after
                                  another (escaped: they are the students' text), with what
                                  a grader looks for; no script, nothing fetched
    manual_points_template.csv    key, name, then a column per question: 0 where a student
                                  wrote no answer, blank where one waits for its points

The TA fills a copy of the template and passes it back with ``grade-all ... --manual-points
FILE``; summary.csv then has a column per question, ``written`` (their sum) and ``total``
(the automatic score plus the written points), the number an LMS grade file reads. A
question left as handed out gets 0, as nbgrader gives it (nothing to grade), and
``written_status`` says so. Until every written answer of a student has its points,
``written`` and ``total`` stay blank and ``written_status`` says how many points are
graded by hand and not included: an automatic score never counts them silently as zero.
"""

from __future__ import annotations

import csv
import html
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ...assignments import Assignment
from ...author.lesson import Question, questions
from ...author.notebook import ANSWER_STUB
from ...errors import KitError
from ...public.loader import NOTEBOOK_BYTES, SubmissionError, parse_notebook, read_text
from ...results.atomic import write_atomically
from ...results.scoring import exact, points_text
from ...results.text import clean, clean_name, csv_cell, csv_document
from ..html_page import html_page
from ..intake import Intake
from .markdown_html import markdown_html

PAGE = "answers.html"
TEMPLATE = "manual_points_template.csv"
ANSWER_LIMIT = 20_000  # characters of one answer shown; the rest is cut, and said so
POINTS_LIMIT = 24  # characters of one cell of points: longer is no number a person typed
# Points as a person or a spreadsheet writes them: a decimal, its exponent (if any) of at
# most two digits, so that its exact value is quick to compute (1e-99999999 is not).
POINTS = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?")
NO_NOTEBOOK = "no notebook: the submission graded was not a notebook, or could not be read"


@dataclass(frozen=True)
class Answer:
    """What one student wrote for one question: the text, or why there is none."""

    text: str = ""
    missing: str = ""  # why there is no answer ("" when there is one)


@dataclass
class Written:
    """The written questions of an assignment and the points a person gave each student's answers."""

    questions: list[Question]
    points: dict[str, dict[str, Fraction]] = field(default_factory=dict)  # student key -> question id -> points
    unanswered: dict[str, set[str]] = field(default_factory=dict)  # student key -> question ids with no answer: 0

    def score_unanswered(self, answers: dict[str, dict[str, Answer]]) -> None:
        """0 for every question a student left as it was handed out (or has no notebook for), as nbgrader gives
        it: nothing to grade. A point a person gave stays."""
        for key, by_id in answers.items():
            for question in self.questions:
                given = self.points.setdefault(key, {})
                if by_id[question.id].missing and question.id not in given:
                    given[question.id] = Fraction(0)
                    self.unanswered.setdefault(key, set()).add(question.id)

    @property
    def top(self) -> Fraction:
        return sum((exact(q.points) for q in self.questions), Fraction(0))

    def head(self) -> list[str]:
        """summary.csv's columns for the written answers, and the total an LMS reads."""
        ids = [q.id for q in self.questions]
        return [*ids, "written", "written_status", "total"] if ids else ["total"]

    def row(self, key: str, score: float | None) -> list[str]:
        """The columns of head() for one student, whose automatic score (results.json's) is ``score``, or None."""
        automatic = None if score is None else exact(score)
        if not self.questions:
            return [points_text(automatic) if automatic is not None else ""]
        given = self.points.get(key, {})
        cells = [points_text(given[q.id]) if q.id in given else "" for q in self.questions]
        waiting = [q for q in self.questions if q.id not in given]
        if waiting:
            hand = points_text(sum((exact(q.points) for q in waiting), Fraction(0)))
            status = f"{hand} points graded by hand, not included: {len(waiting)} of {len(self.questions)} written answers have no points yet"
            return [*cells, "", status, ""]
        written = sum(given.values(), Fraction(0))
        total = points_text(automatic + written) if automatic is not None else ""
        blank = len(self.unanswered.get(key, ()))
        status = "graded by hand, included in total" + (f" ({blank} not answered: 0)" if blank else "")
        if blank == len(self.questions):
            status = "no written answer: 0, included in total"
        return [*cells, points_text(written), status, total]


def written_of(assignment: Assignment, intake: Intake, manual_points: Path | None) -> Written:
    """The assignment's written questions, with the points of ``manual_points`` (checked against the class)."""
    found = questions(assignment)
    if manual_points is None or not found:
        return Written(found)
    return Written(found, read_manual_points(Path(manual_points), found, {s.key: s.name for s in intake.submissions}))


def gradescope_note(assignment: Assignment) -> str:
    """What an instructor must do on Gradescope for the written answers: '' when there are none."""
    if not assignment.written:
        return ""
    listed = ", ".join(
        f"{answer} ({points_text(exact(points))} points)" for answer, points in assignment.written.items()
    )
    return (
        f"The notebook's {len(assignment.written)} written answers are graded by hand, not by this autograder: its score "
        f"never includes their {points_text(sum((exact(p) for p in assignment.written.values()), Fraction(0)))} points. "
        f"On Gradescope, add a manually graded question for each to the assignment's outline: {listed}.\n"
    )


# ------------------------------------------------------------------ collecting the answers


def answers_of(notebook: Path, asked: list[Question]) -> dict[str, Answer]:
    """Each question's answer in a graded notebook, found by its cell's nbgrader grade_id (or cell id)."""
    try:
        cells = parse_notebook(read_text(notebook, NOTEBOOK_BYTES), notebook.name)  # bounded, as the grading reads it
    except (OSError, SubmissionError):
        return {q.id: Answer(missing=NO_NOTEBOOK) for q in asked}
    found: dict[str, list[str]] = {}
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        metadata = cell.get("metadata")
        nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        answer_id = (nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None) or cell.get("id")
        source = cell.get("source", "")
        text = "".join(str(line) for line in source) if isinstance(source, list) else str(source)
        found.setdefault(str(answer_id), []).append(text)
    answers = {}
    for question in asked:
        texts = [t for t in found.get(question.id, []) if t.strip() and t.strip() != ANSWER_STUB]
        if question.id not in found:
            answers[question.id] = Answer(missing="the notebook has no cell for this answer (deleted?)")
        elif not texts:
            answers[question.id] = Answer(missing="not answered (the cell still says YOUR ANSWER HERE)")
        else:
            answers[question.id] = Answer(text="\n\n".join(texts))
    return answers


def class_answers(intake: Intake, out: Path, asked: list[Question]) -> dict[str, dict[str, Answer]]:
    """Every student's answers, from the notebook grade-all kept in out/students/<key>/submission.ipynb."""
    return {s.key: answers_of(out / "students" / s.key / "submission.ipynb", asked) for s in intake.submissions}


def write_answers(assignment: Assignment, intake: Intake, out: Path, written: Written) -> list[Path]:
    """answers.html and manual_points_template.csv in out/; nothing when the assignment asks no written answer."""
    if not written.questions:
        return []
    answers = class_answers(intake, out, written.questions)
    names = {s.key: s.name for s in intake.submissions}
    written.score_unanswered(answers)
    page, template = out / PAGE, out / TEMPLATE
    write_atomically(page, answers_page(assignment, written, answers, names))
    write_atomically(template, points_template(written.questions, answers, names))
    return [page, template]


# ------------------------------------------------------------------ the TA's page


STYLE = """
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }
.question { background: #f4f6fa; border-left: 4px solid #4a6fa5; padding: 0.5em 1em; }
.question table { border-collapse: collapse; }
.question th, .question td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
.guide { background: #f3f7f0; border-left: 4px solid #5a8f4e; padding: 0.5em 1em; }
.text { white-space: pre-wrap; font-family: inherit; }
.answer { border-top: 1px solid #ddd; padding: 0.6em 0; }
.who { font-weight: bold; }
.missing { color: #888; font-style: italic; }
nav a { margin-right: 1em; }
"""


def answers_page(
    assignment: Assignment, written: Written, answers: dict[str, dict[str, Answer]], names: dict[str, str]
) -> str:
    """One HTML page: each question in turn, as the notebook shows it, with every student's answer to it, escaped."""
    e = html.escape
    total = points_text(written.top)
    parts = [
        f"<h1>Written answers: {e(assignment.title)}</h1>",
        f"<p>{len(answers)} students, {len(written.questions)} questions, {total} points graded by hand. "
        f"Write the points into a copy of <code>{TEMPLATE}</code> (one row per student, a column per question) "
        f"and run <code>grade-all</code> again with <code>--manual-points FILE</code>: <code>summary.csv</code> "
        "then counts them in <code>total</code>.</p>",
        "<nav>" + "".join(f'<a href="#{e(q.id)}">{e(q.id)}</a>' for q in written.questions) + "</nav>",
    ]
    for question in written.questions:
        answered = sum(1 for by_id in answers.values() if not by_id[question.id].missing)
        parts += [
            f'<h2 id="{e(question.id)}">{e(question.id)} ({points_text(exact(question.points))} points, '
            f"{answered} of {len(answers)} answered)</h2>",
            f'<div class="question">{markdown_html(question.prompt)}</div>',
            f'<div class="guide"><b>What to look for</b><div class="text">{e(question.guide)}</div></div>',
        ]
        for key in sorted(answers):
            answer = answers[key][question.id]
            who = f'<div class="who">{e(clean_name(key))} <span class="missing">{e(clean_name(names.get(key, "")))}</span></div>'
            body = (
                f'<div class="text missing">{e(answer.missing)}</div>'
                if answer.missing
                else f'<div class="text">{e(clean(answer.text, ANSWER_LIMIT))}</div>'
            )
            parts.append(f'<div class="answer">{who}{body}</div>')
    return html_page(f"{e(assignment.name)}: written answers", STYLE, parts)


def points_template(asked: list[Question], answers: dict[str, dict[str, Answer]], names: dict[str, str]) -> str:
    """key, name and a column per question: 0 where there is no answer to grade, blank where a person decides.

    The key and the name came from the export: each is an inert cell (results/text.py csv_cell)."""
    rows = [["key", "name", *(q.id for q in asked)]]
    for key in sorted(answers):
        cells = ["0" if answers[key][q.id].missing else "" for q in asked]
        rows.append([csv_cell(key), csv_cell(clean_name(names.get(key, ""))), *cells])
    return csv_document(rows)


# ------------------------------------------------------------------ the TA's points


def read_manual_points(path: Path, asked: list[Question], students: dict[str, str]) -> dict[str, dict[str, Fraction]]:
    """The points a person gave, from a CSV: a ``key`` column, an optional ``name``, a column per question id.

    students: each student's name by key, as the kit has it. A blank cell is an answer not
    graded yet. Comma, semicolon or tab separated (a spreadsheet's export), with '.' or,
    when the separator is not a comma, ',' as the decimal mark. Whatever cannot be read one
    way only is an error that names the file, the line and the fix: an unknown student or
    question, a column twice, a name that is another student's than its key's, a cell
    beyond the last column, a number that is not a short decimal or is out of range, a
    student twice. The template the kit writes is read back as it is, its names made
    inert included.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise KitError(f"--manual-points {path}: cannot read it ({error})") from None
    try:
        dialect = csv.Sniffer().sniff(text.split("\n", 1)[0][:4096], delimiters=",;\t")
        separator = dialect.delimiter
    except csv.Error:
        separator = ","
    rows = _numbered_rows(path, text, separator)
    if not rows:
        raise KitError(f"--manual-points {path}: the file is empty; start from {TEMPLATE} in grade-all's --out folder")
    head = _columns(path, rows[0][1], asked)
    by_id = {q.id: q for q in asked}
    named = _names_to_keys(students)
    points: dict[str, dict[str, Fraction]] = {}
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        where = f"--manual-points {path}, line {line}"
        if any(cell.strip() for cell in row[len(head) :]):
            raise KitError(
                f"{where}: {len(row)} cells, but the first line names {len(head)} columns: a value beyond the last "
                f"column belongs to no question; move it under its question's column or delete it"
            )
        record = dict(zip(head, (cell.strip() for cell in row)))
        key = record.get("key", "")
        if key not in students:
            raise KitError(
                f"{where}: no student has the key {clean_name(key)!r} in this class (the keys are those of summary.csv)"
            )
        _check_name(record.get("name", ""), key, students, named, where)
        if key in points:
            raise KitError(f"{where}: the student {key} has a row already; keep one row per student")
        points[key] = {}
        for answer_id, value in record.items():
            if answer_id in by_id and value:
                points[key][answer_id] = _points(value, by_id[answer_id], separator, where)
    return points


def _numbered_rows(path: Path, text: str, separator: str) -> list[tuple[int, list[str]]]:
    """Each row of the points file with the line it starts on (a quoted cell may hold a newline)."""
    reader = csv.reader(io.StringIO(text), delimiter=separator)
    rows: list[tuple[int, list[str]]] = []
    try:
        while True:
            line = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return rows
            rows.append((line, row))
    except csv.Error as error:
        raise KitError(
            f"--manual-points {path}, line {reader.line_num}: not CSV ({error}); "
            f"start from {TEMPLATE} in grade-all's --out folder"
        ) from None


def _columns(path: Path, first: list[str], asked: list[Question]) -> list[str]:
    """The points file's columns, from its first line: key, name (optional) and question ids, each once."""
    head = [cell.strip() for cell in first]
    ids = [q.id for q in asked]
    unknown = [h for h in head if h not in ids and h not in ("key", "name")]
    if "key" not in head or unknown:
        raise KitError(
            f"--manual-points {path}: the columns must be key, name (optional) and the question ids "
            f"{', '.join(ids)}; {'unknown: ' + ', '.join(clean_name(u, 60) for u in unknown[:10]) if unknown else 'no key column'}. "
            f"Start from {TEMPLATE} in grade-all's --out folder"
        )
    twice = [column for column, n in Counter(head).items() if n > 1]
    if twice:
        raise KitError(
            f"--manual-points {path}, line 1: the column {twice[0]} is there {Counter(head)[twice[0]]} times, and only "
            f"one of them can count: keep one column per question (delete the copies)"
        )
    return head


def _plain(name: str) -> str:
    """A name as compared: what a spreadsheet may have changed undone (the leading ' of an inert cell, spacing, case, width)."""
    text = unicodedata.normalize("NFKC", name).strip()
    return " ".join(text.removeprefix("'").split()).casefold()


def _forms(name: str) -> set[str]:
    """A student's name as the kit has it, as the template wrote it (on one line, made inert), compared plain."""
    return {_plain(name), _plain(clean_name(name)), _plain(csv_cell(clean_name(name)))}


def _names_to_keys(students: dict[str, str]) -> dict[str, list[str]]:
    named: dict[str, list[str]] = {}
    for key, name in students.items():
        for form in _forms(name):
            named.setdefault(form, []).append(key)
    return named


def _check_name(given: str, key: str, students: dict[str, str], named: dict[str, list[str]], where: str) -> None:
    """A row's name, when it has one, is the name of the student its key is: never another student's."""
    if not given or _plain(given) in _forms(students[key]):
        return
    others = [k for k in named.get(_plain(given), []) if k != key]
    whose = f", the name of the key {others[0]}" if others else ""
    raise KitError(
        f"{where}: the key {key} is {clean_name(students[key], 80)!r} in this class, but the row's name is "
        f"{clean_name(given, 80)!r}{whose}: a row's key and name must be the same student. Correct whichever is "
        f"wrong (the key decides whose points these are), or empty the name cell"
    )


def _points(value: str, question: Question, separator: str, where: str) -> Fraction:
    number = value.replace(",", ".") if separator != "," and value.count(",") == 1 and "." not in value else value
    if len(number) > POINTS_LIMIT or not POINTS.fullmatch(number):
        raise KitError(
            f"{where}: {question.id} is {clean(value, 40)!r}, not a number of points: write a decimal such as 1.5"
        )
    given = Fraction(number)  # quick: at most POINTS_LIMIT digits, an exponent of two
    if not 0 <= given <= exact(question.points):
        raise KitError(
            f"{where}: {question.id} is {clean(value, 40)}, outside 0 to {points_text(exact(question.points))} points"
        )
    return given
