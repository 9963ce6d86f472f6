"""Groups of students whose code fails an exercise the same way, and the notes an instructor writes for a group.

grade-all groups, per exercise, the students who lost points on it by what their code
did: the same hidden checks fail, each on the same cases with the same behaviour (the
digest grade/behaviour.py gives each failing case: the same outputs as the check's
tolerance judges them, or the same error in the same probe), and the same known
mistakes are named. Nothing is merged beyond that. A group's id is a digest of that
behaviour, so the same slip gets the same id in every run and every term, whoever
makes it and on whatever CPU they are graded. DIR/clusters.json lists the groups:

    [{"id": "5f0c1e2d3a4b", "exercise": "split_heads", "size": 12,
      "students": ["doejane-12345", ...],          # summary.csv's keys
      "named": null,                               # the known mistake named, or null
      "checks": [{"check": "keeps each head's features", "failed": 3, "of": 4}],
      "excerpt": "def split_heads(x, n_heads): ...",  # one member's code
      "unfinished": false,                         # that code is not started: it still raises its stub
      "note": null}, ...]                          # the instructor's note, when written

An instructor writes a note for a group once, in solutions/<a>/cluster_notes.toml:

    "5f0c1e2d3a4b" = "You reshaped to (batch, n_heads, seq, d_key) directly: ..."

and the next grade-all puts it into the feedback of every student of that group, this
term's and any later term's whose code does the same. A note decides no grade: it is
not part of what makes grade-all grade a class again; the students whose notes
changed get their feedback written anew. A group that a new catalogue entry comes to
name (``cluster-to-mistake``) gets a new id: its members then read the catalogue's
message.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from ...assignments import Assignment
from ...errors import KitError
from ...grade.deciding import NOTES_FILE
from ...results.atomic import write_atomically
from ...results.outcome import GRADED
from ...results.read import CheckRecord, Results
from ...results.text import clean
from ...results.update import with_cluster_notes
from ..grade_all.class_folder import rewrite_student

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

NOTE_LIMIT = 4000  # characters of one note


@dataclass(frozen=True)
class Failing:
    """How one student's code fails one exercise."""

    exercise: str
    checks: tuple[tuple[str, str, int, int], ...]  # (test name, behaviour, failed cases, cases), in the results' order
    named: tuple[str, ...]  # the known mistakes the failing checks name

    @property
    def id(self) -> str:
        lines = [self.exercise] + sorted(f"{name}\t{behaviour}" for name, behaviour, _, _ in self.checks)
        lines.append("named: " + ",".join(self.named))
        return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def failing(results: Results) -> dict[str, Failing]:
    """Per exercise a graded student lost points on, how their code fails it; an exercise a check
    could not judge (the kit failed, or results from before behaviours were recorded) is left out."""
    if results.status != GRADED:
        return {}
    by_exercise: dict[str, list[CheckRecord]] = {}
    for check in results.hidden_checks():
        if check.exercise and not check.passed:
            by_exercise.setdefault(check.exercise, []).append(check)
    found = {}
    for exercise, checks in by_exercise.items():
        failed = tuple((check.name, check.behaviour, _failed_cases(check), _cases(check)) for check in checks)
        if all(check.behaviour for check in checks):
            named = tuple(sorted({m for check in checks for m in check.mistakes}))
            found[exercise] = Failing(exercise, failed, named)
    return found


def _cases(check: CheckRecord) -> int:
    return check.cases[1] if check.cases else 0


def _failed_cases(check: CheckRecord) -> int:
    return check.cases[1] - check.cases[0] if check.cases else 0


def cluster_ids(results: Results) -> dict[str, str]:
    """The group of each exercise a student lost points on, by id."""
    return {exercise: entry.id for exercise, entry in failing(results).items()}


# ------------------------------------------------------------------ the class


def clusters(assignment: Assignment, results: dict[str, Results], code_of, notes: dict[str, str]) -> list[dict]:
    """The groups of a class, exercise by exercise in the students' order, largest first.

    results: each student's results by key; code_of(key): that student's own code
    (deliver/class_view/sources.py), read for one member of each group only."""
    groups: dict[str, tuple[Failing, list[str]]] = {}
    for key in sorted(results):
        for entry in failing(results[key]).values():
            groups.setdefault(entry.id, (entry, []))[1].append(key)
    order = {name: i for i, name in enumerate(assignment.graded)}
    ranked = sorted(groups.values(), key=lambda g: (order.get(g[0].exercise, len(order)), -len(g[1]), g[0].id))
    found = []
    for entry, members in ranked:
        excerpt = code_of(members[0]).excerpt(entry.exercise)
        found.append(
            {
                "id": entry.id,
                "exercise": entry.exercise,
                "size": len(members),
                "students": members,
                "named": ", ".join(entry.named) or None,
                "checks": [
                    {"check": _title(name, entry.exercise), "failed": failed, "of": total}
                    for name, _, failed, total in entry.checks
                ],
                "excerpt": clean(excerpt, 2000),
                "unfinished": _not_started(results[members[0]], entry.exercise),
                "note": notes.get(entry.id),
            }
        )
    return found


def _not_started(results: Results, exercise: str) -> bool:
    """Whether the grading found the exercise not started (its code raised its own stub's error: grade/unfinished.py)."""
    points = results.points().get(exercise)
    return points is not None and points.not_started


def _title(test_name: str, exercise: str) -> str:
    return test_name[len(exercise) + 2 :] if test_name.startswith(exercise + ": ") else test_name


def write_clusters(path: Path, found: list[dict]) -> None:
    write_atomically(path, json.dumps(found, indent=2, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ notes


def notes_path(assignment: Assignment) -> Path:
    return assignment.folder / NOTES_FILE


def read_notes(assignment: Assignment) -> dict[str, str]:
    """The instructor's notes by group id (none when the file is absent); a malformed file says what to fix."""
    path = notes_path(assignment)
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise KitError(f'{path}: {error}; write one line per group: "<id>" = "the note"') from None
    wrong = [key for key, value in table.items() if not isinstance(value, str)]
    if wrong:
        raise KitError(
            f"{path}: the note of {', '.join(wrong[:5])} is not text; write it in quotes, "
            f'"<id>" = "the note" (or """...""" over several lines)'
        )
    return {key: value.strip()[:NOTE_LIMIT] for key, value in table.items() if value.strip()}


def notes_for(results: Results, notes: dict[str, str]) -> dict[str, str]:
    """The notes a student's feedback shows, by exercise: those written for their groups."""
    return {exercise: notes[group] for exercise, group in cluster_ids(results).items() if group in notes}


def apply_notes(submissions, results: dict[str, Results], notes: dict[str, str], out: Path, show_hidden: bool) -> int:
    """Put each student's notes into their results.json and feedback where they changed (and into ``results``);
    how many changed."""
    changed = 0
    for submission in submissions:
        result = results.get(submission.key)
        if result is None or result.status != GRADED:
            continue
        updated = with_cluster_notes(result, notes_for(result, notes))
        if updated is None:
            continue
        rewrite_student(out, submission.key, updated, show_hidden, submission.name)
        results[submission.key] = updated
        changed += 1
    return changed
