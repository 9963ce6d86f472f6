"""grade-all's late step: what the policy makes of each student's submission, into their results and feedback.

It runs on every grade-all, after grading and before summary.csv is written, over every
student with results, graded in this run or kept from an earlier one: nothing is graded
again for it (the policy is in no grading digest, deliver/grade_all/regrade.py). A changed policy or
extension changes the results.json (``extra_data.late_penalty``, results/update.py) and the
feedback of exactly the students it concerns; summary.csv's and the LMS files' totals are
computed from them anew each run. Without a policy, any earlier run's penalties are removed.
The time judged is the one this run's export gives (the intake's), never one recorded earlier.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path

from ...results.outcome import GRADED
from ...results.read import LatePenalty, Results
from ...results.scoring import exact, points_json, points_text
from ...results.update import with_late_penalty
from ..grade_all.class_folder import rewrite_student
from ..intake import Intake, Submission
from .policy import LatePolicy
from .rules import FLAGGED, LATE, ON_TIME, UNKNOWN, Judgement, deduction, judge

SHOWN = 10  # students named in one line of the run's output


def who(submission: Submission) -> tuple[str, ...]:
    """The names an extension may give a submission: its key, its LMS id, each group member's id."""
    return (submission.key, submission.student_id, *(member[1] for member in submission.members))


def late_penalty(judged: Judgement, policy: LatePolicy, results: Results, possible: Fraction) -> LatePenalty:
    """The record results.json keeps of a judgement: the percent, and the automatic score less it."""
    raw = exact(results.score) if results.score is not None else None
    taken = deduction(judged.percent, judged.of, raw, possible) if raw is not None else Fraction(0)
    return LatePenalty(
        status=judged.status,
        percent=points_json(judged.percent),
        of=judged.of,
        line=judged.line,
        note=judged.note,
        submitted_at=judged.submitted.isoformat() if judged.submitted else "",
        due=policy.due.isoformat(),
        student_due=judged.due.isoformat() if judged.due else "",
        late_seconds=judged.late_seconds,
        possible=points_json(possible),
        deducted=points_json(taken),
        score=points_json(raw - taken) if raw is not None else None,
    )


def apply_late(
    policy: LatePolicy | None,
    intake: Intake,
    results: dict[str, Results],
    out: Path,
    possible: Fraction,
    show_hidden: bool = False,
) -> list[str]:
    """Each graded student's late record into results.json and their feedback where it changed (and into
    ``results``); the lines the run prints about it. ``possible``: the assignment's points, written answers'
    included (what an LMS's grade is out of)."""
    judged: dict[str, Judgement] = {}
    for submission in intake.submissions:
        result = results.get(submission.key)
        if result is None:
            continue
        record = None
        if policy is not None and result.status == GRADED:
            judged[submission.key] = judge(
                policy, who(submission), submission.source, submission.submitted_at, submission.late
            )
            record = late_penalty(judged[submission.key], policy, result, possible)
        updated = with_late_penalty(result, record)
        if updated is None:
            continue
        rewrite_student(out, submission.key, updated, show_hidden, submission.name)
        results[submission.key] = updated
    if policy is None:
        return _without_policy(intake)
    return _said(policy, intake, judged)


def _without_policy(intake: Intake) -> list[str]:
    late = [s.key for s in intake.submissions if s.late]
    if not late:
        return []
    return [f"no --late-policy: no late penalty applied; the export marks {len(late)} late: {_named(late)}"]


def _said(policy: LatePolicy, intake: Intake, judged: dict[str, Judgement]) -> list[str]:
    """The policy, what it found, what it could not apply and why, and the extensions that match no one."""
    lines = [f"late policy ({policy.path}, [{policy.assignment}]): {policy.describe()}"]
    counts = Counter(j.status for j in judged.values())
    penalised = [key for key, j in judged.items() if j.percent]
    graced = [key for key, j in judged.items() if j.status == ON_TIME and j.late_seconds]
    lines.append(
        f"  {counts[LATE]} late, {counts[ON_TIME]} on time ({len(graced)} within the grace period), "
        f"{counts[FLAGGED]} marked late with no time, {counts[UNKNOWN]} with no time known; "
        f"{len(penalised)} with a penalty"
    )
    notes: dict[str, list[str]] = {}
    for key, judgement in judged.items():
        if judgement.note and (judgement.status in (FLAGGED, UNKNOWN) or "without a zone" in judgement.note):
            notes.setdefault(judgement.note, []).append(key)
    for note, keys in notes.items():
        lines.append(f"  {note} ({len(keys)}): {_named(keys)}")
    ids = {name.casefold() for s in intake.submissions for name in _names(s)}
    for name, extension in policy.extensions.items():
        if name not in ids:
            lines.append(
                f"  {policy.path}:{extension.line}: the extension for {name!r} matches no student of this export "
                f"(by grade-all's key or the LMS's id)"
            )
    return lines


def _names(submission: Submission) -> tuple[str, ...]:
    return tuple(name for name in who(submission) if name)


def _named(keys: list[str]) -> str:
    return ", ".join(keys[:SHOWN]) + (", ..." if len(keys) > SHOWN else "")


def late_total(late: LatePenalty | None, raw_total: str, possible: Fraction) -> tuple[str, str]:
    """(the points a late record takes off summary.csv's raw total, the total less them): ("", raw_total) where
    nothing is taken or the raw total is not known yet."""
    if late is None or not late.percent or not raw_total:
        return "", raw_total
    raw = Fraction(raw_total)
    taken = deduction(exact(late.percent), late.of, raw, possible)
    return points_text(taken), points_text(raw - taken)
