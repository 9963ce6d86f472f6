"""Does text from a submission reach every Markdown, HTML and plain-text surface as text, and never as markup?

A hostile text (newlines, ``|``, backticks, ``#``, ``<script>``, ``](javascript:``,
ANSI codes, list and quote markers) is put wherever a submission's text can go: file
names, loading notes, check messages and titles, the reason it was not graded. Each
surface is rendered twice, with that text and with plain words in its place, and
parsed with a real Markdown parser (mistune, which nbconvert uses) or Python's HTML
parser: both renders must have the same structure (the headings, tables, links, lists
and code blocks the kit wrote, and no other), and the hostile one must show the text.
"""

import csv
import io
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from html.parser import HTMLParser

import mistune
import pytest

from autograder import KIT_ROOT, assignments
from autograder.deliver.class_view.report import report_text
from autograder.deliver.feedback import render_html, render_markdown
from autograder.deliver.routes import classroom
from autograder.results.read import read_results
from autograder.results.summaries import markdown_not_graded, markdown_summary
from autograder.results.text import (
    clean,
    csv_cell,
    csv_document,
    html_text,
    md_block,
    md_name,
    md_text,
    one_line,
    opens_a_formula,
)
from autograder.results.write import gradescope_json, not_graded_json, self_checks_markdown

from ..deliver.students import student_report
from .formulas import FORMULAS, HONEST, runs_as_formula

HOSTILE = (
    "x\n### mha: 40 of 40 points\n\n| exercise | points |\n|---|---|\n| `tokenize` | 2 of 2 |\n"
    "```\n# injected heading\n~~~\n<script>alert(1)</script> [click](javascript:alert(1)) "
    "![i](javascript:alert(2)) <img src=x onerror=alert(3)> &lt;b&gt; \x1b[2J\x1b[31mred\x1b[0m *em* __strong__ "
    "~~gone~~ https://evil.example www.evil.example\n1. one\n2) two\n- item\n+ more\n> quote\n===\n---\n    indented\n\\`"
)
BENIGN = "plain words"
SHOWN = ("<script>alert(1)</script>", "](javascript:alert(1))", "\\x1b[2J", "### mha: 40 of 40 points")

MARKDOWN = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough", "url"])
STRUCTURE = {
    "heading",
    "table",
    "table_row",
    "link",
    "image",
    "inline_html",
    "block_html",
    "list",
    "list_item",
    "block_quote",
    "thematic_break",
    "block_code",
    "codespan",
    "emphasis",
    "strong",
    "strikethrough",
}


def markdown_structure(text: str) -> tuple[Counter, list[str]]:
    """How many of each structural element a Markdown text has, and the text of its headings."""
    counts, headings = Counter(), []

    def walk(tokens):
        for token in tokens:
            if token["type"] in STRUCTURE:
                counts[token["type"]] += 1
            if token["type"] == "heading":
                headings.append(plain(token.get("children", [])))
            walk(token.get("children", []))

    walk(MARKDOWN(text))
    return counts, headings


def plain(tokens) -> str:
    return "".join(t.get("raw", "") if "raw" in t else plain(t.get("children", [])) for t in tokens)


def markdown_text(text: str) -> str:
    """All the text a reader sees in a Markdown document (code included)."""
    seen = []

    def walk(tokens):
        for token in tokens:
            if "raw" in token:
                seen.append(token["raw"])
            walk(token.get("children", []))

    walk(MARKDOWN(text))
    return " ".join(seen)


def same_markdown(hostile: str, benign: str, shown=SHOWN) -> None:
    counts, headings = markdown_structure(hostile)
    assert counts == markdown_structure(benign)[0], "the hostile text added or removed markup"
    assert not counts["link"] + counts["image"] + counts["inline_html"] + counts["block_html"]
    assert "\x1b" not in hostile
    assert not [h for h in headings if h.startswith(("mha: 40 of 40", "injected"))], headings
    seen = " ".join(markdown_text(hostile).split())
    for text in shown:
        assert " ".join(text.split()) in seen, f"{text!r} is not shown as text"


