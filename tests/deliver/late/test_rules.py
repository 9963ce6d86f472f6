"""Does the late policy judge each submission as docs/late-policy.md states: grace, per hour and per day with a cap,
extensions, days across a change of clocks, and each LMS's time or flag?"""

from datetime import datetime, timedelta, timezone
from fractions import Fraction
from zoneinfo import ZoneInfo

import pytest

from autograder.deliver.late.policy import Extension, LatePolicy
from autograder.deliver.late.rules import (
    FLAGGED,
    LATE,
    ON_TIME,
    UNKNOWN,
    deduction,
    judge,
    judge_time,
    periods_started,
    student_due,
)

NEW_YORK = ZoneInfo("America/New_York")
DUE = datetime(2025, 3, 8, 23, 59, tzinfo=NEW_YORK)  # Saturday, EST; the clocks go forward early on Sunday


def policy(**rules) -> LatePolicy:
    fields = {"path": "late.toml", "assignment": "mha", "zone_name": "America/New_York", "zone": NEW_YORK, "due": DUE}
    return LatePolicy(**(fields | rules))


def at(text: str) -> datetime:
    """A time on New York's clock, as its offset says (-05:00 EST, -04:00 EDT)."""
    return datetime.fromisoformat(text)


@pytest.mark.parametrize(
    "submitted, status, percent",
    [
        ("2025-03-08T23:59:00-05:00", ON_TIME, 0),  # at the due date itself
        ("2025-03-09T00:14:00-05:00", ON_TIME, 0),  # within the 15 min grace
        ("2025-03-09T00:14:01-05:00", LATE, 1),  # 15 min 1 s: one hour started, counted from the due date
        ("2025-03-09T09:59:00-04:00", LATE, 9),  # 9 h after (the clocks' change took an hour of the wall clock)
        ("2025-03-09T10:00:00-04:00", LATE, 10),  # 9 h 1 min: ten hours started
        ("2025-03-12T00:00:00-04:00", LATE, 50),  # the cap
    ],
    ids=["at the due date", "in the grace", "just past the grace", "9 h", "9 h 1 min", "capped"],
)
def test_per_hour_with_grace_and_a_cap(submitted, status, percent):
    """1% per hour started (elapsed time), 15 minutes' grace, at most 50%: is each time judged so?"""
    judged = judge_time(
        policy(percent=Fraction(1), per="hour", cap=Fraction(50), grace=timedelta(minutes=15)), (), at(submitted)
    )
    assert (judged.status, judged.percent) == (status, percent)


@pytest.mark.parametrize(
    "submitted, elapsed, days",
    [
        ("2025-03-09T23:30:00-04:00", "22 h 31 min", 1),  # Sunday, a 23-hour day: still the first day
        ("2025-03-09T23:59:00-04:00", "23 h", 1),  # 23:59 the next day on the clock: the first day's end
        ("2025-03-10T00:30:00-04:00", "23 h 31 min", 2),  # less than 24 h elapsed, yet the second day started
        ("2025-03-11T23:59:01-04:00", "2 days 23 h", 4),
    ],
    ids=["within the first day", "at its end", "the second day, after 23 h 31 min", "a second into the fourth day"],
)
def test_per_day_counts_days_on_the_zones_calendar_across_the_change_of_clocks(submitted, elapsed, days):
    """10% per day, due Saturday 23:59 EST the night before the clocks go forward: is a day a day on New York's
    calendar (Sunday lasts 23 hours), so that Monday 00:30, 23 h 31 min later, is the second day started?"""
    rules = policy(percent=Fraction(10), per="day")
    judged = judge_time(rules, (), at(submitted))
    assert periods_started(rules, DUE, at(submitted)) == days
    assert judged.status == LATE and judged.percent == 10 * days
    assert judged.line.startswith(
        f"Submitted {elapsed} late (due 2025-03-08 23:59 EST): −{10 * days}% of the points possible"
    )


def test_the_line_a_student_reads():
    """Is the feedback's line the one the docs show: how late, the due date, the percent and the rule?"""
    rules = policy(
        due=datetime(2025, 2, 14, 23, 59, tzinfo=NEW_YORK), percent=Fraction(1), per="hour", cap=Fraction(50)
    )
    assert judge_time(rules, (), at("2025-02-15T09:59:00-05:00")).line == (
        "Submitted 10 h late (due 2025-02-14 23:59 EST): −10% of the points possible (10 hours started, 1% each)."
    )
    assert judge_time(rules, (), at("2025-02-18T00:00:00-05:00")).line.endswith(
        "(73 hours started, 1% each, at most 50%)."
    )
    graced = judge_time(policy(grace=timedelta(minutes=15)), (), at("2025-03-09T00:04:00-05:00"))
    assert graced.line == (
        "Submitted 5 min after the due date (due 2025-03-08 23:59 EST), within the 15 min grace period: no penalty."
    )
    said = judge_time(policy(), (), at("2025-03-09T10:00:00-04:00"))  # a policy without a penalty still says it
    assert (said.status, said.percent, said.line) == (
        LATE,
        0,
        "Submitted 9 h 1 min late (due 2025-03-08 23:59 EST): no penalty.",
    )
    ours = judge_time(policy(percent=Fraction(5), per="day", of="score"), (), at("2025-03-09T10:00:00-04:00"))
    assert "−5% of your points" in ours.line


