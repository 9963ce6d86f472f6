"""Is the late policy file read one way only, and is anything wrong in it refused with its file, line and fix?"""

from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.deliver.late.policy import (
    PolicyError,
    duration_text,
    key_lines,
    later_on_clock,
    read_policy,
    when_text,
)

EXAMPLE = KIT_ROOT / "docs" / "late_policy.example.toml"
BASE = 'time_zone = "America/New_York"\n\n[mha]\ndue = 2025-02-14T23:59:00\n'


def policy_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "late.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_docs_example_reads_as_it_says(mha):
    """Does docs/late_policy.example.toml give what its comments say, for each assignment it names?"""
    policy = read_policy(EXAMPLE, "mha")
    assert policy.due == datetime(2025, 2, 15, 4, 59, tzinfo=timezone.utc)  # 23:59 EST
    assert policy.zone_name == "America/New_York" and policy.grace == timedelta(minutes=15)
    assert (policy.percent, policy.per, policy.of, policy.cap, policy.late_flag) == (10, "day", "possible", 50, None)
    assert policy.extensions["doejane-12345"].days == 2
    assert policy.extensions["23456"].until == datetime(2025, 2, 20, 17, 0, tzinfo=timezone.utc)
    other = read_policy(EXAMPLE, "encoder_block")  # its own rules, the file's others
    assert (other.percent, other.per, other.cap, other.grace) == (2, "hour", 100, timedelta(minutes=15))
    assert other.due.utcoffset() == timedelta(hours=-4)  # after the clocks went forward: EDT


def test_defaults_and_each_form_of_a_value(tmp_path):
    """A file with only a zone and a due date: no grace, no penalty, cap 100%, the flag applies nothing; and
    every form the docs name is read: hours, percents with decimals, a due date with its offset, as text."""
    policy = read_policy(policy_file(tmp_path, BASE), "mha")
    assert (policy.grace, policy.percent, policy.cap, policy.late_flag, policy.extensions) == (
        timedelta(0), 0, 100, None, {}
    )  # fmt: skip
    text = (
        'time_zone = "Europe/Vienna"\ngrace = "1.5 hours"\npenalty = "2.5% per hour"\npenalty_of = "score"\n'
        'cap = "30%"\nlate_flag = "5%"\n[mha]\ndue = "2025-02-14T23:59:00+01:00"\n'
        '[mha.extensions]\nAnn = "36 hours"\n'
    )
    policy = read_policy(policy_file(tmp_path, text), "mha")
    assert policy.grace == timedelta(minutes=90) and policy.percent == Fraction(5, 2) and policy.per == "hour"
    assert (policy.of, policy.cap, policy.late_flag) == ("score", 30, 5)
    assert policy.due == datetime(2025, 2, 14, 22, 59, tzinfo=timezone.utc)
    assert policy.extensions["ann"].hours == 36  # keys are read regardless of case


