"""Turn a group of students into a known mistake: the instructor's edit of the reference, checked first.

    python -m autograder cluster-to-mistake GROUP --out DIR -a NAME --id ID --old TEXT --new TEXT --message TEXT [--append]

GROUP is a group's id in DIR/clusters.json (grade-all's): students whose code fails an
exercise the same way, with no known mistake named. The instructor writes the edit of
the reference that makes the same slip (``old`` becomes ``new`` in the code of the
graded name ``--target``, by default the group's exercise) and what a student should
read. The edited reference is graded like any submission, through the sandbox; only
when its code fails the group's exercise exactly as the group does (the same group id)
is the entry printed as mistakes.py writes it, or with ``--append`` added to
solutions/<a>/mistakes.py. The next grade-all names it in the feedback of every
student of the group (the group then gets a new id, its note no longer needed).
The kit's tests then grade the new entry like every other one (tests/grade/).
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
from pathlib import Path

from ...assignments import Assignment
from ...config import GradingConfig
from ...errors import KitError
from ...grade.engine import Grader
from ...grade.mistakes import Mistake, catalogue
from ...results.atomic import write_atomically
from ...results.read import read_results
from ...results.write import gradescope_json
from ..one_submission import grade_one
from .clusters import failing


def load_group(out: Path, group: str) -> dict:
    """The group of that id in out/clusters.json, or a KitError that says where to look."""
    path = Path(out) / "clusters.json"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KitError(f"cannot read {path} ({error}); run grade-all with --out {out} first") from None
    for cluster in found:
        if cluster.get("id") == group:
            return cluster
    raise KitError(f'{path} has no group {group!r}; the ids are in its "id" fields and in report.html')


def check_entry(assignment: Assignment, mistake: Mistake) -> None:
    """Refuse an entry the catalogue cannot take: a taken or malformed id, an unknown target, an edit that misses."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", mistake.id):
        raise KitError(f"--id {mistake.id!r}: use lower-case letters, digits and underscores, like the catalogue's ids")
    if mistake.id in {m.id for m in catalogue(assignment)}:
        raise KitError(f"--id {mistake.id!r} is already in {assignment.folder / 'mistakes.py'}: choose another")
    if mistake.target not in assignment.graded:
        raise KitError(
            f"--target {mistake.target!r} is not a graded name of {assignment.name}: one of {', '.join(assignment.graded)}"
        )
    if not mistake.message.strip():
        raise KitError("--message is empty: write what a student should read (what is wrong and how to look for it)")
    mistake.source(assignment.reference_path.read_text())  # the old text must occur exactly once


def behaviour_of_edit(assignment: Assignment, mistake: Mistake, config: GradingConfig | None = None) -> dict:
    """The edited reference graded like a submission: for each exercise it loses points on, how it fails it."""
    with tempfile.TemporaryDirectory(prefix="autograder-mistake-") as folder:
        path = Path(folder) / f"{assignment.name}_{mistake.id}.py"
        path.write_text(mistake.source(assignment.reference_path.read_text()))
        with Grader(assignment, config or GradingConfig()) as grader:
            outcome = grade_one(grader, path, label=path.name)
    if outcome.report is None:
        raise KitError(f"the reference with that edit could not be graded: {outcome.message}")
    return failing(read_results(gradescope_json(outcome.report)))


def entry_text(mistake: Mistake) -> str:
    """The entry as mistakes.py writes one (a Mistake(...) in the MISTAKES list)."""
    fields = [(name, getattr(mistake, name)) for name in ("id", "target", "old", "new", "message")]
    body = "".join(f"        {name}={json.dumps(value, ensure_ascii=False)},\n" for name, value in fields)
    return f"    Mistake(\n{body}    ),\n"


def append_entry(path: Path, text: str) -> None:
    """Add the entry at the end of the last list the catalogue at path (an assignment's mistakes.py) puts into
    MISTAKES (``MISTAKES = [...]`` or ``MISTAKES += [...]``)."""
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    closing = None
    for node in ast.parse(source).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        if any(getattr(t, "id", None) == "MISTAKES" for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, ast.List) and value.end_lineno is not None:
                closing = value.end_lineno - 1
    if closing is None or lines[closing].strip() != "]":
        raise KitError(f"{path}: cannot find the line that closes MISTAKES = [...]; add the entry by hand:\n{text}")
    updated = "\n".join(lines[:closing] + text.rstrip("\n").split("\n") + lines[closing:])
    ast.parse(updated)
    write_atomically(path, updated)


def cluster_to_mistake(
    out: Path, assignment: Assignment, group: str, edit: dict, append: bool = False, config: GradingConfig | None = None
) -> int:
    """Check the edit (Mistake's fields; target None: the group's exercise) reproduces the group, then print
    (or append) the entry; 0 when it does, 1 when it does not."""
    cluster = load_group(out, group)
    if cluster.get("named"):
        raise KitError(f"group {group} is already the known mistake {cluster['named']}")
    exercise = cluster["exercise"]
    mistake = Mistake(**{**edit, "target": edit.get("target") or exercise})
    check_entry(assignment, mistake)
    found = behaviour_of_edit(assignment, mistake, config).get(exercise)
    if found is None or found.id != group:
        print(f"The edit does not reproduce group {group}: on {exercise}, the group fails")
        print("".join(f"  - {c['check']} ({c['failed']} of {c['of']} cases)\n" for c in cluster["checks"]), end="")
        if found is None:
            print(f"but the edited reference passes every check of {exercise}.")
        else:
            print(f"but the edited reference fails these, as group {found.id} (other checks, cases or outputs):")
            print(
                "".join(f"  - {name} ({failed} of {total} cases)\n" for name, _, failed, total in found.checks), end=""
            )
        return 1
    text = entry_text(mistake)
    print(f"The edit reproduces group {group} ({cluster['size']} students, {exercise}).")
    if append:
        path = assignment.folder / "mistakes.py"
        append_entry(path, text)
        print(f"Added {mistake.id} to {path}; the next grade-all names it for the group's students.")
    else:
        print(
            f"Add this entry to the MISTAKES list of {assignment.folder / 'mistakes.py'} (or run again with --append):"
        )
        print(text, end="")
    return 0
