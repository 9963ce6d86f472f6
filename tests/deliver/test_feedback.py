"""Does a student's feedback say what they earned and why, safely, in Markdown and in a browser?

The unit tests feed render_html and render_markdown results as the kit writes them,
hostile ones included (a message quoting a student's <script>, terminal control
characters, a token of a million characters); the browser test opens the page in
headless Chromium, as a student would, and reads both its DOM and a screenshot.
"""

import os
import re
import shutil
import subprocess
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.deliver.feedback import MESSAGE_LIMIT, render_html, render_markdown, write_feedback
from autograder.results.files import gradescope_json
from autograder.results.model import CheckSummary, Report
from autograder.results.text import CUT

CHROMIUM = Path("/usr/bin/chromium")

POINTS = {
    "tokenize": 2,
    "build_vocab": 2,
    "encode": 3,
    "Embeddings": 2,
    "PositionalEncoding": 4,
    "split_heads": 3,
    "combine_heads": 3,
    "scaled_dot_product_attention": 6,
    "make_padding_mask": 2,
    "make_causal_mask": 2,
    "MultiHeadAttention": 8,
    "display_attention": 3,
}
MISTAKES = {
    "positional_cosine_exponent_off_by_one": "The cosine of feature 2i+1 uses the exponent (2i+1)/d_model: "
    "both features of a pair share the exponent 2i/d_model.",
    "split_heads_without_transpose": "Reshaping straight to (batch, n_heads, seq, d_key) mixes tokens into heads: "
    "reshape to (batch, seq, n_heads, d_key) first, then swap axes 1 and 2.",
    "mask_inverted": "The mask is inverted: block the keys where the mask is 0 (False), not where it is 1.",
}
TOTAL = 32.87  # 40 less 2.63 (PositionalEncoding), 3 (split_heads) and 1.5 (attention)
HIDDEN_PE = "failed 5 of 5 cases. First failure [d_model 8, 10 positions]: table at index (0, 1, 1): got 0.950415, expected 0.540302"


def check(exercise, title, score, top, kind, output="", mistakes=(), cases=None):
    visibility = "visible" if kind == "visible" else "after_due_date"
    cases = cases or ([1, 1] if score >= top else [0, 1])
    return {
        "name": f"{exercise}: {title}",
        "score": score,
        "max_score": top,
        "status": "passed" if score >= top else "failed",
        "output": output or f"passed ({cases[1]} case{'' if cases[1] == 1 else 's'})",
        "visibility": visibility,
        "tags": [exercise],
        "extra": {"kind": kind, "cases": list(cases), "mistakes": list(mistakes)},
    }


