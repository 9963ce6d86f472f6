"""Known mistakes: edits of the reference that a student could have made, and what they are for.

Each mistake of an assignment's ``mistakes.py`` is one textual edit of the reference:
applied, it gives a wrong implementation. The kit uses the catalogue twice:

* feedback: when a check fails, the mistakes of that name (and of the graded names it
  calls) run the same probes; a mistake is named when its outputs equal the student's
  on every failing case of the check (kind, shape, dtype and values), or, where the
  student's code raised, when it raises the same error (type and message) by a line that
  calls some of the same functions (public/probing.py ``same_error``). A mistake
  that equals the reference on a failing case cannot explain that failure, so it is
  not named. A mistake of a called name is named only when the student's code of the
  checked name calls that name and that name itself fails some check (code that passes
  all its own checks, or that the checked name never calls, is not the one to fix), and
  only one its own checks named, when they named any; the caller's own look-alike
  mistakes are then not named beside it. While a called name the caller's code uses
  fails its own checks, none of the caller's own mistakes is named (a look-alike may be
  the called name's doing): the feedback says to fix the called name first. A called
  name's mistake that explains the failure while that name is not at fault is never
  named: where nothing is, a hint says to look at how the caller calls it, or where it
  does that work itself (public/selfcheck.py's ``attribute``, the same rule as the
  notebook's checks).
* mutation tests: the kit's own tests grade every mistake and require that it loses
  points on its own name, is named in the feedback, and keeps full marks elsewhere.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache

from ..assignments import Assignment
from ..errors import KitError
from ..public import wire
from ..public.compare import matches
from ..public.probing import PROBES, same_error
from ..public.selfcheck import attribute, common_mistakes, known_line, look_alike_line
from ..results.model import CheckResult, by_check
from .reference import Reference, exec_source, store_of


@dataclass(frozen=True)
class Mistake:
    id: str
    target: str  # the graded name whose code holds the mistake
    old: str  # text of the reference's target definition ...
    new: str  # ... and what the mistake puts in its place
    message: str  # what a student reads: what is wrong and how to look for it

    def source(self, reference_source: str) -> str:
        if reference_source.count(self.old) != 1:
            raise KitError(f"mistake {self.id}: its text {self.old!r} must occur exactly once in the reference")
        return reference_source.replace(self.old, self.new)


def catalogue(assignment: Assignment) -> list[Mistake]:
    return list(assignment.module("mistakes").MISTAKES)


@cache
def with_mistake(assignment: Assignment, mistake: Mistake) -> Reference:
    """The reference with the mistake made: its code runs only for outputs the store lacks."""
    path = assignment.reference_path

    def load() -> dict:
        return exec_source(mistake.source(path.read_text()), f"{path} [{mistake.id}]", f"with_mistake_{mistake.id}")

    return Reference(load, label=mistake.id, store=store_of(assignment))


@cache
def callers(assignment: Assignment) -> dict[str, frozenset[str]]:
    """For each graded name, the graded names whose reference code calls it, directly or not."""
    tree = ast.parse(assignment.reference_path.read_text())
    graded = set(assignment.graded)
    uses = {}
    for node in tree.body:
        name = getattr(node, "name", None)
        if name in graded:
            uses[name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in graded} - {name}
    result = {}
    for name in graded:
        found: set[str] = set()
        frontier = {name}
        while frontier:
            frontier = {user for user, used in uses.items() if used & frontier} - found
            found |= frontier
        result[name] = frozenset(found)
    return result


def suspects(assignment: Assignment, name: str) -> list[Mistake]:
    """The mistakes that can change the outputs of ``name``: its own and those of what it calls."""
    return [m for m in catalogue(assignment) if m.target == name or name in callers(assignment)[m.target]]


def callees_first(assignment: Assignment) -> list[str]:
    """The graded names, each after every name it calls."""
    calls = {
        name: {callee for callee, users in callers(assignment).items() if name in users} for name in assignment.graded
    }
    return sorted(assignment.graded, key=lambda name: len(calls[name]))


def prepare(assignment: Assignment, calls: dict) -> None:
    """Compute, once, every mistake's outputs on the probe calls (by graded name) it can change."""
    store = store_of(assignment)
    if store.complete:
        return
    for mistake in catalogue(assignment):
        for name in {mistake.target} | callers(assignment)[mistake.target]:
            for call in calls.get(name, []):
                try:
                    with_mistake(assignment, mistake).outputs(call.probe, call.inputs)
                except Exception:
                    continue  # a broken entry: the kit's tests catch it
    store.save(complete=True)


