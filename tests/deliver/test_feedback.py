"""Does a student's feedback lead with what to do, in Markdown and in a browser, and say only what is so?

The unit tests render results.json as the kit writes it (results/write.py's
gradescope_json, from a report made by the kit's own scoring) for one student who has
what a class has: a cell with a syntax error, a known mistake, an exercise not
started, and full marks on the others. One test grades such a notebook for real; the
browser test opens the page in headless Chromium, as a student would, and reads both
its DOM and a screenshot. Hostile text in every surface: tests/results/test_text.py.
"""

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.deliver.feedback import render_html, render_markdown, write_feedback
from autograder.results.read import read_results
from autograder.results.write import gradescope_json

from .students import POINTS, brief_student, student_results

CHROMIUM = Path("/usr/bin/chromium")
ZERO_ROW = re.compile(r"−0(?![.\d])|\bof 0(?![.\d])")  # "−0 of 0": a check that cost nothing, shown as a loss
FULL_MARKS = [n for n in POINTS if n not in ("encode", "PositionalEncoding", "split_heads")]


class Page(HTMLParser):
    """The text of each table row's cells, the ids of sections in order, and the element with id="total"."""

    def __init__(self, page: str):
        super().__init__()
        self.rows, self.ids, self.total, self._cell, self._in_total = [], [], "", None, False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        if tag in ("section", "details") and "id" in attrs:
            self.ids.append(attrs["id"])
        self._in_total = self._in_total or attrs.get("id") == "total"

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._in_total and tag == "span":
            self._in_total = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_total:
            self.total += data


def points_table(page: str) -> list[tuple[str, str, str]]:
    """(exercise, points, result) per row of the points table."""
    return [(row[0], row[1], row[3]) for row in Page(page).rows[1:]]


def sections(markdown: str, level: str = "## ") -> dict[str, list[str]]:
    """The lines under each heading of a level, by heading."""
    found: dict[str, list[str]] = {}
    current = None
    for line in markdown.splitlines():
        if line.startswith(level):
            current = line[len(level) :]
            found[current] = []
        elif line.startswith("#" * (len(level) - 1) + " ") and len(level) > 3:
            current = None  # a heading of a higher level ends the section
        elif current is not None and line.strip():
            found[current].append(line)
    return found


def html(results: dict, **options) -> str:
    """feedback.html of a results.json's content, read as the kit reads it."""
    return render_html(read_results(results), **options)


def markdown(results: dict, **options) -> str:
    """feedback.md of a results.json's content, read as the kit reads it."""
    return render_markdown(read_results(results), **options)


# ------------------------------------------------------------------ what comes first


def test_the_page_leads_with_points_then_code_that_did_not_run_then_mistakes_then_failed_checks():
    """Are the sections in the order a student acts on them, with the reference list folded away last?"""
    page = Page(html(student_results()))
    assert page.ids == ["points", "did-not-run", "mistakes", "failed", "exercise-5", "exercise-6", "checked"]
    text = markdown(student_results(), student="Ada")
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == [
        "## Points per exercise",
        "## Code that did not run",
        "## Known mistakes in your code",
        "## Checks that failed",
        "## What was checked",
    ]


def test_the_points_table_gives_every_exercise_in_order():
    """Does the table give the total and each exercise's points, an exercise not started saying so?"""
    results = student_results()
    page = html(results)
    assert Page(page).total == "31.2" and results["score"] == 31.2  # 40 less 3, 3 and 2.8
    table = points_table(page)
    assert [row[0] for row in table] == list(POINTS)
    assert ("encode", "0 / 3", "○ not started") in table and ("split_heads", "0 / 3", "✗ no points") in table
    assert ("PositionalEncoding", "1.2 / 4", "◐ partial") in table
    assert [row[2] for row in table].count("✓ full marks") == len(FULL_MARKS)
    assert "| `encode` | 0 / 3 | ░░░░░░░░░░ | ○ not started |" in markdown(results)