class Tags(HTMLParser):
    def __init__(self, page: str):
        super().__init__()
        self.tags, self.attributes, self.text = Counter(), [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        self.attributes += [value or "" for _, value in attrs]

    def handle_data(self, data):
        self.text.append(data)


def same_html(hostile: str, benign: str) -> None:
    read = Tags(hostile)
    assert read.tags == Tags(benign).tags, "the hostile text added or removed elements"
    assert "script" not in read.tags and "img" not in read.tags
    assert not [a for a in read.attributes if "javascript:" in a or "alert" in a]
    assert "\x1b" not in hostile
    seen = "".join(read.text)
    for text in SHOWN:
        assert text in seen, f"{text!r} is not shown as text"


# ------------------------------------------------------------------ the functions


@pytest.mark.parametrize("value", [HOSTILE, "- a", "1. x", "3) y", "=", "+", "> q", "#", "a|b", "\\", "`"])
def test_md_text_renders_as_the_same_characters_and_nothing_else(value):
    tokens = MARKDOWN(md_text(value))
    assert [t["type"] for t in tokens] == ["paragraph"]
    assert [t["type"] for t in tokens[0]["children"]] == ["text"] * len(tokens[0]["children"])
    assert plain(tokens[0]["children"]) == " ".join(clean(value).split())


def test_md_name_and_md_block():
    assert md_name("split_heads") == "`split_heads`"
    assert md_name("x|y") == "x\\|y"
    block = md_block("a\n````\n# b")
    tokens = MARKDOWN(block)
    assert [t["type"] for t in tokens] == ["block_code"] and tokens[0]["raw"] == "a\n````\n# b\n"


def test_one_line_and_html_text():
    assert one_line("a\nb\tc\x1b") == "a\\nb\\tc\\x1b"
    assert html_text("<a href='x'>&</a>\x1b") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;\\x1b"


# ------------------------------------------------------------------ every surface


def read_student(text: str):
    """The results of the student of deliver/students.py, every text of theirs replaced by ``text``, read back."""
    return read_results(gradescope_json(student_report(text)))


def test_feedback_md_shows_a_hostile_text_as_text():
    for show_hidden in (False, True):
        hostile = render_markdown(read_student(HOSTILE), student=HOSTILE, show_hidden=show_hidden)
        benign = render_markdown(read_student(BENIGN), student=BENIGN, show_hidden=show_hidden)
        same_markdown(hostile, benign)


def test_feedback_html_shows_a_hostile_text_as_text():
    for show_hidden in (False, True):
        hostile = render_html(read_student(HOSTILE), student=HOSTILE, show_hidden=show_hidden)
        benign = render_html(read_student(BENIGN), student=BENIGN, show_hidden=show_hidden)
        same_html(hostile, benign)


def test_feedback_of_a_submission_not_graded_shows_its_reason_as_text():
    hostile, benign = not_graded_json(HOSTILE, "mha"), not_graded_json(BENIGN, "mha")
    read_hostile, read_benign = read_results(hostile), read_results(benign)
    same_markdown(render_markdown(read_hostile, student=HOSTILE), render_markdown(read_benign, student=BENIGN))
    same_html(render_html(read_hostile, student=HOSTILE), render_html(read_benign, student=BENIGN))
    for results in (hostile, benign):
        results["score"] = 1.0  # graded after all, with the kit's own failures to report
        results["extra_data"].update(status="error", internal_errors=[results["extra_data"]["error"]])
    read_hostile, read_benign = read_results(hostile), read_results(benign)
    same_markdown(render_markdown(read_hostile), render_markdown(read_benign))
    same_html(render_html(read_hostile), render_html(read_benign))


def test_gradescopes_markdown_output_shows_a_hostile_text_as_text():
    """The self-checks' test is the one output the kit gives Gradescope as Markdown ("md")."""
    hostile, benign = student_report(HOSTILE), student_report(BENIGN)
    same_markdown(self_checks_markdown(hostile), self_checks_markdown(benign))
    test = gradescope_json(hostile)["tests"][0]
    assert test["output_format"] == "md" and test["output"] == self_checks_markdown(hostile)
    assert all(t["output_format"] == "text" for t in gradescope_json(hostile)["tests"][1:])


@pytest.mark.slow
def test_the_grade_commands_job_summary_shows_a_hostile_file_name_as_text(tmp_path):
    """`grade --markdown` (for $GITHUB_STEP_SUMMARY) on a file whose name draws a heading and a table."""
    # a file name holds anything but "/" and NUL, in 255 bytes
    name = "x\n### mha: 40 of 40 points\n| a | b |\n|---|---|\n| `t` | 2 |\n<script>alert(1)<\\script> [c](javascript:x) \x1b[2J.pdf"
    (tmp_path / name).write_text("not a notebook")
    summary = tmp_path / "summary.md"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(tmp_path / name), "-a", "mha", "--out", str(tmp_path / "out"),
         "--markdown", str(summary)],
        capture_output=True, text=True, cwd=KIT_ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    text = summary.read_text()
    assert "### mha: not graded" in text.splitlines()
    benign = markdown_not_graded(f"{BENIGN}.pdf: a submission is an .ipynb notebook, a .py file or a folder", "mha")
    same_markdown(
        text, benign, ("<script>alert(1)<\\script>", "](javascript:x)", "\\x1b[2J", "### mha: 40 of 40 points")
    )


def test_the_grade_commands_points_table_is_escaped():
    """The graded summary holds the kit's names and titles only; a title that looked like markup stays text."""
    hostile, benign = student_report(HOSTILE), student_report(BENIGN)
    same_markdown_structure = (
        markdown_structure(markdown_summary(hostile))[0] == markdown_structure(markdown_summary(benign))[0]
    )
    assert same_markdown_structure


