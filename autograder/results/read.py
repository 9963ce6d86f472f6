"""results.json read back, typed: the one reader, beside its writer (write.py).

Everything the kit does with a results.json once it is written goes through ``Results``:
the feedback files, grade-all's summary, report, groups and notes, the nbgrader
gradebook, the LMS grade files, GitHub Classroom's runner result. A results.json may
come from an earlier version of the kit or be damaged: every key is optional here, a
value of the wrong type counts as missing, and what is there is read. Every text is
cleaned (bounded, control characters shown escaped) but not escaped for any format:
each renderer escapes for its own (results/text.py). ``Results.document`` keeps the
document as it was read, for the updates that must keep every key (update.py).

Visible checks are read from ``extra_data.visible_checks``; results.json files written
before that key existed listed them as tests with ``extra_data.kind`` "visible" (and
their exercise's name first in ``tags``), which are read as visible checks too.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from .outcome import GRADED, KIT_ERROR, NOT_GRADED
from .text import clean
from .write import SELF_CHECKS_TAG

MESSAGE_LIMIT = 4000  # characters of one message (a check's output, a note, an error)
NAME_LIMIT = 300  # characters of a name or a check's title
LIST_LIMIT = 100  # notes, errors, mistakes or checks of one kind read, at most


@dataclass(frozen=True)
class CheckRecord:
    """One check of one exercise as results.json records it: hidden (it carries points) or visible (the notebook's, no points)."""

    exercise: str
    title: str
    visible: bool
    passed: bool
    message: str
    score: float | None = None
    max_score: float | None = None
    visibility: str = ""  # Gradescope's: when its details are shown to the student
    cases: tuple[int, int] | None = None  # (passed, total)
    mistakes: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()  # graded names the reference stood in for (error carried forward)
    behaviour: str = ""  # a digest of what the code did on the failing cases (grade/behaviour.py)

    @property
    def name(self) -> str:
        """The test's name in results.json: "<exercise>: <title>"."""
        return f"{self.exercise}: {self.title}" if self.exercise else self.title

    @property
    def lost(self) -> float:
        if self.score is None or self.max_score is None:
            return 0.0
        return max(0.0, self.max_score - self.score)


@dataclass(frozen=True)
class ExercisePoints:
    name: str
    score: float | None
    max_score: float | None
    not_started: bool = False


@dataclass(frozen=True)
class LatePenalty:
    """What grade-all's late policy made of the submission's time (deliver/late/): extra_data.late_penalty."""

    status: str  # "on time", "late", "flagged" (the LMS says late, not when) or "unknown"
    percent: float = 0.0  # deducted: of the points possible, or of the student's own points (of "score")
    of: str = "possible"
    line: str = ""  # what the student reads ("" for nothing)
    note: str = ""  # what the instructor must know: what was not applied, and why
    submitted_at: str = ""  # ISO 8601, on the policy's clock ("" where the export gives no time)
    due: str = ""  # the assignment's due date
    student_due: str = ""  # the student's, extension included
    late_seconds: int | None = None  # after the student's due date; None where no time is known
    possible: float | None = None  # the points possible the percent is of (the automatic and written answers')
    deducted: float = 0.0  # taken off the automatic score
    score: float | None = None  # the automatic score less the penalty (results.json's score is the raw one)


@dataclass(frozen=True)
class Student:
    """Who a result belongs to, as grade-all recorded them from the LMS's export."""

    name: str = ""
    email: str = ""


@dataclass
class Results:
    """What one results.json says."""

    graded: bool  # it has a score from a grading (its status "graded", or "error" when a check of the kit broke)
    reason: str  # why it was not graded
    status: str = ""  # "graded", "error" or "not graded" (results/outcome.py); "" when the file says none
    student_fault: bool = False  # not graded because nothing gradable was submitted (it scores 0)
    assignment: str = ""
    submission: str = ""
    entry: str = ""  # the file (or package) graded, within the submission
    device: str = ""
    device_why: str = ""  # why that device (--device auto's choice)
    isolation: str = ""
    score: float | None = None
    max_score: float | None = None
    exercises: list[ExercisePoints] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    mistakes: list[str] = field(default_factory=list)  # named by the hidden checks
    explanations: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what loading the code reported
    internal_errors: list[str] = field(default_factory=list)
    hidden_cases: dict[str, int] = field(default_factory=dict)  # exercise -> hidden cases
    hidden_titles: dict[str, list[str]] = field(default_factory=dict)  # exercise -> what they check
    cluster_notes: dict[str, str] = field(default_factory=dict)  # exercise -> the instructor's note for its group
    output: str = ""  # the top-level output
    student: Student = field(default_factory=Student)  # grade-all's record of whose results these are
    submission_digest: str = ""  # grade-all's digest of what was submitted (deliver/grade_all/regrade.py)
    grading_digest: str = ""  # grade-all's digest of what decided the grade (deliver/grade_all/regrade.py)
    late: LatePenalty | None = None  # grade-all's late policy applied; None where none was
    document: dict = field(default_factory=dict, repr=False, compare=False)  # as read, for update.py

    def points(self) -> dict[str, ExercisePoints]:
        """Each exercise's points, by name."""
        return {exercise.name: exercise for exercise in self.exercises}

    def hidden_checks(self) -> list[CheckRecord]:
        return [check for check in self.checks if not check.visible]


class ResultsUnreadable(Exception):
    """A results.json that is missing, unreadable or not a JSON object; the message says which."""


def read_results_file(path: str | os.PathLike) -> Results:
    """A results.json, typed; ResultsUnreadable when there is none to read."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ResultsUnreadable("grading wrote no results.json") from None
    except (OSError, ValueError) as error:
        raise ResultsUnreadable(f"results.json could not be read ({error})") from None
    if not isinstance(data, dict):
        raise ResultsUnreadable("results.json is not a JSON object")
    return read_results(data)


def line(value, limit: int = NAME_LIMIT) -> str:
    """A name or title on one line."""
    return " ".join(clean(value, limit).split())


def number(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []


def _strings(value) -> list[str]:
    return [item for item in _list(value) if isinstance(item, str)]


def _capped(items: list, what: str) -> list[str]:
    lines = [clean(item, MESSAGE_LIMIT) for item in items[:LIST_LIMIT]]
    if len(items) > LIST_LIMIT:
        lines.append(f"… and {len(items) - LIST_LIMIT} more {what}")
    return lines


def _cases(value) -> tuple[int, int] | None:
    cases = _list(value)
    if len(cases) == 2 and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in cases):
        return cases[0], cases[1]
    return None


def _status(value, score: float | None, max_score: float | None) -> bool:
    if value in ("passed", "failed"):
        return value == "passed"
    return score is not None and max_score is not None and score >= max_score - 1e-9


def _exercise_of(test: dict) -> tuple[str, str]:
    """(exercise, check title) of a test named "<exercise>: <title>" and tagged with the exercise."""
    name = test.get("name")
    name = name if isinstance(name, str) else ""
    tags = _strings(test.get("tags"))
    if tags:
        exercise = tags[0]
        title = name[len(exercise) + 2 :] if name.startswith(exercise + ": ") else name
    elif ": " in name:
        exercise, title = name.split(": ", 1)
    else:
        exercise, title = "", name
    return exercise, title


def _test_check(test: dict) -> CheckRecord | None:
    """A check from one test of ``tests``; None for the self-checks' summary (its checks are read apart)."""
    extra = _dict(test.get("extra_data"))
    kind = extra.get("kind")
    if kind == SELF_CHECKS_TAG:
        return None
    exercise, title = _exercise_of(test)
    score, max_score = number(test.get("score")), number(test.get("max_score"))
    visibility = test.get("visibility")
    visibility = visibility if isinstance(visibility, str) else ""
    visible = kind == "visible" if kind in ("visible", "hidden") else visibility == "visible"
    return CheckRecord(
        exercise=line(exercise),
        title=line(title) or "(untitled check)",
        visible=visible,
        passed=_status(test.get("status"), score, max_score),
        message=clean(test.get("output"), MESSAGE_LIMIT),
        score=None if visible else score,
        max_score=None if visible else max_score,
        visibility=visibility,
        cases=_cases(extra.get("cases")),
        mistakes=tuple(line(m) for m in _strings(extra.get("mistakes"))[:LIST_LIMIT]),
        carried=tuple(line(n) for n in _strings(extra.get("carried"))[:LIST_LIMIT]),
        behaviour=line(extra.get("behaviour")),
    )


def _visible_check(entry: dict) -> CheckRecord:
    return CheckRecord(
        exercise=line(entry.get("name")),
        title=line(entry.get("title")) or "(untitled check)",
        visible=True,
        passed=entry.get("status") == "passed",
        message=clean(entry.get("output"), MESSAGE_LIMIT),
        visibility="visible",
        cases=_cases(entry.get("cases")),
        mistakes=tuple(line(m) for m in _strings(entry.get("mistakes"))[:LIST_LIMIT]),
    )


def _exercises(by_name: dict, not_started: set[str], checks: list[CheckRecord]) -> list[ExercisePoints]:
    """Each exercise's points, from by_name; without it, its hidden checks' (and an exercise only checks name)."""
    found: dict[str, ExercisePoints] = {}
    for name, points in by_name.items():
        score = max_score = None
        if isinstance(points, dict):
            score, max_score = number(points.get("score")), number(points.get("max_score"))
        elif isinstance(points, (list, tuple)) and len(points) == 2:
            score, max_score = number(points[0]), number(points[1])
        found[line(name)] = ExercisePoints(line(name), score, max_score, line(name) in not_started)
    for name in dict.fromkeys(c.exercise for c in checks):
        if name in found:
            continue
        hidden = [c for c in checks if c.exercise == name and not c.visible]
        score = sum(c.score or 0.0 for c in hidden) if hidden else None
        top = sum(c.max_score or 0.0 for c in hidden) if hidden else None
        found[name] = ExercisePoints(name, score, top, name in not_started)
    return list(found.values())


def _late(value) -> LatePenalty | None:
    """extra_data.late_penalty, typed; None where there is none (or it names no status)."""
    late = _dict(value)
    if not isinstance(late.get("status"), str):
        return None
    seconds = late.get("late_seconds")
    return LatePenalty(
        status=line(late.get("status")),
        percent=number(late.get("percent")) or 0.0,
        of="score" if late.get("of") == "score" else "possible",
        line=clean(_text(late.get("line")), MESSAGE_LIMIT),
        note=clean(_text(late.get("note")), MESSAGE_LIMIT),
        submitted_at=line(late.get("submitted_at")),
        due=line(late.get("due")),
        student_due=line(late.get("student_due")),
        late_seconds=seconds if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 0 else None,
        possible=number(late.get("possible")),
        deducted=number(late.get("deducted")) or 0.0,
        score=number(late.get("score")),
    )


def read_results(results) -> Results:
    """What a results dict says, typed (tolerant of missing or malformed keys)."""
    results = _dict(results)
    extra = _dict(results.get("extra_data"))
    status = _text(extra.get("status"))
    status = status if status in (GRADED, KIT_ERROR, NOT_GRADED) else ""
    score = number(results.get("score"))
    graded = score is not None and status != NOT_GRADED  # "error": graded, but the kit failed on some checks
    tests = [t for t in _list(results.get("tests"))[: 10 * LIST_LIMIT] if isinstance(t, dict)]
    checks = [c for c in map(_test_check, tests) if c is not None]
    visible = [_visible_check(e) for e in _list(extra.get("visible_checks"))[: 10 * LIST_LIMIT] if isinstance(e, dict)]
    checks += visible
    not_started = {line(name) for name in _strings(extra.get("not_started"))}
    exercises = _exercises(_dict(extra.get("by_name")), not_started, checks)
    max_score = number(extra.get("max_score"))
    if max_score is None:
        tops = [e.max_score for e in exercises if e.max_score is not None]
        max_score = sum(tops) if tops else None
    hidden_cases, hidden_titles = {}, {}
    for name, summary in _dict(extra.get("hidden_summary")).items():
        summary = _dict(summary)
        cases = number(summary.get("cases"))
        if cases is not None and cases >= 0:
            hidden_cases[line(name)] = int(cases)
        hidden_titles[line(name)] = [line(t) for t in _strings(summary.get("titles"))[:LIST_LIMIT]]
    explanations = {
        line(key): clean(value, MESSAGE_LIMIT)
        for key, value in list(_dict(extra.get("mistake_messages")).items())[: 10 * LIST_LIMIT]
    }
    isolation = extra.get("isolation")
    tier = _dict(isolation).get("tier") if isinstance(isolation, dict) else isolation or extra.get("sandbox")
    student = _dict(extra.get("student"))
    return Results(
        graded=graded,
        reason="" if graded else clean(extra.get("error"), MESSAGE_LIMIT),
        status=status,
        student_fault=extra.get("student_fault") is True,
        assignment=line(extra.get("assignment")),
        submission=line(extra.get("submission")),
        entry=clean(_text(extra.get("entry")), MESSAGE_LIMIT),
        device=line(extra.get("device")),
        device_why=clean(_text(extra.get("device_why")), MESSAGE_LIMIT),
        isolation=line(tier),
        score=score,
        max_score=max_score,
        exercises=exercises,
        checks=checks,
        mistakes=list(dict.fromkeys(line(m) for m in _strings(extra.get("mistakes"))))[:LIST_LIMIT],
        explanations=explanations,
        notes=_capped(_list(extra.get("notes")), "notes"),
        internal_errors=_capped(_list(extra.get("internal_errors")), "errors"),
        hidden_cases=hidden_cases,
        hidden_titles=hidden_titles,
        cluster_notes={
            line(name): clean(note, MESSAGE_LIMIT)
            for name, note in list(_dict(extra.get("cluster_notes")).items())[:LIST_LIMIT]
        },
        output=clean(results.get("output"), MESSAGE_LIMIT),
        student=Student(clean(_text(student.get("name")), NAME_LIMIT), clean(_text(student.get("email")), NAME_LIMIT)),
        submission_digest=_text(extra.get("fingerprint"))[:NAME_LIMIT],
        grading_digest=_text(extra.get("grading_digest"))[:NAME_LIMIT],
        late=_late(extra.get("late_penalty")),
        document=results,
    )
