"""The files a grading writes: results.json (Gradescope's format), junit.xml, a Markdown table.

results.json follows Gradescope's specification, "Autograder Specifications", Output
format (https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format;
its source: github.com/gradescope/autograder_samples, docs/specs.md): top-level
``score``, ``execution_time``, ``output`` with its ``output_format``, ``visibility``,
``stdout_visibility``, ``tests[]`` and ``extra_data``; each test with ``name`` (and
``name_format``), ``score``, ``max_score``, ``status`` ("passed" or "failed"),
``output`` (and ``output_format``: "text", "html", "simple_format", "md" or "ansi"),
``tags``, ``visibility`` ("hidden", "after_due_date", "after_published" or "visible")
and ``extra_data``. tests/results/test_gradescope_format.py holds that specification
as a JSON schema and checks every results.json the kit writes against it.

What a student sees of it:

- One visible test, "Self-checks", first: what the notebook's check cells find,
  in Markdown (``output_format`` "md", every text of the submission escaped or fenced):
  the code that did not run, each exercise whose checks fail with their messages and
  the known mistake the graders name there, and the exercises that pass. It carries no
  points (an informational test, as the specification allows), so a student sees no
  row of 0.0/0.0 before the due date.
- One test per hidden check that carries points, or that failed (a gate: it decides an
  exercise's points without carrying any), named "<exercise>: <what it checks>",
  shown at ``hidden_visibility``; plain text.
- The top-level output in plain text (``output_format`` "text"; Gradescope's default
  there, "simple_format", would render HTML).

The visible checks themselves, and what the feedback files need besides, go in
``extra_data`` (read back by results/read.py). A submission the kit could not grade
(the grader failed, not the student) gets a results.json that says so, with
``extra_data.status`` "not graded" and no score of its own: never a score of 0 that
looks like the student's.

Written answers (graded by hand) are never in a score: results.json says how many points
they hold.
"""

from __future__ import annotations

import json
import os
import tempfile
from fractions import Fraction
from pathlib import Path

from .model import CheckSummary, Report
from .scoring import first_failure, points_json, points_text
from .text import clean, md_block, md_name, md_text

HIDDEN_VISIBILITY = "after_due_date"  # Gradescope shows a hidden check's details after the due date
SELF_CHECKS = "Self-checks"  # the name the visible test starts with
SELF_CHECKS_TAG = "self-checks"  # its tag and extra_data.kind
MESSAGE_LIMIT = 1000  # characters of one message in the self-checks' test
NOT_STARTED_WHY = "its cell still raises NotImplementedError"  # an exercise whose stub is untouched
SAME_FAILURE = "It failed the same way as the check above."

WITHHELD = "The details of this hidden check are not shown here."


def gradescope_json(
    report: Report, hidden_visibility: str = HIDDEN_VISIBILITY, extra: dict | None = None, withhold_hidden: bool = False
) -> dict:
    """results.json's content.

    Gradescope hides the total from students while any test is hidden (after_due_date
    included): with ``hidden_visibility`` other than "visible" the top-level output
    says so instead of listing points. ``withhold_hidden`` shows every test (so the
    total shows at once) but keeps the hidden checks' messages out of the file.
    """
    tests = [self_checks_test(report)] if _visible(report) or report.notes else []
    for check in graded_checks(report):
        tests.append(
            {
                "name": f"{check.name}: {check.title}",
                "name_format": "text",
                "score": points_json(check.score),
                "max_score": points_json(check.max_score),
                "status": check.status,
                "output": WITHHELD if withhold_hidden else clean(check.message),
                "output_format": "text",
                "visibility": hidden_visibility,
                "tags": [check.name],
                "extra_data": {
                    "kind": "hidden",
                    "cases": [check.passed, check.total],
                    "mistakes": check.mistakes,
                    "behaviour": check.behaviour,
                    **({"carried": check.carried} if check.carried else {}),  # the names the reference stood in for
                },
            }
        )
    internal = [f"{c.name}: {c.title}: {clean(c.message, 500)}" for c in report.internal_errors()]
    written = hand_graded(report.assignment)
    return {
        "score": points_json(report.score),
        "execution_time": round(report.seconds, 3),
        "output": summary_text(report) if hidden_visibility == "visible" else graded_text(report),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "assignment": report.assignment,
            "status": "graded",
            "submission": report.submission,
            "entry": report.entry,
            "max_score": points_json(report.max_score),
            "by_name": {
                name: {"score": points_json(s), "max_score": points_json(m)}
                for name, (s, m) in report.by_name().items()
            },
            "not_started": report.unstarted(),
            "mistakes": report.mistakes(),
            "mistake_messages": {m: report.mistake_messages.get(m, "") for m in report.mistakes()},
            "visible_checks": [
                {
                    "name": check.name,
                    "title": check.title,
                    "status": check.status,
                    "output": clean(check.message),
                    "cases": [check.passed, check.total],
                    "mistakes": check.mistakes,
                }
                for check in _visible(report)
            ],
            "notes": [clean(note, 1000) for note in report.notes],
            "isolation": report.isolation,
            "device": report.device,
            "seconds": round(report.seconds, 3),
            "hidden_summary": report.hidden_summary,
            "internal_errors": internal,
            "written": {"points": sum(written.values()), "questions": written, "note": hand_graded_text(written)},
            **(extra or {}),
        },
    }