def partial_results() -> dict:
    """A realistic graded notebook: nine exercises right, two with part of their points, one with none, a note."""
    wrong = {
        "PositionalEncoding": [
            check("PositionalEncoding", "matches the notebook's example for PositionalEncoding", 1.0, 1.0, "visible"),
            check(
                "PositionalEncoding",
                "stores pe[0, pos, 2i] = sin(pos / 10000^(2i/d)), pe[0, pos, 2i+1] = cos(same)",
                0.0,
                2.0,
                "hidden",
                HIDDEN_PE,
                ["positional_cosine_exponent_off_by_one"],
                [0, 5],
            ),
            check(
                "PositionalEncoding",
                "returns x + pe[:, :seq] in eval mode",
                0.37,
                1.0,
                "hidden",
                "failed 4 of 5 cases: values differ",
                ["positional_cosine_exponent_off_by_one"],
                [1, 5],
            ),
        ],
        "split_heads": [
            check(
                "split_heads",
                "gives (batch, n_heads, seq, d_key) with head h holding features h*d_key up to (h+1)*d_key",
                0.0,
                0.75,
                "visible",
                "heads[0, 1, 0]: got 4.0, expected 1.0\nThis looks like a known mistake.",
                ["split_heads_without_transpose"],
                [0, 2],
            ),
            check(
                "split_heads",
                "matches the reference on split_heads's hidden cases",
                0.0,
                2.25,
                "hidden",
                "failed 6 of 6 cases",
                ["split_heads_without_transpose"],
                [0, 6],
            ),
        ],
        "scaled_dot_product_attention": [
            check(
                "scaled_dot_product_attention",
                "matches the notebook's example for scaled_dot_product_attention",
                1.5,
                1.5,
                "visible",
            ),
            check(
                "scaled_dot_product_attention",
                "gives blocked keys (mask 0 or False) no weight",
                3.0,
                4.5,
                "hidden",
                "failed 2 of 6 cases: weights differ where the mask is 0",
                ["mask_inverted"],
                [4, 6],
            ),
        ],
    }
    tests = []
    for name, top in POINTS.items():
        tests += wrong.get(name) or [
            check(name, f"matches the notebook's example for {name}", top / 4, top / 4, "visible"),
            check(
                name,
                f"matches the reference on {name}'s hidden cases",
                top * 3 / 4,
                top * 3 / 4,
                "hidden",
                cases=[6, 6],
            ),
        ]
    by_name = {}
    for test in tests:
        entry = by_name.setdefault(test["tags"][0], {"score": 0.0, "max_score": 0.0})
        entry["score"] = round(entry["score"] + test["score"], 4)
        entry["max_score"] = round(entry["max_score"] + test["max_score"], 4)
    score = round(sum(e["score"] for e in by_name.values()), 4)
    return {
        "score": score,
        "output": f"mha: {score} of 40 points",
        "tests": tests,
        "extra_data": {
            "assignment": "mha",
            "status": "graded",
            "submission": "mha.ipynb",
            "max_score": 40.0,
            "by_name": by_name,
            "mistakes": sorted(MISTAKES),
            "mistake_messages": MISTAKES,
            "notes": ["<cell 3> raised NameError: name 'plt' is not defined; loading went on after it"],
            "isolation": "hardened",
            "device": "cpu",
            "hidden_summary": {
                name: {
                    "cases": 6,
                    "titles": [f"matches the reference on {name}'s hidden cases", f"handles {name}'s edge cases"],
                }
                for name in POINTS
            },
        },
    }


class Cells(HTMLParser):
    """The text of each table row's cells, and of the element with id="total"."""

    def __init__(self, page: str):
        super().__init__()
        self.rows, self.total, self._cell, self._in_total = [], "", None, False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        self._in_total = self._in_total or ("id", "total") in attrs

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
    return [(row[0], row[1], row[3]) for row in Cells(page).rows[1:]]


def exercise_points(name: str) -> str:
    entry = partial_results()["extra_data"]["by_name"][name]
    return f"{entry['score']:g} / {entry['max_score']:g}"


def outside_fences(markdown: str) -> str:
    """The Markdown text outside fenced code blocks (a fence closes only on its own length or longer)."""
    kept, fence = [], None
    for line in markdown.splitlines():
        run = re.match(r"^(`{3,})", line)
        if fence is None and run:
            fence = run.group(1)
        elif fence is not None and run and line.strip() == "`" * len(line.strip()) and len(run.group(1)) >= len(fence):
            fence = None
        elif fence is None:
            kept.append(line)
    assert fence is None, "a code block is left open"
    return "\n".join(kept)


# ------------------------------------------------------------------ escaping


HOSTILE = "<script>alert('x')</script> <img src=x onerror=alert(1)> &lt;b&gt; \x1b[2J\x1b[31mred\x07 \u202eevil\u202c"


def hostile_results() -> dict:
    results = partial_results()
    test = next(t for t in results["tests"] if t["tags"] == ["split_heads"] and t["extra"]["kind"] == "visible")
    test["output"] = HOSTILE + " " + "A" * 1_000_000 + "\n```\n# injected heading\n```"
    test["name"] = "split_heads: <script>alert(2)</script>" + "t" * 50_000
    results["extra_data"]["notes"] = [HOSTILE, "B" * 1_000_000]
    results["extra_data"]["mistake_messages"]["split_heads_without_transpose"] = HOSTILE + "C" * 1_000_000
    results["extra_data"]["by_name"]["<b>bold</b>|pipe"] = {"score": 1, "max_score": 2}
    return results


