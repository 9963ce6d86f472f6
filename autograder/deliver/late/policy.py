"""The late policy file: one TOML file for the course's term, passed to grade-all with ``--late-policy FILE``.

    time_zone = "America/New_York"   # an IANA name (zoneinfo): every date in the file is a time on that clock
    grace = "15 minutes"             # submitted this long after the due date, or less: on time
    penalty = "10% per day"          # for each day (or hour) after the due date, or part of one; or "none"
    penalty_of = "possible"          # a percent of the points possible, or "score": of the student's own points
    cap = "50%"                      # never more than this in all (default "100%": down to 0)
    late_flag = "none"               # work the export marks late without saying when (Canvas): "none", or "10%"

    [mha]                            # one table per assignment, by its name; it may set any key above for itself
    due = 2025-02-14T23:59:00

    [mha.extensions]                 # by grade-all's student key or the LMS's id
    doejane-12345 = "2 days"         # days on the calendar, or hours ("36 hours"), after the due date
    "23456" = 2025-02-20T12:00:00    # or a due date of the student's own

Why a file of the course, named on the command line, and not solutions/<a>/late.toml: a due date
is the term's, not the assignment's source. Every file of solutions/<a>/ decides grades
(grade/deciding.py), so a due date there would grade the whole class again when it moved, and
reach the release's digest; this file decides no grade, only totals. One file holds the term.

Every value is checked when grade-all starts, before anyone is graded; a wrong one is refused
with the file, its line and the fix (PolicyError). A due date that a change of clocks skips or
repeats on that zone's clock is refused: write it with its offset (2025-11-02T01:30:00-04:00).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ...errors import KitError
from ...results.scoring import points_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

PERIODS = ("hour", "day")
OF = ("possible", "score")
RULE_KEYS = ("time_zone", "grace", "penalty", "penalty_of", "cap", "late_flag")  # the file's, or an assignment's own
ASSIGNMENT_KEYS = (*RULE_KEYS, "due", "extensions")
TOKEN_KEYS = ("late_days", "tokens", "slip_days", "grace_days", "free_days")
TOKENS_WHY = (
    "late-day tokens (free days a student spends across the term) are not supported yet: state a penalty "
    '(penalty = "10% per day") and give a student more time under [<assignment>.extensions]'
)
PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")
PENALTY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*(?:per|a|an|each)\s+(hour|day)\s*", re.IGNORECASE)
DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(minutes?|mins?|hours?|h|days?|d)\s*", re.IGNORECASE)
UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
EXAMPLE_DUE = "2025-02-14T23:59:00"


class PolicyError(KitError):
    """A late policy that cannot be read one way only; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Extension:
    """More time for one student: whole days on the calendar, hours of the clock, or a due date of their own."""

    line: int  # where the file gives it
    days: int = 0
    hours: Fraction = Fraction(0)
    until: datetime | None = None  # aware


@dataclass(frozen=True)
class LatePolicy:
    """What the file says for one assignment."""

    path: Path
    assignment: str
    zone_name: str
    zone: tzinfo
    due: datetime  # aware, on the zone's clock
    grace: timedelta = timedelta(0)
    percent: Fraction = Fraction(0)  # deducted per period started after the due date; 0: lateness is only said
    per: str = "day"
    of: str = "possible"
    cap: Fraction = Fraction(100)
    late_flag: Fraction | None = None  # for work marked late with no time; None: nothing applied, said
    extensions: dict[str, Extension] = field(default_factory=dict)  # by student key or LMS id, casefolded

    def describe(self) -> str:
        """The policy in one line, for the run's output."""
        parts = [f"due {when_text(self.due)} ({self.zone_name})"]
        if self.grace:
            parts.append(f"{duration_text(self.grace)} grace")
        if self.percent:
            of = "the points possible" if self.of == "possible" else "the student's points"
            rule = f"{points_text(self.percent)}% of {of} per {self.per} or part of one"
            parts.append(rule + (f", at most {points_text(self.cap)}%" if self.cap < 100 else ""))
        else:
            parts.append("no penalty (lateness is only said)")
        flag = f"{points_text(self.late_flag)}%" if self.late_flag is not None else "nothing applied, said"
        parts.append(f"marked late with no time: {flag}")
        if self.extensions:
            parts.append(f"{len(self.extensions)} extension{'s' if len(self.extensions) != 1 else ''}")
        return "; ".join(parts)


