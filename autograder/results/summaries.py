"""One grading in a few lines: for a terminal, results.json's top-level output, a CI job's summary page.

Written answers (graded by hand) are never in a score: each summary that gives points
says how many points they hold.
"""

from __future__ import annotations

from fractions import Fraction

from .. import assignments
from .model import Report
from .scoring import points_text
from .text import clean, md_block, md_name, md_text


def hand_graded(assignment_name: str) -> dict[str, float]:
    """Points per written answer of an assignment: graded by hand, never part of an automatic score."""
    found = assignments.discover().get(assignment_name)
    return dict(found.written) if found is not None else {}


def hand_graded_text(written: dict[str, float]) -> str:
    """What a score leaves out: '' when the assignment asks no written answer."""
    if not written:
        return ""
    points = points_text(Fraction(str(sum(written.values()))))
    return f"{points} more points, for {len(written)} written answers, are graded by hand and not included here."


def summary_text(report: Report) -> str:
    """The points per graded name, what loading the code said, and whether the kit failed: a terminal's summary."""
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