def test_a_hostile_message_stays_inert_in_html():
    page = render_html(hostile_results(), student="<script>alert(3)</script>", show_hidden=True)
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "&amp;lt;b&amp;gt;" in page  # an entity in a message shows as typed
    assert "\x1b" not in page and "\x07" not in page and "\u202e" not in page
    assert "\\x1b[2J" in page and "\\x07" in page and "\\u202e" in page  # shown, not acted on
    assert CUT in page
    assert len(page) < 80_000, "a million-character message must not make a million-character page"
    assert max(len(run) for run in re.findall(r"A+", page)) <= MESSAGE_LIMIT
    assert "&lt;b&gt;bold&lt;/b&gt;|pipe" in page


def test_a_hostile_message_stays_inert_in_markdown():
    text = render_markdown(hostile_results(), student="<script>alert(3)</script>", show_hidden=True)
    prose = outside_fences(text)
    assert not re.search(r"(?<!\\)<", prose), "outside code blocks, every < is escaped: no tag can start"
    assert "\\<script\\>" in prose  # the student's name and the check's title are escaped
    assert "# injected heading" not in prose, "a message's backticks must not close its code block"
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b[2J" in text
    assert len(text) < 60_000 and CUT in text
    row = next(line for line in text.splitlines() if "bold" in line)
    assert row.count("|") - row.count("\\|") == 5, "a | in a name must not add a table column"


# ------------------------------------------------------------------ what is shown


def test_hidden_messages_only_with_show_hidden():
    results = partial_results()
    for render, title in (
        (render_html, "returns x + pe[:, :seq] in eval mode"),
        (render_markdown, "returns x + pe\\[:, :seq\\] in eval mode"),
    ):
        closed, opened = render(results), render(results, show_hidden=True)
        for text in (closed, opened):
            assert title in text  # a hidden check's title ...
            assert "0.37 / 1" in text  # ... and its points ...
            assert "share the exponent 2i/d" in text  # ... and the explanation of the mistake it names
            assert "heads[0, 1, 0]: got 4.0" in text  # a visible check's message, always
        assert "got 0.950415" not in closed and "got 0.950415" in opened
        assert "shown after the due date" in closed


def test_the_page_gives_the_total_and_each_exercise_in_order():
    results = partial_results()
    page = render_html(results)
    assert results["score"] == TOTAL and Cells(page).total == "32.87"
    table = points_table(page)
    assert [row[0] for row in table] == list(POINTS)
    assert ("PositionalEncoding", "1.37 / 4", "◐ partial") in table and ("split_heads", "0 / 3", "✗ no points") in table
    assert [row[2] for row in table].count("✓ full marks") == 9
    assert "name &#x27;plt&#x27; is not defined" in page  # the note from loading the code
    assert "Known mistake" in page and "mask is inverted" in page
    assert "Hidden checks · 6 cases" in page and "handles split_heads&#x27;s edge cases" in page  # what they cover


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
    for text in (render_html(results), render_markdown(results)):
        assert "Not graded" in text and "not a score of 0" in text
        assert "invalid JSON at line 3" in text
        assert "0 of 40" not in text and "Points per exercise" not in text and "no points" not in text


def test_a_failure_of_the_kit_asks_to_tell_the_instructor():
    results = partial_results()
    results["extra_data"]["internal_errors"] = ["split_heads: the grader raised KeyError('cases')"]
    for text in (render_html(results), render_markdown(results)):
        assert "grading kit itself failed" in text and "tell your instructor" in text
        assert "KeyError(" in text


def test_markdown_structure():
    text = render_markdown(partial_results(), student="Ada")
    lines = text.splitlines()
    assert lines[0] == "# mha feedback for Ada"
    assert "**Total: 32.87 of 40 points (82%)**" in lines
    heads = [line for line in lines if line.startswith("## ")]
    assert heads[:3] == ["## Points per exercise", "## Where points were lost", "## Notes from loading your code"]
    assert heads[3:] == [f"## `{name}`: {exercise_points(name)}" for name in POINTS]
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == "| exercise | points | | result |" and len(table) == 1 + len(POINTS)
    assert all(row.count("|") == 5 for row in table)
    assert [row.split("|")[1].strip() for row in table[1:]] == [f"`{name}`" for name in POINTS]
    assert "| `split_heads` | 0 / 3 | ░░░░░░░░░░ | ✗ no points |" in table
    lost = [line for line in lines if line.startswith("- `")]
    assert (
        lost[0] == "- `PositionalEncoding`: stores pe\\[0, pos, 2i\\] = sin(pos / 10000^(2i/d)), "
        "pe\\[0, pos, 2i+1\\] = cos(same) (hidden check): lost 2 of 2"
    )
    outside_fences(text)  # every code block closes
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_missing_keys_and_the_kits_own_output():
    for results in (
        {},
        {"score": 3},
        {"tests": [{"name": "x"}]},
        {"extra_data": {"by_name": [], "notes": "not a list"}},
    ):
        assert render_html(results) and render_markdown(results)
    report = Report(
        assignment="mha",
        submission="ben.ipynb",
        notes=[],
        order=("tokenize", "encode"),
        checks=[
            CheckSummary(
                "tokenize", "t::a", "lowercases", "hidden", 8, 8, Fraction(2), Fraction(2), "passed (8 cases)"
            ),
            CheckSummary(
                "encode",
                "e::a",
                "pads on the right",
                "hidden",
                3,
                7,
                Fraction(9, 7),
                Fraction(3),
                "failed 4 of 7 cases. First failure: x",
                mistakes=["encode_pads_on_the_left"],
            ),
        ],
    )
    results = gradescope_json(report)  # no hidden_summary, no explanation recorded
    page, text = render_html(results), render_markdown(results)
    assert "1.29 / 3" in page and "| `encode` | 1.29 / 3 |" in text
    assert "failed 4 of 7" not in page and "pads on the right" in page
    assert "encode_pads_on_the_left" in page  # named, though no explanation was recorded


def test_a_near_miss_never_reads_as_full_marks():
    results = {
        "score": 39.9999,
        "extra_data": {
            "max_score": 40,
            "by_name": {"encode": {"score": 2.9999, "max_score": 3}, "tokenize": {"score": 0.0001, "max_score": 2}},
        },
    }
    page, text = render_html(results), render_markdown(results)
    assert points_table(page) == [("encode", "2.9999 / 3", "◐ partial"), ("tokenize", "0.0001 / 2", "◐ partial")]
    assert "**Total: 39.9999 of 40 points (99%)**" in text


def test_write_feedback_writes_both_files_whole(tmp_path):
    folder = tmp_path / "out" / "ada"
    page, text = write_feedback(partial_results(), folder, student="Ada")
    assert (page.name, text.name) == ("feedback.html", "feedback.md")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert text.read_text(encoding="utf-8").startswith("# mha feedback for Ada")
    write_feedback({"extra_data": {"status": "not graded", "error": "late"}}, folder)
    assert "late" in page.read_text(encoding="utf-8")
    assert sorted(p.name for p in folder.iterdir()) == ["feedback.html", "feedback.md"]  # no temporary file left
    assert page.stat().st_mode & 0o777 == 0o644


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
    """A student opens the page: the DOM holds the points, and the screenshot shows the bars."""
    from PIL import Image

    results = partial_results()
    page, _ = write_feedback(results, tmp_path / "ada", student="Ada Lovelace")
    url = page.resolve().as_uri()

    dom = chromium("--dump-dom", url, profile=tmp_path / "profile-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<script" not in dom.stdout.lower()
    assert Cells(dom.stdout).total == "32.87"
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
