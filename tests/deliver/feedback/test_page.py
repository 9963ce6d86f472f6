"""Does feedback.html lead with what to do, say only what is so, and work in a browser as a student opens it?

The tests render results.json as the kit writes it (tests/deliver/students.py: one
student with a cell that did not load, a known mistake, an exercise not started and
full marks on the others); the browser test opens the page in headless Chromium and
reads both its DOM and a screenshot. Hostile text in every surface: tests/results/test_text.py.
"""

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.deliver.feedback import write_feedback
from autograder.deliver.feedback.page import render_html
from autograder.results.read import read_results
from tests.deliver.students import POINTS, student_results

CHROMIUM = Path("/usr/bin/chromium")
ZERO_ROW = re.compile(r"−0(?![.\d])|\bof 0(?![.\d])")  # "−0 of 0": a check that cost nothing, shown as a loss
FULL_MARKS = [n for n in POINTS if n not in ("encode", "PositionalEncoding", "split_heads")]
LINE = "Submitted 10 h late (due 2025-02-14 23:59 EST): −10% of the points possible (10 hours started, 1% each)."


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


def html(results: dict, **options) -> str:
    """feedback.html of a results.json's content, read as the kit reads it."""
    return render_html(read_results(results), **options)


# ------------------------------------------------------------------ what comes first


def test_the_page_leads_with_points_then_code_that_did_not_run_then_mistakes_then_failed_checks():
    """Are the page's sections in the order a student acts on them, with the reference list folded away last?"""
    page = Page(html(student_results()))
    assert page.ids == ["points", "did-not-run", "mistakes", "failed", "exercise-5", "exercise-6", "checked"]


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


def test_a_cell_that_did_not_load_is_named_and_its_exercise_points_to_it():
    """Does the page list the loading error first, and does the exercise whose cell raised say so?"""
    page = html(student_results())
    did_not_run = page[page.index('id="did-not-run"') : page.index('id="mistakes"')]
    assert "the cell that defines split_heads (code cell 25) raised SyntaxError" in did_not_run
    split = page[page.index('id="exercise-6"') :].split("</section>")[0]
    assert "split_<wbr>heads" in split and "Its cell did not run" in split


def test_each_named_mistake_comes_with_its_explanation_before_the_failed_checks():
    """Is the known mistake's explanation in its own section, between the loading errors and the failed checks?"""
    page = html(student_results())
    assert page.index('id="mistakes"') < page.index("share the exponent 2i/d_model") < page.index('id="failed"')


def test_an_exercise_not_started_lists_none_of_its_checks():
    """Is an exercise whose stub is untouched one line, none of its checks listed before the reference list?"""
    page = html(student_results()).split('id="checked"')[0]
    assert page.count("encodes the three sentences") == 0 and page.count("pads on the right") == 0
    assert '<span class="name">encode</span>: its cell still raises NotImplementedError' in page


def test_no_row_for_a_check_that_costs_nothing():
    """Do only checks that failed appear before the reference list, none of them as '−0 of 0'?"""
    text = html(student_results()).split('id="checked"')[0]
    assert not ZERO_ROW.search(text)
    assert "computes attention itself" not in text  # a gate that passed
    assert "matches the notebook's example" not in text  # visible checks that passed


def test_hidden_messages_only_with_show_hidden():
    """Is a hidden check's message on the page only with show_hidden, a visible one's always?"""
    results = student_results()
    closed, opened = html(results), html(results, show_hidden=True)
    for text in (closed, opened):
        assert "1.2 / 4" in text  # a hidden check's exercise points ...
        assert "share the exponent 2i/d" in text  # ... and the explanation of the mistake it names
        assert "got 0.995004" in text  # a visible check's message, always
    assert "got 0.950415" not in closed and "got 0.950415" in opened
    assert "details after the due date" in closed and "details after the due date" not in opened


def late(line: str = LINE, deducted: float = 4.7, score: float = 26.5) -> dict:
    """student_results() with the late policy's record: 10% of 47 points taken off 31.2."""
    results = student_results()
    results["extra_data"]["late_penalty"] = {
        "status": "late", "percent": 10.0, "of": "possible", "line": line, "late_seconds": 36000,
        "possible": 47.0, "raw_score": 31.2, "deducted": deducted, "score": score,
    }  # fmt: skip
    return results


def test_a_late_penalty_is_said_under_the_total_which_is_after_it():
    """Does the total read the points after the late penalty, with the policy's line and the points before it
    right under it; does a line with no points taken (a grace period) read alone; is the line escaped?"""
    page = html(late())
    assert Page(page).total == "26.5" and '<span class="pct partial">66%</span>' in page
    said = f'<div class="callout warn" id="late"><p>{LINE} 31.2 points before the penalty, −4.7.</p></div>'
    assert said in page and page.index('id="total"') < page.index(said) < page.index('id="points"')
    graced = html(late("Submitted 5 min after the due date, within the 15 min grace period: no penalty.", 0, 31.2))
    assert Page(graced).total == "31.2" and "grace period: no penalty.</p>" in graced and "before the" not in graced
    hostile = html(late("<script>alert(1)</script>"))
    assert "<script>alert" not in hostile and "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile
    assert 'id="late"' not in html(student_results())


