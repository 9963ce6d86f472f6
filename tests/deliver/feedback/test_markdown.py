"""Does feedback.md lead with what to do, say only what is so, and hold no Markdown but its own?

The tests render results.json as the kit writes it (tests/deliver/students.py: one
student with a cell that did not load, a known mistake, an exercise not started and
full marks on the others). Hostile text in every surface: tests/results/test_text.py.
"""

import re

from autograder.deliver.feedback.markdown import render_markdown
from autograder.results.read import read_results
from tests.deliver.students import POINTS, student_results

from .test_page import LINE, ZERO_ROW, late


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


def markdown(results: dict, **options) -> str:
    """feedback.md of a results.json's content, read as the kit reads it."""
    return render_markdown(read_results(results), **options)


# ------------------------------------------------------------------ what comes first


def test_the_sections_come_in_the_order_a_student_acts_on_them():
    """Points, then code that did not run, then known mistakes, then failed checks, and what was checked last?"""
    text = markdown(student_results(), student="Ada")
    assert text.startswith("# mha feedback for Ada\n\n**Total: 31.2 of 40 points (78%)**\n")
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == [
        "## Points per exercise",
        "## Code that did not run",
        "## Known mistakes in your code",
        "## Checks that failed",
        "## What was checked",
    ]


def test_a_late_penalty_is_said_under_the_total_which_is_after_it():
    """Is the total after the late penalty, with the policy's line and the points before it quoted under it, and
    Markdown in the line made inert?"""
    text = markdown(late(), student="Ada")
    assert text.startswith(
        f"# mha feedback for Ada\n\n**Total: 26.5 of 40 points (66%)**\n\n> {LINE} 31.2 points before the penalty, −4.7.\n"
    )
    hostile = markdown(late("\n# x"))
    assert "\n# x" not in hostile and "> \\# x" in hostile  # one line, the heading escaped


def test_the_points_table_gives_every_exercise_in_order():
    """Does the table have a row per exercise, in order, an exercise not started saying so?"""
    text = markdown(student_results())
    rows = sections(text)["Points per exercise"][2:]
    assert [row.split(" | ")[0].removeprefix("| `").rstrip("`") for row in rows] == list(POINTS)
    assert "| `encode` | 0 / 3 | ░░░░░░░░░░ | ○ not started |" in rows
    assert "| `PositionalEncoding` | 1.2 / 4 | ███░░░░░░░ | ◐ partial |" in rows
    assert "| `tokenize` | 2 / 2 | ██████████ | ✓ full marks |" in rows


def test_a_cell_that_did_not_load_is_named_by_the_exercise_it_defines():
    """Does the loading error name the cell by its exercise, with the error, and does that exercise point to it?"""
    text = markdown(student_results())
    found = sections(text)
    assert found["Code that did not run"][1].startswith(
        "- the cell that defines split\\_heads (code cell 25) raised SyntaxError: '(' was never closed"
    )
    split = sections(text, "### ")["`split_heads`: 0 of 3 points"]
    assert split[0] == "Its cell did not run (see “Code that did not run” above): fix that first."


def test_each_named_mistake_comes_with_its_explanation_and_its_exercise():
    """Is each known mistake listed once, with the exercise whose check names it and its explanation?"""
    text = markdown(student_results())
    assert sections(text)["Known mistakes in your code"] == [
        "- `positional_cosine_exponent_off_by_one` (in `PositionalEncoding`): The cosine of feature 2i+1 uses "
        "the exponent (2i+1)/d\\_model: both features of a pair share the exponent 2i/d\\_model."
    ]


def test_an_exercise_not_started_is_one_line():
    """Is an exercise whose stub is untouched one line among the failed checks, with none of its checks listed?"""
    text = markdown(student_results())
    failed = sections(text)["Checks that failed"]
    assert [line for line in failed if "encode" in line] == [
        "- `encode`: not started: its cell still raises NotImplementedError (0 of 3 points)."
    ]
    assert "### `encode`" not in text.split("## What was checked")[0]


def test_no_row_for_a_check_that_costs_nothing():
    """Do only checks that failed appear before the reference list, none of them as '−0 of 0'?"""
    results = markdown(student_results())
    text = results.split("## What was checked")[0]
    assert not ZERO_ROW.search(text)
    assert "computes attention itself" not in text  # a gate that passed
    assert "matches the notebook's example" not in text  # visible checks that passed
    failed = sections(results, "### ")["`PositionalEncoding`: 1.2 of 4 points"]
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
    """Is a hidden check's message in the file only with show_hidden, a visible one's always?"""
    results = student_results()
    closed, opened = markdown(results), markdown(results, show_hidden=True)
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
    text = markdown(results)
    assert "Not graded" in text and "not a score of 0" in text
    assert "invalid JSON at line 3" in text
    assert "0 of 40" not in text and "Points per exercise" not in text and "no points" not in text
    assert "Checks that failed" not in text and "What was checked" not in text