def test_the_classroom_job_summary_shows_a_hostile_text_as_text():
    points = {"tokenize": 2.0, "encode": 3.0}
    hostile, benign = not_graded_json(HOSTILE, "mha"), not_graded_json(BENIGN, "mha")
    same_markdown(
        classroom.markdown_points(read_results(hostile), points=points),
        classroom.markdown_points(read_results(benign), points=points),
    )
    for show_hidden in (False, True):
        graded = [gradescope_json(student_report(odd)) for odd in (HOSTILE, BENIGN)]
        for results, odd in zip(graded, (HOSTILE, BENIGN)):
            for test in results["tests"]:
                test["name"] = odd  # and the names, which the kit writes, as if a test's name were the student's
        texts = [classroom.markdown_points(read_results(results), show_hidden=show_hidden) for results in graded]
        counts, headings = markdown_structure(texts[0])
        assert counts == markdown_structure(texts[1])[0]
        assert not counts["link"] + counts["inline_html"] and len(headings) == 1 and "\x1b" not in texts[0]


def test_the_class_report_keeps_a_hostile_name_on_its_line():
    mha = assignments.get("mha")
    figures = {"totals": [], "full_marks": {}, "mistakes": Counter(), "max_score": Fraction(40), "students": 0}
    texts = [
        report_text(mha, figures, {odd: ("not graded", f"{odd}: not a notebook")}, [(odd, odd)])
        for odd in (HOSTILE, BENIGN)
    ]
    assert len(texts[0].splitlines()) == len(texts[1].splitlines())
    assert "\x1b" not in texts[0] and "<script>alert(1)</script>" in texts[0]


# ------------------------------------------------------------------ CSV


@pytest.mark.parametrize("formula", FORMULAS, ids=ascii)
def test_csv_cell_makes_every_formula_inert(formula):
    """Does every cell a spreadsheet could run (OWASP's = + - @, tab, CR, LF, after spaces, Unicode spaces or
    invisible characters, and the full-width and other forms that normalise to them) come back after a ', on one
    line, with its text otherwise kept?"""
    assert runs_as_formula(formula) and opens_a_formula(formula)  # the test's list holds what it claims
    cell = csv_cell(formula)
    assert cell == "'" + one_line(formula, 1000) and not runs_as_formula(cell)


@pytest.mark.parametrize("honest", HONEST, ids=ascii)
def test_csv_cell_keeps_an_honest_value(honest):
    """Is a name, an id or an email no spreadsheet runs left exactly as it was?"""
    assert not runs_as_formula(honest) and csv_cell(honest) == honest


def test_csv_cell_shows_what_rewrites_a_terminal_and_bounds_the_text():
    """Are escape codes shown as text (a control character first is made inert too), a number from outside made
    inert like any text, and a megabyte cut to the limit (still inert)?"""
    assert csv_cell("\x1b[2J") == "'\\x1b[2J" and csv_cell("a\x1b[2J") == "a\\x1b[2J"
    assert csv_cell(None) == "" and csv_cell(-3) == "'-3"
    assert csv_cell("=" + "x" * 10**6).startswith("'=x") and len(csv_cell("=" + "x" * 10**6)) < 1100


def test_csv_document_quotes_every_field_so_no_separator_starts_a_cell():
    """Read back with the csv module, is each inert cell what was written; read as a spreadsheet set to split on
    ';' or a tab would (OWASP's =1+2";=1+2), does no piece of a cell start a formula?"""
    cells = [csv_cell(f) for f in FORMULAS] + [csv_cell("Bob;=1+1"), csv_cell("Bob\t=1+1"), csv_cell("Bob,=1+1")]
    text = csv_document([["name", "points"], *([cell, "40"] for cell in cells)])
    assert list(csv.reader(io.StringIO(text))) == [["name", "points"], *([cell, "40"] for cell in cells)]
    assert all(line.startswith('"') and line.endswith('"') for line in text.splitlines())
    for separator in (";", "\t", " "):
        for row in csv.reader(io.StringIO(text), delimiter=separator):
            assert not any(runs_as_formula(cell) for cell in row), (separator, row)


def test_every_csv_the_kit_writes_goes_through_csv_cell():
    """Does no module but results/text.py write CSV itself, and does each that writes a CSV make its cells inert?"""
    writers = []
    for path in sorted((KIT_ROOT / "autograder").rglob("*.py")):
        source = path.read_text()
        name = path.relative_to(KIT_ROOT).as_posix()
        if name != "autograder/results/text.py":
            assert not re.search(r"csv\.(writer|DictWriter)\(", source), f"{name} writes CSV without csv_document"
        if "csv_document(" in source and name != "autograder/results/text.py":
            writers.append(name)
            assert "csv_cell(" in source, f"{name} writes a CSV without making its cells inert"
    assert writers == [
        "autograder/deliver/class_view/similarity.py",
        "autograder/deliver/grade_all/answers.py",
        "autograder/deliver/grade_all/summary.py",
        "autograder/deliver/routes/lms_grades.py",
    ]