def test_not_graded_says_so_with_the_reason():
    """Does a submission not graded read "Not graded" with its reason, and no score or points table?"""
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
    text = html(results)
    assert "Not graded" in text and "not a score of 0" in text
    assert "invalid JSON at line 3" in text
    assert "0 of 40" not in text and "Points per exercise" not in text and "no points" not in text
    assert 'id="total"' not in text


def test_a_failure_of_the_kit_asks_to_tell_the_instructor():
    """Does a failure of the kit itself come first, asking the student to tell the instructor, with the error?"""
    results = student_results()
    results["extra_data"]["internal_errors"] = ["split_heads: the grader raised KeyError('cases')"]
    text = html(results)
    assert "grading kit itself failed" in text and "tell your instructor" in text
    assert text.index('id="kit-failed"') < text.index('id="points"')
    assert "KeyError(&#x27;cases&#x27;)" in text


def test_missing_keys_and_damaged_results_still_render():
    """Does a results.json with missing or malformed keys still give a whole page?"""
    for results in (
        {},
        {"score": 3},
        {"tests": [{"name": "x"}]},
        {"tests": ["not a test", {"name": 3, "score": "nan"}], "extra_data": {"by_name": [], "notes": "not a list"}},
        {"score": 1, "extra_data": {"visible_checks": [{"name": ["x"]}, 5], "not_started": "encode"}},
    ):
        page = html(results)
        assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>"), results


def test_a_near_miss_never_reads_as_full_marks():
    """Does 2.9999 of 3 read as partial, with its digits, not as 3 of 3 with full marks?"""
    results = {
        "score": 39.9999,
        "extra_data": {
            "max_score": 40,
            "by_name": {"encode": {"score": 2.9999, "max_score": 3}, "tokenize": {"score": 0.0001, "max_score": 2}},
        },
    }
    page = html(results)
    assert points_table(page) == [("encode", "2.9999 / 3", "◐ partial"), ("tokenize", "0.0001 / 2", "◐ partial")]
    assert Page(page).total == "39.9999" and '<span class="pct partial">99%</span>' in page


# ------------------------------------------------------------------ the page's own rules


def test_the_page_needs_nothing_from_outside():
    """Does the page forbid scripts and fetches, inline its style sheet, and hold no script or external link?"""
    page = html(student_results())
    assert "default-src 'none'; style-src 'unsafe-inline'" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page and "<link" not in page
    assert "<style>" in page and ".callout" in page  # page.css, inlined


def test_a_long_identifier_may_wrap_and_any_other_name_is_only_escaped():
    """Does a Python name get wrap points after underscores and before capitals, and any other text none?"""
    results = {
        "score": 0,
        "extra_data": {
            "max_score": 2,
            "by_name": {
                "scaled_dot_product": {"score": 0, "max_score": 1},
                "odd_name <b>x</b>": {"score": 0, "max_score": 1},
            },
        },
    }
    names = [row[0] for row in Page(html(results)).rows[1:]]
    assert names == ["scaled_dot_product", "odd_name <b>x</b>"]
    page = html(results)
    assert "scaled_<wbr>dot_<wbr>product" in page
    assert "odd_name &lt;b&gt;x&lt;/b&gt;" in page and "odd_<wbr>name" not in page
    assert "Multi<wbr>Head<wbr>Attention" in html(student_results())


def test_an_exercise_with_failed_checks_links_to_them():
    """Is an exercise's name in the table a link to its failed checks only where it has some, and started?"""
    page = html(student_results())
    assert '<a class="name" href="#exercise-5">Positional<wbr>Encoding</a>' in page
    assert 'id="exercise-5"' in page
    assert 'href="#exercise-3"' not in page  # encode: not started, one line, nothing to link to
    assert '<span class="name">tokenize</span>' in page and 'href="#exercise-1"' not in page  # full marks


def test_the_bars_are_as_wide_as_the_share():
    """Is each bar's width the exercise's share of its points, capped at the bar's ends?"""
    results = {
        "score": 5,
        "extra_data": {
            "max_score": 4,
            "by_name": {"over": {"score": 5, "max_score": 4}, "third": {"score": 1, "max_score": 3}},
        },
    }
    widths = re.findall(r'<span style="width:([\d.]+)%">', html(results))
    assert widths == ["100.0", "100.0", "33.3"]  # the total, then the two rows


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


@pytest.mark.slow
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