def graded_checks(report: Report) -> list[CheckSummary]:
    """The hidden checks that carry points or failed: a gate that passed changed nothing, and its 0/0 says nothing."""
    return [check for check in report.hidden if check.max_score > 0 or check.status != "passed"]


def _visible(report: Report) -> list[CheckSummary]:
    return [check for check in report.checks if check.kind == "visible"]


# ------------------------------------------------------------------ the self-checks' test


def self_checks_test(report: Report) -> dict:
    """The one visible test: what the notebook's check cells find, in Markdown, with no points."""
    failing, passing = _self_check_names(report)
    total = len(failing) + len(passing)
    if not failing:
        name = f"{SELF_CHECKS}: all {total} exercises pass their notebook checks"
    else:
        name = f"{SELF_CHECKS}: {len(failing)} of {total} exercises fail their notebook checks"
    return {
        "name": name,
        "name_format": "text",
        "status": "failed" if failing else "passed",
        "output": self_checks_markdown(report),
        "output_format": "md",
        "visibility": "visible",
        "tags": [SELF_CHECKS_TAG],  # a tag of its own: readers take a test's first tag for its exercise
        "extra_data": {"kind": SELF_CHECKS_TAG},
    }


def _self_check_names(report: Report) -> tuple[list[str], list[str]]:
    """(names with a failing visible check, names whose visible checks all pass), in the contract's order."""
    checks = _visible(report)
    names = [name for name in report.by_name() if any(c.name == name for c in checks)]
    failing = [name for name in names if any(c.name == name and c.status != "passed" for c in checks)]
    return failing, [name for name in names if name not in failing]


def self_checks_markdown(report: Report) -> str:
    """The self-checks' test output: code that did not run, each failing exercise with the
    messages of its checks and the known mistakes named there, then the passing exercises."""
    failing, passing = _self_check_names(report)
    unstarted = set(report.unstarted())
    lines: list[str] = []
    if report.notes:
        lines += ["**Code that did not run** (the rest of your code was loaded without it):", ""]
        lines += [f"- {md_text(note, MESSAGE_LIMIT)}" for note in report.notes] + [""]
    for name in failing:
        if name in unstarted:
            lines += [f"**{md_name(name)}**: not started: {md_text(NOT_STARTED_WHY)}.", ""]
            continue
        checks = [c for c in _visible(report) if c.name == name]
        failed = [c for c in checks if c.status != "passed"]
        lines += [f"**{md_name(name)}**: {len(failed)} of {len(checks)} checks fail.", ""]
        said: set[str] = set()
        for check in failed:
            lines += [f"- {md_text(check.title)}", ""]
            if first_failure(check.message) in said:
                lines += [SAME_FAILURE, ""]
            else:
                lines += [md_block(check.message, MESSAGE_LIMIT), ""]
                said.add(first_failure(check.message))
        for mistake in _mistakes_of(report, name):
            explanation = report.mistake_messages.get(mistake) or "no explanation was recorded for it"
            lines += [f"> **Known mistake** {md_name(mistake)}: {md_text(explanation)}", ""]
    if passing:
        lines += ["Passing: " + ", ".join(md_name(name) for name in passing) + ".", ""]
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


def _mistakes_of(report: Report, name: str) -> list[str]:
    """The known mistakes the checks of one graded name named, hidden and visible, each once."""
    return list(dict.fromkeys(m for check in report.checks if check.name == name for m in check.mistakes))


# ------------------------------------------------------------------ plain text and job summaries
def hand_graded(assignment_name: str) -> dict[str, float]:
    """Points per written answer of an assignment: graded by hand, never part of an automatic score."""
    from .. import assignment as assignments

    found = assignments.discover().get(assignment_name)
    return dict(found.written) if found is not None else {}


def hand_graded_text(written: dict[str, float]) -> str:
    """What a score leaves out: '' when the assignment asks no written answer."""
    if not written:
        return ""
    points = points_text(Fraction(str(sum(written.values()))))
    return f"{points} more points, for {len(written)} written answers, are graded by hand and not included here."


def summary_text(report: Report) -> str:
    lines = [f"{report.assignment}: {points_text(report.score)} of {points_text(report.max_score)} points"]
    by_name = report.by_name()
    width = max((len(name) for name in by_name), default=0)
    for name, (score, max_score) in by_name.items():
        lines.append(f"  {name:<{width}}  {points_text(score):>6} / {points_text(max_score)}")
    if report.notes:
        lines.append("While loading your code:")
        lines += [f"  - {clean(note, 1000)}" for note in report.notes]
    if report.internal_errors():
        lines.append("The grading kit itself failed on some checks (not your code): tell your instructor.")
    lines += filter(None, [hand_graded_text(hand_graded(report.assignment))])
    return "\n".join(lines)


