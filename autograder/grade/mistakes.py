"""Known mistakes: edits of the reference that a student could have made, and what they are for.

Each mistake of an assignment's ``mistakes.py`` is one textual edit of the reference:
applied, it gives a wrong implementation. The kit uses the catalogue twice:

* feedback: when a check fails, the mistakes of that name (and of the graded names it
  calls) run the same probes; a mistake is named when its outputs equal the student's
  on every failing case of the check (kind, shape, dtype and values), or, where the
  student's code raised, when it raises the same error (type and message). A mistake
  that equals the reference on a failing case cannot explain that failure, so it is
  not named. A mistake of a called name is named only when that name itself fails
  some check (code that passes all its own checks is not the one to fix), and only one
  its own checks named, when they named any; the caller's own look-alike mistakes are
  then not named beside it. While a called name the caller's code uses fails its own
  checks, none of the caller's own mistakes is named (a look-alike may be the called
  name's doing): the feedback says to fix the called name first.
* mutation tests: the kit's own tests grade every mistake and require that it loses
  points on its own name, is named in the feedback, and keeps full marks elsewhere.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache

from ..assignment import Assignment
from ..errors import KitError
from ..public import wire
from ..public.compare import matches
from ..public.probing import PROBES, error_kind
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
    failed: set[str] | None = None,
    named: dict[str, set[str]] | None = None,
    failing_callees: frozenset[str] = frozenset(),
) -> list[Mistake]:
    """The known mistakes that explain every failing case: each {"probe_id", "inputs", "got", "keys"} or {..., "error"}.

    ``failed``: the graded names that lost points, when known (None: one name graded
    alone, so any called name may be at fault); ``named``: the mistakes each called
    name's own checks named; ``failing_callees``: the graded names the student's code of
    ``name`` calls that lost points, whose mistakes only may be named.
    """
    if not failures:
        return []
    keys = [wire.digest(failure["probe_id"], failure["inputs"]) for failure in failures]  # once, not per suspect
    found = []
    for mistake in suspects(assignment, name):
        if failing_callees and mistake.target == name:
            continue  # a called name fails: what looks like the caller's own mistake may be its doing
        if failed is not None and mistake.target != name and mistake.target not in failed:
            continue  # the called name passes all its own checks: its code is not the one to fix
        if named and named.get(mistake.target) and mistake.id not in named[mistake.target] and mistake.target != name:
            continue  # the called name's own checks point to another of its mistakes
        if all(_explains(assignment, mistake, failure, key) for failure, key in zip(failures, keys)):
            found.append(mistake)
    if failed is not None and any(mistake.target != name for mistake in found):
        found = [mistake for mistake in found if mistake.target != name]  # the called name's mistake comes first
    return found


def name_mistakes(
    assignment: Assignment,
    name: str,
    results: list[CheckResult],
    failed: set[str] | None = None,
    named: dict[str, set[str]] | None = None,
    failing_callees: frozenset[str] = frozenset(),
) -> None:
    """Name, for each check of ``name`` whose every failing case carries its evidence, the
    known mistakes that explain them all: in the first failing case's message, and as the
    ``mistakes`` of each failing case. ``results``: that name's check results; the other
    arguments are ``diagnose``'s."""
    for cases in by_check(results).values():
        failing = [c for c in cases if not c.passed]
        evidence = [c.evidence for c in failing if c.evidence]
        if not failing or len(evidence) < len(failing):
            continue
        found = diagnose(assignment, name, evidence, failed, named, failing_callees)
        for mistake in found:  # a called name's mistake is said to be that name's
            where = "" if mistake.target == name else f" (in {mistake.target}, which {name} calls)"
            failing[0].message += f"\nThis looks like a known mistake{where}: {mistake.message}"
        for case in failing:
            case.mistakes = [m.id for m in found]


def _explains(assignment: Assignment, mistake: Mistake, failure: dict, key: str) -> bool:
    try:
        outputs, error = with_mistake(assignment, mistake).outputs(failure["probe_id"], failure["inputs"], key)
    except Exception:  # a broken catalogue entry must not break a grading; the kit's tests catch it
        return False
    if "error" in failure:
        return error is not None and error_kind(error) == error_kind(failure["error"])
    tolerances = PROBES[failure["probe_id"]].tolerances
    keys = failure.get("keys") or list(tolerances)
    compared = {key: tolerances[key] for key in keys}
    return error is None and matches(failure["got"], outputs, compared)