def when_text(moment: datetime) -> str:
    """A time as the course reads it: 2025-02-14 23:59 EST."""
    return moment.strftime("%Y-%m-%d %H:%M %Z").strip()


def duration_text(length: timedelta) -> str:
    """2 days 3 h, 10 h 5 min, 15 min, under a minute."""
    seconds = int(length.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes and not days else []
    return " ".join(parts) or "under a minute"


# ------------------------------------------------------------------ reading the file


def read_policy(path: Path, assignment: str) -> LatePolicy:
    """The policy the file states for an assignment; PolicyError, naming the line and the fix, for anything wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such file; give the course's late policy (docs/late-policy.md)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(f"{path}: cannot be read ({error}); save it as UTF-8 text") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"line (\d+)", str(error))
        where = f"{path}:{found[1]}" if found else str(path)
        raise PolicyError(f"{where}: not TOML ({error}); see docs/late-policy.md for the file's form") from None
    return Reader(path, text).policy(document, assignment)


class Reader:
    """One file's values checked, each error naming the line its key is on."""

    def __init__(self, path: Path, text: str):
        self.path, self.lines = path, key_lines(text)

    def fail(self, keys: tuple[str, ...], problem: str, fix: str) -> PolicyError:
        line = self.lines.get(keys) or next(
            (self.lines[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in self.lines), 0
        )
        return PolicyError(f"{self.path}{f':{line}' if line else ''}: {problem}; {fix}")

    def policy(self, document: dict, assignment: str) -> LatePolicy:
        for key, value in document.items():
            if isinstance(value, dict):
                if key == "extensions":
                    raise self.fail(
                        (key,),
                        "[extensions] is a table of the file",
                        f"give them under the assignment: [{assignment}.extensions]",
                    )
                self.known(value, (key,), ASSIGNMENT_KEYS)
            else:
                self.known({key: value}, (), RULE_KEYS)
        table = document.get(assignment)
        if not isinstance(table, dict):
            listed = ", ".join(f"[{k}]" for k, v in document.items() if isinstance(v, dict)) or "none"
            raise PolicyError(
                f"{self.path}: no [{assignment}] table (the file has {listed}); add one with its due date: "
                f"[{assignment}] due = {EXAMPLE_DUE}"
            )
        rules = {key: document[key] for key in RULE_KEYS if key in document}
        where: dict[str, tuple[str, ...]] = {key: (key,) for key in rules}
        for key in RULE_KEYS:
            if key in table:
                rules[key], where[key] = table[key], (assignment, key)
        zone_name, zone = self.zone(rules.get("time_zone"), where.get("time_zone", ("time_zone",)))
        if "due" not in table:
            raise self.fail((assignment,), f"[{assignment}] has no due date", f"add due = {EXAMPLE_DUE} under it")
        due = self.moment(table["due"], (assignment, "due"), zone)
        percent, per = self.penalty(rules.get("penalty", "none"), where.get("penalty", ()))
        return LatePolicy(
            path=self.path,
            assignment=assignment,
            zone_name=zone_name,
            zone=zone,
            due=due,
            grace=self.duration(rules.get("grace", "0 minutes"), where.get("grace", ())),
            percent=percent,
            per=per,
            of=self.choice(rules.get("penalty_of", "possible"), where.get("penalty_of", ()), OF),
            cap=self.percent(rules.get("cap", "100%"), where.get("cap", ()), "cap", '"50%"'),
            late_flag=self.late_flag(rules.get("late_flag", "none"), where.get("late_flag", ())),
            extensions=self.extensions(table.get("extensions", {}), assignment, zone, due),
        )

    def known(self, table: dict, at: tuple[str, ...], allowed: tuple[str, ...]) -> None:
        for key in table:
            if key in TOKEN_KEYS:
                raise self.fail((*at, key), f"{key}: {TOKENS_WHY}", "remove it")
            if key not in allowed:
                kind = "an assignment's table" if at else "the file's top level"
                raise self.fail(
                    (*at, key),
                    f"unknown key {key!r} in {kind}",
                    f"the keys there are {', '.join(allowed)} (docs/late-policy.md)",
                )

    def zone(self, value, at: tuple[str, ...]) -> tuple[str, tzinfo]:
        fix = 'name the place\'s time zone as the IANA database does, e.g. time_zone = "America/New_York" or "Europe/Vienna"'
        if value is None:
            raise self.fail(at, "no time_zone", fix + " (due dates are times on that clock)")
        if not isinstance(value, str):
            raise self.fail(at, f"time_zone = {value!r} is not text", fix)
        if "/" not in value and value != "UTC":
            raise self.fail(
                at,
                f"time_zone = {value!r} is no place's zone (an abbreviation or fixed offset keeps no daylight saving)",
                fix,
            )
        try:
            return value, ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise self.fail(at, f"time_zone = {value!r} is not in the IANA time zone database here", fix) from None

    def moment(self, value, at: tuple[str, ...], zone: tzinfo) -> datetime:
        """A date and time: with its offset as written, or on the zone's clock where it has none."""
        fix = f"write the date and time, e.g. {at[-1]} = {EXAMPLE_DUE} (on the time_zone's clock) or with an offset, 2025-02-14T23:59:00-05:00"
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                raise self.fail(at, f"{at[-1]} = {value!r} is not a date and time", fix) from None
        if isinstance(value, date) and not isinstance(value, datetime):
            raise self.fail(at, f"{at[-1]} = {value} has no time of day", fix)
        if not isinstance(value, datetime):
            raise self.fail(at, f"{at[-1]} = {value!r} is not a date and time", fix)
        if value.tzinfo is not None:
            return value.astimezone(zone)
        found = on_clock(value, zone)
        if found is None:
            earlier = value.replace(tzinfo=zone, fold=0)
            twice = earlier.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) == value
            if not twice:
                raise self.fail(
                    at,
                    f"{at[-1]} = {value.isoformat()} does not exist on {self.zone_label(zone)}'s clock (the clocks "
                    f"skip that hour)",
                    "give a time outside the skipped hour",
                )
            offsets = " or ".join(
                value.replace(
                    tzinfo=timezone(value.replace(tzinfo=zone, fold=f).utcoffset() or timedelta(0))
                ).isoformat()
                for f in (0, 1)
            )
            raise self.fail(
                at,
                f"{at[-1]} = {value.isoformat()} happens twice on {self.zone_label(zone)}'s clock (the clocks go back "
                f"that night)",
                f"write it with the offset you mean: {offsets}",
            )
        return found

    @staticmethod
    def zone_label(zone: tzinfo) -> str:
        return str(getattr(zone, "key", zone))

    def duration(self, value, at: tuple[str, ...]) -> timedelta:
        fix = 'write it as "15 minutes", "36 hours" or "2 days"'
        if value in ("none", 0):
            return timedelta(0)
        found = DURATION.fullmatch(value) if isinstance(value, str) else None
        if not found:
            raise self.fail(at, f"{at[-1] if at else 'grace'} = {value!r} is not a length of time", fix)
        return timedelta(seconds=float(Fraction(found[1]) * int(UNITS[found[2][0].lower()].total_seconds())))

    def penalty(self, value, at: tuple[str, ...]) -> tuple[Fraction, str]:
        if value == "none":
            return Fraction(0), "day"
        found = PENALTY.fullmatch(value) if isinstance(value, str) else None
        if not found or not 0 < Fraction(found[1]) <= 100:
            raise self.fail(
                at,
                f"penalty = {value!r} is not a percent per hour or per day",
                'write it as "10% per day" or "1% per hour" (over 0, at most 100), or "none"',
            )
        return Fraction(found[1]), found[2].lower()

    def percent(self, value, at: tuple[str, ...], key: str, example: str) -> Fraction:
        found = PERCENT.fullmatch(value) if isinstance(value, str) else None
        if not found or not 0 < Fraction(found[1]) <= 100:
            raise self.fail(at, f"{key} = {value!r} is not a percent over 0 and at most 100", f"write it as {example}")
        return Fraction(found[1])

    def late_flag(self, value, at: tuple[str, ...]) -> Fraction | None:
        if value == "none":
            return None
        return self.percent(value, at, "late_flag", '"10%", or "none" (nothing applied; the run names those students)')

    def choice(self, value, at: tuple[str, ...], allowed: tuple[str, ...]) -> str:
        if value not in allowed:
            raise self.fail(
                at,
                f"{at[-1]} = {value!r} is not one of {', '.join(allowed)}",
                f"write {allowed[0]!r} or {allowed[1]!r}",
            )
        return value

    def extensions(self, table, assignment: str, zone: tzinfo, due: datetime) -> dict[str, Extension]:
        if not isinstance(table, dict):
            raise self.fail(
                (assignment, "extensions"), "extensions is not a table", f"write them under [{assignment}.extensions]"
            )
        found: dict[str, Extension] = {}
        for who, value in table.items():
            at = (assignment, "extensions", who)
            line = self.lines.get(at, 0)
            if isinstance(value, (datetime, date)) or (isinstance(value, str) and value[:1].isdigit() and "-" in value):
                until = self.moment(value, at, zone)
                if until <= due:
                    raise self.fail(
                        at, f"{who}'s due date {when_text(until)} is not after the assignment's", "give a later one"
                    )
                extension = Extension(line, until=until)
            else:
                length = self.duration(value, at)
                if length <= timedelta(0):
                    raise self.fail(at, f"{who} = {value!r} gives no more time", 'give "2 days" or "36 hours"')
                unit = DURATION.fullmatch(value)[2][0].lower()  # type: ignore[index]  # duration() matched it
                if unit == "d" and "." in value:
                    raise self.fail(
                        at, f"{who} = {value!r} is part of a day", 'give whole days ("2 days") or hours ("36 hours")'
                    )
                extension = (
                    Extension(line, days=length.days)
                    if unit == "d"
                    else Extension(line, hours=Fraction(length.total_seconds()) / 3600)
                )
            key = who.casefold()
            if key in found:
                raise self.fail(at, f"{who} has two extensions (keys are read regardless of case)", "keep one")
            found[key] = extension
        return found


def on_clock(local: datetime, zone: tzinfo) -> datetime | None:
    """A wall-clock time on zone's clock, aware; None where the clocks' change skips it or shows it twice."""
    first, second = (local.replace(tzinfo=zone, fold=f) for f in (0, 1))
    if first.utcoffset() != second.utcoffset():
        return None
    return first


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line of each table and key of a TOML text, by its path of keys (its first line where one repeats)."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            table = tuple(key_parts(line.strip("[] \t").split("]")[0]))
            found.setdefault(table, number)
        elif line and not line.startswith("#"):
            head = _before_equals(line)
            if head:
                found.setdefault(table + tuple(key_parts(head)), number)
    return found


def key_parts(key: str) -> list[str]:
    """A dotted TOML key's parts, quotes removed: a."b.c".d is a, b.c, d."""
    return [q or s or bare for q, s, bare in re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s"\']+)', key)]


def _before_equals(line: str) -> str:
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "=":
            return line[:i].strip()
    return ""


# ------------------------------------------------------------------ a time on the clock


def later_on_clock(moment: datetime, zone: tzinfo, days: int) -> datetime:
    """The same time of day, ``days`` days later on zone's calendar (a day may last 23 or 25 hours)."""
    local = moment.astimezone(zone).replace(tzinfo=None) + timedelta(days=days)
    return datetime.combine(local.date(), time(local.hour, local.minute, local.second, local.microsecond), tzinfo=zone)
