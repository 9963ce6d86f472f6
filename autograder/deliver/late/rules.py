"""What a late policy makes of one submission: its time, or the LMS's flag, judged against the student's due date.

The rules, each as docs/late-policy.md states it:

- The student's due date is the assignment's, or their extension's: whole days on the
  calendar of the policy's time zone (the same time of day, however long the days were),
  hours of the clock, or a due date of their own. Several keys of one submission (a group's
  members) take the latest.
- Submitted at or before it, or within the grace period after it: on time, nothing deducted.
  Past the grace period, lateness counts from the due date itself.
- Late by the hour: each hour or part of one after the due date (elapsed time). Late by the
  day: each day or part of one on the zone's calendar, so a due date at 23:59 makes 23:59 the
  next day the end of the first day late, even across a change of clocks (a 23- or 25-hour day).
- The percent deducted is the penalty times the periods started, at most the cap; of the
  points possible (as Canvas's late policy counts it: app/models/late_policy.rb,
  points_deducted) or of the student's own points (penalty_of = "score"); never more
  than the student has (nbgrader's AssignLatePenalties keeps a penalty within the score too).
- A time comes from the export: Gradescope's created_at, Blackboard's attempt time (read on
  the policy's clock where the export gives no zone). A GitHub Classroom clone's time is its
  last commit's, written by the student's own machine: it is not used. An export that only
  flags late work (Canvas's LATE) gets the policy's late_flag percent, or nothing, said for
  the instructor; nor is the flag applied to a student with an extension, since the LMS judged
  it against its own due date. An export with neither (Moodle, a folder): nothing, said.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from fractions import Fraction

from ...results.scoring import points_text
from .policy import LatePolicy, duration_text, later_on_clock, when_text

ON_TIME, LATE, FLAGGED, UNKNOWN = "on time", "late", "flagged", "unknown"
UNTRUSTED = {
    "classroom": "a clone's time is its last commit's, written by the student's own machine: not used",
}
LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard", "gradescope": "Gradescope"}


@dataclass(frozen=True)
class Judgement:
    """What the policy makes of one submission."""

    status: str  # ON_TIME, LATE, FLAGGED (the LMS says late, not when) or UNKNOWN
    percent: Fraction = Fraction(0)  # deducted
    of: str = "possible"  # of the points possible, or of the student's own points ("score")
    line: str = ""  # what the student reads ("" where there is nothing to tell them)
    note: str = ""  # what the instructor must know: what was not applied, and why
    submitted: datetime | None = None  # on the policy's clock
    due: datetime | None = None  # the student's, extension included
    late_seconds: int | None = None  # after the student's due date; None where no time is known


def student_due(policy: LatePolicy, who: tuple[str, ...]) -> tuple[datetime, bool]:
    """The due date of a submission made by ``who`` (its key, LMS ids): the latest of their extensions, or the
    assignment's; and whether an extension gave it."""
    dues = []
    for name in who:
        extension = policy.extensions.get(name.casefold()) if name else None
        if extension is None:
            continue
        if extension.until is not None:
            dues.append(extension.until)
        elif extension.days:
            dues.append(later_on_clock(policy.due, policy.zone, extension.days))
        else:
            elapsed = timedelta(seconds=float(extension.hours * 3600))  # of the clock: in UTC, not on the wall
            dues.append((policy.due.astimezone(timezone.utc) + elapsed).astimezone(policy.zone))
    if not dues:
        return policy.due, False
    return max(dues, key=lambda d: d.astimezone(timezone.utc)).astimezone(policy.zone), True


