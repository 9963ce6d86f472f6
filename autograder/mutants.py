"""The catalogue of known mistakes, as edits of the reference, and what they are used for.

Each mistake of an assignment's ``mistakes.py`` is one textual edit of the reference:
applied, it gives a wrong implementation that a student could have written. The kit
uses the catalogue twice:

* feedback: when a student's output differs from the reference, the graders run the
  same probe on each mutant of that name (and of the names it calls); if the
  student's output matches one, the feedback names the mistake in a sentence.
* mutation tests: the kit's own tests grade every mutant and require that it loses
  points on its own name, is named in the feedback, and keeps full marks elsewhere.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from .assignments import Assignment
from .core.compare import matches
from .core.probing import PROBES
from .errors import KitError
from .reference import Reference, exec_source


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


@lru_cache(maxsize=None)
def mutant(assignment: Assignment, mistake: Mistake) -> Reference:
    path = assignment.reference_path
    source = mistake.source(path.read_text())
    return Reference(exec_source(source, f"{path} [{mistake.id}]", f"mutant_{mistake.id}"), label=mistake.id)


@lru_cache(maxsize=None)
def callers(assignment: Assignment) -> dict[str, frozenset[str]]:
    """For each graded name, the graded names whose reference code calls it, directly or not."""
    tree = ast.parse(assignment.reference_path.read_text())
    graded = set(assignment.graded)
    uses = {}
    for node in tree.body:
        if getattr(node, "name", None) in graded:
            uses[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in graded} - {node.name}
    result = {}
    for name in graded:
        found, frontier = set(), {name}
        while frontier:
            frontier = {user for user, used in uses.items() if used & frontier} - found
            found |= frontier
        result[name] = frozenset(found)
    return result


def suspects(assignment: Assignment, name: str) -> list[Mistake]:
    """The mistakes that can change the outputs of ``name``: its own and those of what it calls."""
    return [m for m in catalogue(assignment) if m.target == name or name in callers(assignment)[m.target]]


def diagnose(assignment: Assignment, name: str, probe_id: str, inputs: dict, got: dict) -> list[Mistake]:
    """The known mistakes whose outputs on these inputs equal the student's."""
    tolerances = PROBES[probe_id].tolerances
    found = []
    for mistake in suspects(assignment, name):
        try:
            outputs, error = mutant(assignment, mistake).outputs(probe_id, inputs)
        except Exception:  # a broken catalogue entry must not break a grading; the kit's tests catch it
            continue
        if error is None and matches(got, outputs, tolerances):
            found.append(mistake)
    return found