def graded_text(report: Report) -> str:
    """What a student reads before the points may be shown: that it was graded, and what loading said."""
    lines = [f"{report.assignment}: graded. Your points and the hidden checks' details are shown after the due date."]
    lines += filter(None, [hand_graded_text(hand_graded(report.assignment))])
    if report.notes:
        lines.append("While loading your code:")
        lines += [f"  - {clean(note, 1000)}" for note in report.notes]
    return "\n".join(lines)


def markdown_summary(report: Report) -> str:
    """The points per graded name as a Markdown table (a CI job's summary page); no hidden check's details."""
    head = f"### {md_text(report.assignment)}: {points_text(report.score)} of {points_text(report.max_score)} points"
    lines = [head, "", "| exercise | points |", "|---|---|"]
    lines += [
        f"| {md_name(name)} | {points_text(score)} / {points_text(top)} |"
        for name, (score, top) in report.by_name().items()
    ]
    note = hand_graded_text(hand_graded(report.assignment))
    if note:
        lines += ["", note]
    failed = [check for check in report.hidden if check.status != "passed"]
    if failed:
        lines += ["", "Checks that lost points (details of hidden checks appear after the due date):", ""]
        lines += [f"- {md_name(check.name)}: {md_text(check.title)}" for check in failed]
    return "\n".join(lines) + "\n"


def markdown_not_graded(message: str, assignment: str | None = None) -> str:
    """A CI job's summary when the submission could not be graded: why, fenced (it may quote file names)."""
    head = f"### {md_text(assignment or 'assignment')}: not graded"
    return "\n".join([head, "", "Why:", "", md_block(message, 4000), ""])


def write_atomically(path: Path, text: str, mode: int = 0o644) -> None:
    """Write to a temporary file beside path, then rename: a reader never sees half a file.

    The file gets ``mode`` less the process's umask, as a file made with open() would.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, mode & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def junit_xml(report: Report) -> str:
    """One testcase per hidden check of results.json; a failure wherever points were lost."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    checks = graded_checks(report)
    failures = sum(check.score < check.max_score for check in checks)
    errors = sum(check.internal_error for check in checks)
    suite = Element(
        "testsuite",
        name=report.assignment,
        tests=str(len(checks)),
        failures=str(failures),
        errors=str(errors),
        time=f"{report.seconds:.3f}",
    )
    for check in checks:
        case = SubElement(suite, "testcase", classname=f"{report.assignment}.{check.name}", name=check.title)
        points = f"{points_text(check.score)} of {points_text(check.max_score)} points"
        message = clean(check.message)
        SubElement(case, "system-out").text = f"{points}\n{message}"
        if check.internal_error:
            SubElement(case, "error", message="the grading kit failed on this check").text = message
        elif check.score < check.max_score:
            SubElement(case, "failure", message=points).text = message
    indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + tostring(suite, encoding="unicode") + "\n"


def write_results(
    report: Report,
    out_dir: Path,
    hidden_visibility: str = HIDDEN_VISIBILITY,
    extra: dict | None = None,
    withhold_hidden: bool = False,
) -> Path:
    """results.json (Gradescope's format) and junit.xml, side by side, each written atomically."""
    path = Path(out_dir) / "results.json"
    write_atomically(
        path, json.dumps(gradescope_json(report, hidden_visibility, extra, withhold_hidden), indent=2) + "\n"
    )
    write_atomically(Path(out_dir) / "junit.xml", junit_xml(report))
    return path


def not_graded_json(
    message: str, assignment: str | None = None, extra: dict | None = None, student_fault: bool = False
) -> dict:
    """results.json for a submission that could not be graded, with the reason.

    student_fault: the submission itself is the reason (nothing gradable in it): the
    student reads why, and the score is 0. Otherwise the grader failed: no score is
    given, and the student is told to ask the instructor.
    """
    text = clean(message, 4000)
    results: dict[str, object] = {
        "output": f"Your submission could not be graded: {text}"
        + ("" if student_fault else "\nThis is a problem of the grading kit, not of your work: tell your instructor."),
        "output_format": "text",
        "visibility": "visible",
        "tests": [],
        "extra_data": {
            "assignment": assignment,
            "status": "not graded",
            "student_fault": student_fault,
            "error": text,
            **(extra or {}),
        },
    }
    if student_fault:
        results["score"] = 0.0
    return results


def write_not_graded(
    out_dir: Path, message: str, assignment: str | None = None, extra: dict | None = None, student_fault: bool = False
) -> Path:
    path = Path(out_dir) / "results.json"
    write_atomically(path, json.dumps(not_graded_json(message, assignment, extra, student_fault), indent=2) + "\n")
    return path