def diagnose(
    assignment: Assignment,
    name: str,
    failures: list[dict],
    failing_callees: frozenset[str] = frozenset(),
    named: dict[str, set[str]] | None = None,
) -> list[Mistake]:
    """The known mistakes that explain every failing case: each {"probe_id", "inputs", "got", "keys"} or {..., "error"}.

    failing_callees: the graded names the student's code of ``name`` calls that fail their
    own checks: only their mistakes may be named, as theirs (and then none of ``name``'s
    own); ``named``: the mistakes each called name's own checks named. Every suspect that
    explains the failures is returned; ``attribute`` says which to name.
    """
    if not failures:
        return []
    keys = [wire.digest(failure["probe_id"], failure["inputs"]) for failure in failures]  # once, not per suspect
    found = []
    for mistake in suspects(assignment, name):
        if failing_callees and mistake.target == name:
            continue  # a called name fails: what looks like the caller's own mistake may be its doing
        if (
            named
            and mistake.target in failing_callees
            and named.get(mistake.target)
            and mistake.id not in named[mistake.target]
        ):
            continue  # the called name's own checks point to another of its mistakes
        if all(_explains(assignment, mistake, failure, key) for failure, key in zip(failures, keys)):
            found.append(mistake)
    return found


def name_mistakes(
    assignment: Assignment,
    name: str,
    results: list[CheckResult],
    failing_callees: frozenset[str] = frozenset(),
    named: dict[str, set[str]] | None = None,
    called: frozenset[str] | None = None,
    stood_in: frozenset[str] = frozenset(),
) -> None:
    """Name, for each check of ``name`` whose every failing case carries its evidence, the
    known mistakes that explain them all: in the first failing case's message, and as the
    ``mistakes`` of each failing case. Where some mistakes explain every check that any
    explains, only those are named (``common_mistakes``). A called name's mistake whose
    name is not at fault is a hint in that message only. ``results``: that name's check results; ``failing_callees``
    and ``named``: ``diagnose``'s; ``called``: the graded names the student's code of
    ``name`` calls (None: not known, taken as all); ``stood_in``: those the reference stood
    in for (error carried forward)."""
    explained = []  # (the failing cases of a check, the mistakes that explain them all)
    for cases in by_check(results).values():
        failing = [c for c in cases if not c.passed]
        evidence = [c.evidence for c in failing if c.evidence]
        if failing and len(evidence) == len(failing):
            explained.append((failing, diagnose(assignment, name, evidence, failing_callees, named)))
    only = common_mistakes([[m.id for m in found] for _, found in explained])
    for failing, found in explained:
        found = [m for m in found if only is None or m.id in only]
        chosen, look_alikes = attribute(name, found, lambda m: m.target, failing_callees)
        for mistake in chosen:
            failing[0].message += known_line(name, mistake.target, mistake.message)
        for mistake in look_alikes:
            calls = called is None or mistake.target in called
            failing[0].message += look_alike_line(
                name, mistake.target, mistake.message, calls, mistake.target in stood_in
            )
        for case in failing:
            case.mistakes = [m.id for m in chosen]


def _explains(assignment: Assignment, mistake: Mistake, failure: dict, key: str) -> bool:
    try:
        outputs, error = with_mistake(assignment, mistake).outputs(failure["probe_id"], failure["inputs"], key)
    except Exception:  # a broken catalogue entry must not break a grading; the kit's tests catch it
        return False
    if "error" in failure:
        return error is not None and same_error(error, failure["error"])
    tolerances = PROBES[failure["probe_id"]].tolerances
    keys = failure.get("keys") or list(tolerances)
    compared = {key: tolerances[key] for key in keys}
    return error is None and matches(failure["got"], outputs, compared)