def test_extensions_by_key_or_lms_id_days_on_the_calendar_hours_or_a_date():
    """Is a student's due date moved by their extension (whole days on the calendar across the change of clocks,
    hours of elapsed time, or a date of their own), found by key or LMS id regardless of case, a group's the
    latest of its members', and said in the student's line?"""
    until = datetime(2025, 3, 12, 12, 0, tzinfo=NEW_YORK)
    rules = policy(
        percent=Fraction(10),
        per="day",
        extensions={
            "ann-1": Extension(1, days=1),
            "222": Extension(2, hours=Fraction(36)),
            "333": Extension(3, until=until),
        },
    )
    assert student_due(rules, ("nobody", "")) == (DUE, False)
    assert student_due(rules, ("ANN-1", "")) == (datetime(2025, 3, 9, 23, 59, tzinfo=NEW_YORK), True)  # 23 h later
    assert student_due(rules, ("bo", "222"))[0].astimezone(timezone.utc) == DUE.astimezone(timezone.utc) + timedelta(
        hours=36
    )
    assert student_due(rules, ("group", "222", "333", "ann-1"))[0] == until  # the latest of the members'
    on_time = judge_time(rules, ("ann-1",), at("2025-03-09T23:59:00-04:00"))
    late = judge_time(rules, ("ann-1",), at("2025-03-10T00:30:00-04:00"))
    assert (on_time.status, late.status, late.percent) == (ON_TIME, LATE, 10)
    assert late.line.startswith("Submitted 31 min late (due 2025-03-09 23:59 EDT, with your extension): −10%")


@pytest.mark.parametrize(
    "source, submitted_at, flag, status, percent, note",
    [
        ("gradescope", "2025-03-09T05:00:00+00:00", None, LATE, 10, ""),  # created_at, UTC: 00:00 EST
        ("gradescope", "2025-03-09T04:59:00+00:00", True, ON_TIME, 0, ""),  # the time decides, not a flag
        ("blackboard", "2025-03-09T00:00:00-05:00", True, LATE, 10, ""),  # the receipt's zone
        ("blackboard", "2025-03-09T00:00:00", None, LATE, 10, "read on America/New_York's clock"),  # no zone
        ("canvas", "", True, FLAGGED, 0, "Canvas marks it late and gives no time: nothing applied"),
        ("canvas", "", False, ON_TIME, 0, "Canvas marks it on time"),
        ("classroom", "2025-03-08T12:00:00-05:00", None, UNKNOWN, 0, "student's own machine: not used"),
        ("moodle", "", None, UNKNOWN, 0, "Moodle's export gives no submission time: nothing applied"),
        ("folders", "", None, UNKNOWN, 0, "folders's export gives no submission time"),
        ("gradescope", "yesterday", None, UNKNOWN, 0, "could not be read"),
    ],
    ids=["gradescope late", "gradescope on time", "blackboard", "blackboard without a zone", "canvas LATE",
         "canvas on time", "classroom", "moodle", "a folder", "an unreadable time"],
)  # fmt: skip
def test_each_lms_time_or_flag(source, submitted_at, flag, status, percent, note):
    """10% per day: is each export's time judged (Blackboard's without a zone on the policy's clock), a flag alone
    left to the instructor by default, a clone's commit time not used, and no time known said so?"""
    judged = judge(policy(percent=Fraction(10), per="day"), ("key", "id"), source, submitted_at, flag)
    assert (judged.status, judged.percent) == (status, percent)
    assert note in judged.note
    assert bool(judged.line) == bool(percent)  # the student reads a line where something was taken


def test_a_late_flag_gets_the_policys_flat_percent_unless_the_student_has_an_extension():
    """With late_flag = "10%": is Canvas's LATE worth 10% (said to the student), except for a student whose
    extension the flag, judged by Canvas's own due date, cannot be checked against?"""
    rules = policy(late_flag=Fraction(10), extensions={"ann": Extension(1, days=2)})
    flagged = judge(rules, ("bo", "2"), "canvas", "", True)
    assert (flagged.status, flagged.percent) == (FLAGGED, 10)
    assert (
        flagged.line == "Canvas marks this submission late; its export does not say when: −10% of the points possible."
    )
    extended = judge(rules, ("ann", "1"), "canvas", "", True)
    assert (extended.status, extended.percent, extended.line) == (FLAGGED, 0, "")
    assert "extension the flag cannot be checked against: nothing applied, decide by hand" in extended.note


@pytest.mark.parametrize(
    "percent, of, raw, possible, taken",
    [
        (10, "possible", 30, 47, Fraction(47, 10)),  # Canvas's rule: 10% of the points possible
        (10, "score", 30, 47, 3),  # of the student's own points
        (100, "possible", 30, 47, 30),  # never more than the student has
        (0, "possible", 30, 47, 0),
        (50, "possible", 0, 47, 0),
    ],
)
def test_the_points_a_percent_takes(percent, of, raw, possible, taken):
    """Is a percent of the points possible (or of the score) taken off, never below zero?"""
    assert deduction(Fraction(percent), of, Fraction(raw), Fraction(possible)) == taken