@pytest.mark.parametrize(
    "text, line, problem, fix",
    [
        (BASE + 'grace_period = "5 minutes"\n', 5, "unknown key 'grace_period'", "the keys there are"),
        ('late_days = 3\n' + BASE, 1, "late-day tokens", "remove it"),
        ('time_zone = "EST"\n[mha]\ndue = 2025-02-14T23:59:00\n', 1, "no place's zone", "America/New_York"),
        ('time_zone = "Mars/Olympus"\n[mha]\ndue = 2025-02-14T23:59:00\n', 1, "not in the IANA", "e.g. time_zone"),
        ("[mha]\ndue = 2025-02-14T23:59:00\n", None, "no time_zone", "IANA"),
        ('time_zone = "UTC"\n[mha]\n', 2, "[mha] has no due date", "add due = "),
        ('time_zone = "UTC"\n[mha]\ndue = 2025-02-14\n', 3, "has no time of day", "2025-02-14T23:59:00"),
        ('time_zone = "UTC"\n[mha]\ndue = "Friday"\n', 3, "is not a date and time", "with an offset"),
        ('time_zone = "UTC"\ngrace = "15 mins please"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "not a length of time", '"15 minutes"'),
        ('time_zone = "UTC"\npenalty = "10 per day"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "not a percent per hour or per day", '"10% per day"'),
        ('time_zone = "UTC"\npenalty = "0% per day"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "not a percent per hour", "over 0"),
        ('time_zone = "UTC"\ncap = "150%"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "cap = '150%'", '"50%"'),
        ('time_zone = "UTC"\nlate_flag = "yes"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "late_flag = 'yes'", '"none"'),
        ('time_zone = "UTC"\npenalty_of = "total"\n[mha]\ndue = 2025-02-14T23:59:00\n', 2, "not one of possible, score", "'possible'"),
        ('time_zone = "UTC"\n[mha]\ndue = 2025-02-14T23:59:00\npenalty = "1% per week"\n', 4, "penalty = '1% per week'", "per hour"),
        (BASE + '[mha.extensions]\nann = "1.5 days"\n', 6, "part of a day", '"36 hours"'),
        (BASE + '[mha.extensions]\nann = "0 days"\n', 6, "gives no more time", '"2 days"'),
        (BASE + '[mha.extensions]\nann = "soon"\n', 6, "not a length of time", '"2 days"'),
        (BASE + "[mha.extensions]\nann = 2025-02-01T12:00:00\n", 6, "is not after the assignment's", "a later one"),
        (BASE + '[mha.extensions]\nAnn = "1 day"\nann = "2 days"\n', 7, "two extensions", "keep one"),
        (BASE + '[extensions]\nann = "1 day"\n', 5, "[extensions] is a table of the file", "[mha.extensions]"),
        (BASE + 'penalty = "10% per day"\n[mha]\n', 6, "not TOML", "docs/late-policy.md"),
    ],
    ids=[
        "a misspelt key", "tokens", "an abbreviation", "no such zone", "no zone", "no due date", "a date only",
        "no date", "grace", "penalty without %", "a zero penalty", "cap over 100", "late_flag", "penalty_of",
        "an assignment's own penalty", "part of a day", "no more time", "no duration", "an earlier due date",
        "one student twice", "extensions of no assignment", "a table twice",
    ],
)  # fmt: skip
def test_each_wrong_value_is_refused_with_its_line_and_the_fix(tmp_path, text, line, problem, fix):
    """Is each mistake refused naming the file and the line it is on (none for a key that is missing), what is
    wrong and what to write?"""
    path = policy_file(tmp_path, text)
    with pytest.raises(PolicyError) as error:
        read_policy(path, "mha")
    message = str(error.value)
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: "), message
    assert problem in message and fix in message, message


def test_an_assignment_the_file_does_not_name_is_refused_with_the_tables_it_has(tmp_path):
    """Grading mha with a file of [mah] only: is the missing table named, with the ones there and the fix?"""
    path = policy_file(tmp_path, 'time_zone = "UTC"\n[mah]\ndue = 2025-02-14T23:59:00\n')
    with pytest.raises(PolicyError, match=r"no \[mha\] table \(the file has \[mah\]\); add one with its due date"):
        read_policy(path, "mha")
    with pytest.raises(PolicyError, match="no such file"):
        read_policy(tmp_path / "missing.toml", "mha")


@pytest.mark.parametrize(
    "due, problem, fix",
    [
        ("2025-03-09T02:30:00", "does not exist on America/New_York's clock", "outside the skipped hour"),
        ("2025-11-02T01:30:00", "happens twice on America/New_York's clock", "2025-11-02T01:30:00-04:00 or 2025-11-02T01:30:00-05:00"),
    ],
    ids=["skipped when the clocks go forward", "repeated when they go back"],
)  # fmt: skip
def test_a_due_date_the_clocks_skip_or_repeat_is_refused(tmp_path, due, problem, fix):
    """A due date at 02:30 on the night the clocks go forward, or 01:30 the night they go back: refused, the
    second with both offsets it could mean; with an offset written, is it read as that moment?"""
    path = policy_file(tmp_path, f'time_zone = "America/New_York"\n[mha]\ndue = {due}\n')
    with pytest.raises(PolicyError) as error:
        read_policy(path, "mha")
    assert f"{path}:3: " in str(error.value) and problem in str(error.value) and fix in str(error.value)
    path.write_text('time_zone = "America/New_York"\n[mha]\ndue = 2025-11-02T01:30:00-05:00\n')
    assert read_policy(path, "mha").due.astimezone(timezone.utc) == datetime(2025, 11, 2, 6, 30, tzinfo=timezone.utc)


def test_a_day_later_on_the_clock_is_the_same_time_of_day_across_a_change_of_clocks():
    """From 23:59 EST the night before the clocks go forward: is a day later 23:59 EDT, 23 hours on?"""
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("America/New_York")
    due = datetime(2025, 3, 8, 23, 59, tzinfo=zone)
    later = later_on_clock(due, zone, 1)
    assert when_text(later) == "2025-03-09 23:59 EDT"
    assert later.astimezone(timezone.utc) - due.astimezone(timezone.utc) == timedelta(hours=23)


def test_lines_of_keys_and_durations_as_people_read_them():
    """Are keys found on their lines (quoted, dotted, in tables), and lengths of time written short?"""
    lines = key_lines('a = 1\n[mha]\ndue = 2\n[mha.extensions]\n"x.y" = 3\n# z = 4\nmha2.due = 5\n')
    assert lines == {("a",): 1, ("mha",): 2, ("mha", "due"): 3, ("mha", "extensions"): 4,
                     ("mha", "extensions", "x.y"): 5, ("mha", "extensions", "mha2", "due"): 7}  # fmt: skip
    assert [duration_text(timedelta(seconds=s)) for s in (30, 900, 36300, 97200)] == [
        "under a minute", "15 min", "10 h 5 min", "1 day 3 h"
    ]  # fmt: skip