def test_a_cell_that_did_not_load_is_named_by_the_exercise_it_defines():
    """Does the loading error name the cell by its exercise, with the error, and does that exercise point to it?"""
    text = markdown(student_results())
    found = sections(text)
    assert found["Code that did not run"][1].startswith(
        "- the cell that defines split\\_heads (code cell 25) raised SyntaxError: '(' was never closed"
    )
    split = sections(text, "### ")["`split_heads`: 0 of 3 points"]
    assert split[0] == "Its cell did not run (see “Code that did not run” above): fix that first."
    assert "Its cell did not run" in html(student_results())


def test_each_named_mistake_comes_with_its_explanation_and_its_exercise():
    text = markdown(student_results())
    assert sections(text)["Known mistakes in your code"] == [
        "- `positional_cosine_exponent_off_by_one` (in `PositionalEncoding`): The cosine of feature 2i+1 uses "
        "the exponent (2i+1)/d\\_model: both features of a pair share the exponent 2i/d\\_model."
    ]
    page = html(student_results())
    assert page.index('id="mistakes"') < page.index("share the exponent 2i/d_model") < page.index('id="failed"')


def test_an_exercise_not_started_is_one_line():
    """Is an exercise whose stub is untouched one line among the failed checks, with none of its checks listed?"""
    text = markdown(student_results())
    failed = sections(text)["Checks that failed"]
    assert [line for line in failed if "encode" in line] == [
        "- `encode`: not started: its cell still raises NotImplementedError (0 of 3 points)."
    ]
    assert "### `encode`" not in text.split("## What was checked")[0]
    page = html(student_results()).split('id="checked"')[0]
    assert page.count("encodes the three sentences") == 0 and page.count("pads on the right") == 0


def test_no_row_for_a_check_that_costs_nothing():
    """Do only checks that failed appear before the reference list, none of them as '−0 of 0'?"""
    results = student_results()
    for text in (
        markdown(results).split("## What was checked")[0],
        html(results).split('id="checked"')[0],
    ):
        assert not ZERO_ROW.search(text)
        assert "computes attention itself" not in text  # a gate that passed
        assert "matches the notebook's example" not in text  # visible checks that passed
    failed = sections(markdown(results), "### ")["`PositionalEncoding`: 1.2 of 4 points"]
    assert (
        failed[0]
        == "**−2 of 2** · stores pe\\[0, pos, 2i\\] = sin(...) · 0 of 5 cases passed · details after the due date"
    )
    assert (
        failed[1]
        == "**−0.8 of 1** · returns x + pe\\[:, :seq\\] in eval mode · 1 of 5 cases passed · details after the due date"
    )
    assert failed[2] == "**notebook check** · builds the table for d\\_model 4"


def test_a_failed_gate_says_what_it_cost():
    """A gate carries no points of its own: does its failure say it costs the exercise all of them, not '−0'?"""
    results = student_results()
    assert not [t for t in results["tests"] if t.get("max_score") == 0]  # the gate passed: no test for it
    results["tests"].append(
        {
            "name": "scaled_dot_product_attention: computes attention itself",
            "score": 0.0,
            "max_score": 0.0,
            "status": "failed",
            "output": "your code called torch's scaled_dot_product_attention",
            "visibility": "after_due_date",
            "tags": ["scaled_dot_product_attention"],
            "extra_data": {"kind": "hidden", "cases": [0, 1], "mistakes": []},
        }
    )
    text = markdown(results)
    assert "**all of the exercise's points** · computes attention itself" in text and not ZERO_ROW.search(text)


def test_hidden_messages_only_with_show_hidden():
    results = student_results()
    for render in (html, markdown):
        closed, opened = render(results), render(results, show_hidden=True)
        for text in (closed, opened):
            assert "1.2 / 4" in text  # a hidden check's exercise points ...
            assert "share the exponent 2i/d" in text  # ... and the explanation of the mistake it names
            assert "got 0.995004" in text  # a visible check's message, always
        assert "got 0.950415" not in closed and "got 0.950415" in opened
        assert "details after the due date" in closed and "details after the due date" not in opened


def test_a_failure_said_twice_is_shown_once():
    """When checks of one exercise fail with the same message, is it shown once and referred to after?"""
    results = student_results()
    text = markdown(results, show_hidden=True)
    split = "\n".join(sections(text, "### ")["`split_heads`: 0 of 3 points"])
    assert split.count("your submission does not define split\\_heads") == 0  # fenced, not escaped
    assert split.count("your submission does not define split_heads") == 1
    assert "It failed the same way as the check above." in split


