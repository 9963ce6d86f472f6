"""The files a grading writes: results.json (Gradescope's format), junit.xml, a Markdown table.

results.json follows Gradescope's specification (score, execution_time, output, tests[]
with name, score, max_score, status, output, visibility, tags); the kit's own figures
go in extra_data. A submission the kit could not grade (the grader failed, not the
student) gets a results.json that says so, with ``extra_data.status`` "not graded" and
no score of its own: never a score of 0 that looks like the student's.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .model import Report
from .scoring import points_json, points_text
from .text import clean

HIDDEN_VISIBILITY = "after_due_date"  # Gradescope shows a hidden check's details after the due date


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
    tests = []
    for check in report.checks:
        hidden = check.kind == "hidden"
        test = {
            "name": f"{check.name}: {check.title}",
            "score": points_json(check.score),
            "max_score": points_json(check.max_score),
            "status": check.status,
            "output": WITHHELD if hidden and withhold_hidden else clean(check.message),
            "visibility": hidden_visibility if hidden else "visible",
            "tags": [check.name],
            "extra_data": {
                "kind": check.kind,
                "cases": [check.passed, check.total],
                "mistakes": check.mistakes,
                **({"carried": check.carried} if check.carried else {}),  # the names the reference stood in for
            },
        }
        tests.append(test)
    internal = [f"{c.name}: {c.title}: {clean(c.message, 500)}" for c in report.internal_errors()]
    return {
        "score": points_json(report.score),
        "execution_time": round(report.seconds, 3),
        "output": summary_text(report) if hidden_visibility == "visible" else graded_text(report),
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
            "mistakes": report.mistakes(),
            "mistake_messages": {m: report.mistake_messages.get(m, "") for m in report.mistakes()},
            "notes": [clean(note, 1000) for note in report.notes],
            "isolation": report.isolation,
            "device": report.device,
            "seconds": round(report.seconds, 3),
            "hidden_summary": report.hidden_summary,
            "internal_errors": internal,
            **(extra or {}),
        },
    }


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
    return "\n".join(lines)


def graded_text(report: Report) -> str:
    """What a student reads before the points may be shown: that it was graded, and what loading said."""
    lines = [f"{report.assignment}: graded. Your points and the hidden checks' details are shown after the due date."]
    if report.notes:
        lines.append("While loading your code:")
        lines += [f"  - {clean(note, 1000)}" for note in report.notes]
    return "\n".join(lines)


def markdown_summary(report: Report) -> str:
    """The points per graded name as a Markdown table (a CI job's summary page); no hidden check's details."""
    head = f"### {report.assignment}: {points_text(report.score)} of {points_text(report.max_score)} points"
    lines = [head, "", "| exercise | points |", "|---|---|"]
    lines += [
        f"| `{name}` | {points_text(score)} / {points_text(top)} |" for name, (score, top) in report.by_name().items()
    ]
    failed = [check for check in report.hidden if check.status != "passed"]
    if failed:
        lines += ["", "Checks that lost points (details of hidden checks appear after the due date):", ""]
        lines += [f"- `{check.name}`: {check.title}" for check in failed]
    return "\n".join(lines) + "\n"


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
    """One testcase per check of results.json; a failure wherever points were lost."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    checks = report.hidden
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