def periods_started(policy: LatePolicy, due: datetime, submitted: datetime) -> int:
    """Hours (elapsed) or days (on the zone's calendar) after ``due``, each part of one counting whole."""
    elapsed = (submitted.astimezone(timezone.utc) - due.astimezone(timezone.utc)).total_seconds()
    if elapsed <= 0:
        return 0
    if policy.per == "hour":
        return math.ceil(elapsed / 3600)
    days = max(1, int(elapsed // 86400) - 1)  # a calendar day is 24 h give or take an hour: start just below
    while submitted.astimezone(timezone.utc) > later_on_clock(due, policy.zone, days).astimezone(timezone.utc):
        days += 1
    return days


def judge_time(policy: LatePolicy, who: tuple[str, ...], submitted: datetime, note: str = "") -> Judgement:
    """A submission made at ``submitted`` (aware), judged: on time, within the grace period, or late and by how much."""
    due, extended = student_due(policy, who)
    submitted = submitted.astimezone(policy.zone)
    after = submitted.astimezone(timezone.utc) - due.astimezone(timezone.utc)
    seconds = max(0, math.ceil(after.total_seconds()))
    told = f"due {when_text(due)}" + (", with your extension" if extended else "")
    if after <= timedelta(0):
        return Judgement(ON_TIME, of=policy.of, note=note, submitted=submitted, due=due, late_seconds=0)
    if after <= policy.grace:
        line = (
            f"Submitted {duration_text(after)} after the due date ({told}), within the "
            f"{duration_text(policy.grace)} grace period: no penalty."
        )
        return Judgement(
            ON_TIME, of=policy.of, line=line, note=note, submitted=submitted, due=due, late_seconds=seconds
        )
    periods = periods_started(policy, due, submitted)
    percent = min(policy.percent * periods, policy.cap)
    line = f"Submitted {duration_text(after)} late ({told}): "
    if percent:
        unit = f"{policy.per}{'s' if periods != 1 else ''}"
        capped = f", at most {points_text(policy.cap)}%" if percent == policy.cap and policy.cap < 100 else ""
        line += f"−{points_text(percent)}% {of_text(policy.of)} ({periods} {unit} started, "
        line += f"{points_text(policy.percent)}% each{capped})."
    else:
        line += "no penalty."
    return Judgement(LATE, percent, policy.of, line, note, submitted, due, seconds)


def of_text(of: str) -> str:
    return "of the points possible" if of == "possible" else "of your points"


def judge(policy: LatePolicy, who: tuple[str, ...], source: str, submitted_at: str, flag: bool | None) -> Judgement:
    """What the policy makes of a submission as the export records it: its time (ISO 8601, "" for none) and the
    LMS's late flag (None where it says nothing)."""
    lms = LMS_NAMES.get(source, source)
    if source in UNTRUSTED:
        return Judgement(UNKNOWN, of=policy.of, note=f"{UNTRUSTED[source]}: nothing applied")
    if submitted_at:
        try:
            moment = datetime.fromisoformat(submitted_at)
        except ValueError:
            return Judgement(
                UNKNOWN, of=policy.of, note=f"{lms}'s time {submitted_at!r} could not be read: nothing applied"
            )
        note = ""
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=policy.zone)
            note = f"{lms} gives its time without a zone: read on {policy.zone_name}'s clock"
        return judge_time(policy, who, moment, note)
    if flag is False:
        return Judgement(ON_TIME, of=policy.of, note=f"{lms} marks it on time (its export gives no time)")
    if flag is None:
        return Judgement(UNKNOWN, of=policy.of, note=f"{lms}'s export gives no submission time: nothing applied")
    if student_due(policy, who)[1]:
        return Judgement(
            FLAGGED,
            of=policy.of,
            note=f"{lms} marks it late by its own due date and gives no time; the policy gives this student an "
            f"extension the flag cannot be checked against: nothing applied, decide by hand",
        )
    if policy.late_flag is None:
        return Judgement(
            FLAGGED,
            of=policy.of,
            note=f'{lms} marks it late and gives no time: nothing applied (the policy\'s late_flag is "none"), '
            f"decide by hand",
        )
    line = f"{lms} marks this submission late; its export does not say when: −{points_text(policy.late_flag)}% {of_text(policy.of)}."
    return Judgement(FLAGGED, policy.late_flag, policy.of, line, f"{lms}'s late flag only: late_flag applied")


def deduction(percent: Fraction, of: str, raw: Fraction, possible: Fraction) -> Fraction:
    """The points a percent takes off ``raw`` points (of ``possible``): never below 0, never more than raw."""
    base = possible if of == "possible" else raw
    return max(Fraction(0), min(percent * base / 100, raw))