def test_not_graded_says_so_with_the_reason():
    results = {
        "score": 0.0,
        "tests": [],
        "extra_data": {
            "assignment": "mha",
            "status": "not graded",
            "error": "mha.ipynb is not a notebook: invalid JSON at line 3",
            "max_score": 40.0,
            "by_name": {name: {"score": 0, "max_score": top} for name, top in POINTS.items()},
        },
    }
    for text in (html(results), markdown(results)):
        assert "Not graded" in text and "not a score of 0" in text
        assert "invalid JSON at line 3" in text
        assert "0 of 40" not in text and "Points per exercise" not in text and "no points" not in text


def test_a_failure_of_the_kit_asks_to_tell_the_instructor():
    results = student_results()
    results["extra_data"]["internal_errors"] = ["split_heads: the grader raised KeyError('cases')"]
    for text in (html(results), markdown(results)):
        assert "grading kit itself failed" in text and "tell your instructor" in text
        assert "KeyError(" in text


def test_missing_keys_and_damaged_results_still_render():
    for results in (
        {},
        {"score": 3},
        {"tests": [{"name": "x"}]},
        {"tests": ["not a test", {"name": 3, "score": "nan"}], "extra_data": {"by_name": [], "notes": "not a list"}},
        {"score": 1, "extra_data": {"visible_checks": [{"name": ["x"]}, 5], "not_started": "encode"}},
    ):
        assert html(results) and markdown(results)


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


def test_a_near_miss_never_reads_as_full_marks():
    results = {
        "score": 39.9999,
        "extra_data": {
            "max_score": 40,
            "by_name": {"encode": {"score": 2.9999, "max_score": 3}, "tokenize": {"score": 0.0001, "max_score": 2}},
        },
    }
    page, text = html(results), markdown(results)
    assert points_table(page) == [("encode", "2.9999 / 3", "◐ partial"), ("tokenize", "0.0001 / 2", "◐ partial")]
    assert "**Total: 39.9999 of 40 points (99%)**" in text


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


# ------------------------------------------------------------------ in a browser


def chromium(*arguments, profile: Path) -> subprocess.CompletedProcess:
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        *arguments,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"
)
def test_the_page_in_a_browser(tmp_path):
    """A student opens the page: the DOM holds the points and the sections in order, and the screenshot shows the bars."""
    from PIL import Image

    results = student_results()
    page, _ = write_feedback(read_results(results), tmp_path / "ada", student="Ada Lovelace")
    url = page.resolve().as_uri()

    dom = chromium("--dump-dom", url, profile=tmp_path / "profile-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<script" not in dom.stdout.lower()
    read = Page(dom.stdout)
    assert read.total == "31.2"
    assert read.ids[:4] == ["points", "did-not-run", "mistakes", "failed"]
    shown = {name: points for name, points, _ in points_table(dom.stdout)}
    for name, entry in results["extra_data"]["by_name"].items():
        assert shown[name] == f"{round(entry['score'], 2):g} / {entry['max_score']:g}", name

    shot = tmp_path / "feedback.png"
    done = chromium(f"--screenshot={shot}", "--window-size=1000,1400", url, profile=tmp_path / "profile-shot")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    if os.environ.get("FEEDBACK_SCREENSHOT"):  # keep it for a person to look at
        shutil.copy(shot, os.environ["FEEDBACK_SCREENSHOT"])
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == (1000, 1400)
        colours = {colour: count for count, colour in image.convert("RGB").getcolors(1000 * 1400)}
    white = colours.get((255, 255, 255), 0)
    assert 0.4 < white / (1000 * 1400) < 0.97, "the page is blank or a solid block"
    for name, rgb in (("full", (0x1A, 0x7F, 0x37)), ("partial", (0x9A, 0x67, 0x00)), ("zero", (0xCF, 0x22, 0x2E))):
        assert colours.get(rgb, 0) > 200, f"no {name} bar or border is drawn in {rgb}"
    assert not ZERO_ROW.search(dom.stdout), "a row of a check that cost nothing"