def test_a_failure_of_the_kit_asks_to_tell_the_instructor():
    """Does a failure of the kit itself ask the student to tell the instructor, with the error, before the points?"""
    results = student_results()
    results["extra_data"]["internal_errors"] = ["split_heads: the grader raised KeyError('cases')"]
    text = markdown(results)
    assert "grading kit itself failed" in text and "tell your instructor" in text
    assert "KeyError('cases')" in text
    assert text.index("## The grading kit failed") < text.index("## Points per exercise")


def test_missing_keys_and_damaged_results_still_render():
    """Does a results.json with missing or malformed keys still give a file with its heading?"""
    for results in (
        {},
        {"score": 3},
        {"tests": [{"name": "x"}]},
        {"tests": ["not a test", {"name": 3, "score": "nan"}], "extra_data": {"by_name": [], "notes": "not a list"}},
        {"score": 1, "extra_data": {"visible_checks": [{"name": ["x"]}, 5], "not_started": "encode"}},
    ):
        text = markdown(results)
        assert text.startswith("# Feedback") and text.endswith("\n") and not text.endswith("\n\n"), results


def test_a_near_miss_never_reads_as_full_marks():
    """Does 39.9999 of 40 read with its digits and 99%, not as 40 of 40 (100%)?"""
    results = {
        "score": 39.9999,
        "extra_data": {
            "max_score": 40,
            "by_name": {"encode": {"score": 2.9999, "max_score": 3}, "tokenize": {"score": 0.0001, "max_score": 2}},
        },
    }
    text = markdown(results)
    assert "**Total: 39.9999 of 40 points (99%)**" in text
    assert "| `encode` | 2.9999 / 3 | ██████████ | ◐ partial |" in text
    assert "| `tokenize` | 0.0001 / 2 | ░░░░░░░░░░ | ◐ partial |" in text


# ------------------------------------------------------------------ the file's own rules


def test_every_check_is_listed_last_with_what_the_hidden_checks_also_cover():
    """Does "What was checked" list each check with ✓ or ✗ and its kind, then the hidden titles no check carries?"""
    results = {
        "score": 1,
        "tests": [
            {
                "name": "tokenize: splits on spaces",
                "score": 1,
                "max_score": 1,
                "status": "passed",
                "tags": ["tokenize"],
            },
            {"name": "tokenize: lower-cases", "score": 0, "max_score": 1, "status": "failed", "tags": ["tokenize"]},
        ],
        "extra_data": {
            "max_score": 2,
            "by_name": {"tokenize": {"score": 1, "max_score": 2}},
            "hidden_summary": {
                "tokenize": {"cases": 7, "titles": ["splits on spaces", "lower-cases", "keeps punctuation"]}
            },
        },
    }
    checked = sections(markdown(results), "### ")["`tokenize`"]
    assert checked == [
        "- ✓ splits on spaces (hidden check)",
        "- ✗ lower-cases (hidden check)",
        "- the hidden checks (7 cases) also cover: keeps punctuation",
    ]


def test_no_heading_table_or_link_comes_from_the_results():
    """Is Markdown in a name, a title or a message shown as text, a message fenced beyond its backticks?"""
    results = {
        "score": 0,
        "tests": [
            {
                "name": "tokenize: # heading | cell [link](http://x)",
                "score": 0,
                "max_score": 1,
                "status": "failed",
                "output": "```\n## not a heading\n```",
                "visibility": "visible",
                "tags": ["tokenize"],
            }
        ],
        "extra_data": {"max_score": 1, "by_name": {"tokenize": {"score": 0, "max_score": 1}}},
    }
    text = markdown(results, show_hidden=True)
    outside = re.sub(r"(?ms)^(`{3,})text\n.*?\n\1$", "", text)  # the fenced blocks left out
    assert [line for line in outside.splitlines() if line.startswith("#")] == [
        "# Feedback",
        "## Points per exercise",
        "## Checks that failed",
        "### `tokenize`: 0 of 1 points",
        "## What was checked",
        "### `tokenize`",
    ]
    assert text.count("\\# heading \\| cell \\[link\\](http\\://x)") == 2  # failed, then in what was checked
    assert "````text\n```\n## not a heading\n```\n````" in text


def test_the_details_close_the_file():
    """Are the submission's details the last line, the empty ones left out?"""
    results = {"score": 1, "extra_data": {"max_score": 1, "assignment": "mha", "submission": "ada.ipynb"}}
    assert markdown(results).endswith("---\n\nsubmission: ada.ipynb · assignment: mha\n")
