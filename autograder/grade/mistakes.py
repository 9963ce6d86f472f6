"""Known mistakes: slips of the reference that a student could make, found by what the code does.

Each mistake of an assignment's ``mistakes.py`` is one textual edit of the reference: applied,
it gives a wrong implementation. A family is one entry with ``values``: an edit whose text
takes a value from each of them ({dim} in "softmax(dim={dim})"), one mistake per value, so
that a search over a slip's parameters (an axis, a constant, a polarity, where a dropout
sits) is written once. The kit uses the catalogue twice:

* feedback: a graded name's failing checks are explained by behaviour. Each mistake's run of
  the hidden checks of the names it can change is known (computed once per machine, kept
  beside the outputs: grade/reference.py); a mistake is named for a name only where it
  fails exactly the cases the student's code fails, every other case passing as the
  student's do, and reproduces the student's outputs on every failing case (kind, shape,
  dtype and values; where the student's code raised, the same error raised by a line that
  calls some of the same functions: public/probing.py ``same_error``). Where no one mistake
  does, two mistakes of the name that fail disjoint cases, each reproducing its own, are
  named together. Where several explain the same, those whose slip the kit finds in the
  student's code (a mistake's ``line``, a regular expression, searched in the student's
  definition of the name) are preferred, and the line found is quoted.
  A mistake of a called name is named only when the student's code of the checked name
  calls that name and that name itself fails some check (code that passes all its own
  checks, or that the checked name never calls, is not the one to fix), and only one its
  own checks named, when they named any. While a called name the caller's code uses fails
  its own checks, none of the caller's own mistakes is named (a look-alike may be the
  called name's doing): the feedback says to fix the called name first. A called name's
  mistake that explains the failure while that name is not at fault is never named:
  where nothing is, a hint says to look at how the caller calls it, or where it does that
  work itself (public/selfcheck.py's ``attribute``, the same rule as the notebook's checks).
* mutation tests: the kit's own tests grade every mistake and require that it loses
  points on its own name, is named in the feedback, and keeps full marks elsewhere.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..assignments import Assignment
from ..errors import KitError
from ..public import wire
from ..public.compare import matches
from ..public.probing import PROBES, same_error
from ..public.selfcheck import attribute, known_line, look_alike_line
from ..results.model import CheckResult, by_check
from ..results.text import clean
from ..sandbox.host.session import StudentError
from .behaviour import plain
from .judge import Mismatch
from .plan import Check, collect
from .reference import OutputStore, Reference, computing, exec_source, store_of

PAIRS_AT_MOST = 64  # pairs of partial explanations tried for one name: the search stays bounded


@dataclass(frozen=True)
class Mistake:
    id: str
    target: str  # the graded name whose code holds the mistake
    old: str  # text of the reference's target definition ...
    new: str  # ... and what the mistake puts in its place
    message: str  # what a student reads: what is wrong and how to look for it
    # A family: one mistake per mapping, each "{key}" of id, old, new, message and line replaced by its value.
    values: Sequence[Mapping[str, str]] = field(default=(), compare=False)
    line: str = ""  # a regular expression finding the slip's line in the student's code of the target
    # Outputs compared in any order: the slip leaves their order to chance (a set's), so only their values count.
    unordered: tuple[str, ...] = ()

    def source(self, reference_source: str) -> str:
        if reference_source.count(self.old) != 1:
            raise KitError(f"mistake {self.id}: its text {self.old!r} must occur exactly once in the reference")
        return reference_source.replace(self.old, self.new)

    def members(self) -> list[Mistake]:
        """The mistakes this entry stands for: itself, or one per value of a family."""
        if not self.values:
            return [self]
        return [
            Mistake(
                _fill(self.id, value),
                self.target,
                _fill(self.old, value),
                _fill(self.new, value),
                _fill(self.message, value),
                line=_fill(self.line, value),
                unordered=self.unordered,
            )
            for value in self.values
        ]


def _fill(text: str, value: Mapping[str, str]) -> str:
    """text with each "{key}" of value replaced (other braces, a dict's or an f-string's, stay as they are)."""
    for key, replacement in value.items():
        text = text.replace("{" + key + "}", replacement)
    return text


@cache
def _catalogue(assignment: Assignment) -> tuple[Mistake, ...]:
    return tuple(member for entry in assignment.module("mistakes").MISTAKES for member in entry.members())


def catalogue(assignment: Assignment) -> list[Mistake]:
    return list(_catalogue(assignment))


def with_mistake(assignment: Assignment, mistake: Mistake, store: OutputStore | None = None) -> Reference:
    """The reference with the mistake made: its code runs only for outputs the store of the assignment's files
    as they are now lacks (one Reference a mistake for each such store). store: that store, where the caller
    has just named it (naming it lists and stats every deciding file)."""
    return _with_mistake(assignment, mistake, store or store_of(assignment))


@cache
def _with_mistake(assignment: Assignment, mistake: Mistake, store: OutputStore) -> Reference:
    path = assignment.reference_path

    def load() -> dict:
        return exec_source(mistake.source(path.read_text()), f"{path} [{mistake.id}]", f"with_mistake_{mistake.id}")

    return Reference(load, label=mistake.id, store=store)


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
    """Compute, once, every mistake's outputs on the probe calls (by graded name) it can change, and which of
    those names' hidden cases it fails."""
    store = store_of(assignment)
    if store.complete:
        return
    with computing(store):  # graders started together on one kit compute it once
        if store.complete:  # saved by another while this one waited
            return
        for mistake in catalogue(assignment):
            made = with_mistake(assignment, mistake)
            for name in {mistake.target} | callers(assignment)[mistake.target]:
                for call in calls.get(name, []):
                    try:
                        made.outputs(call.probe, call.inputs)
                    except Exception:
                        continue  # a broken entry: the kit's tests catch it
                signature(assignment, mistake, name)
        store.save(complete=True)


# ---------------------------------------------------------------- what a mistake fails


def case_key(result: CheckResult) -> str:
    """One case of one check, the same for a student's result and a mistake's."""
    return f"{result.check}[{result.case}]"


def said(message: str) -> str:
    """A digest of a failure's message as the feedback shows it, without what changes from one code to
    another: where an error was raised, float numbers, addresses."""
    text = plain(_RAISED_AT.sub("", clean(message)))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


# Where describe_exception says an error was raised, wherever it is in a message: " (in f, file, line 12: ...)".
_RAISED_AT = re.compile(r" \(in [^()]*?, line \d+(?::[^\n]*)?\)")


class MistakeView:
    """A mistake seen the way a check sees a student: outputs, or the StudentError its code raised."""

    device = "cpu"

    def __init__(self, implementation: Reference):
        self._implementation = implementation

    def run(self, probe_id: str, inputs: dict) -> dict:
        outputs, error = self._implementation.outputs(probe_id, inputs)
        if error is not None:
            problem = StudentError(error)
            problem.evidence = {"probe_id": probe_id, "inputs": inputs, "error": error}
            raise problem
        return outputs

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        return self._implementation.outputs(probe_id, inputs)[1]


@cache
def _plan(assignment: Assignment) -> tuple[Check, ...]:
    return tuple(collect(assignment))


@cache
def _reference(assignment: Assignment) -> Reference:
    return Reference.of(assignment)


def _known(assignment: Assignment, mistake: Mistake, name: str) -> bool:
    """Whether the mistake's run of the name's checks is kept in the store already."""
    return isinstance(store_of(assignment).note(f"signature {mistake.id} {name}"), dict)


def _reproduces_one(assignment: Assignment, mistake: Mistake, failing) -> bool:
    """Whether the mistake reproduces the first failing case that carries its evidence (True where none does)."""
    case = next((result for result in failing if result.evidence), None)
    return case is None or _explains(assignment, mistake, case.evidence)


def signature(assignment: Assignment, mistake: Mistake, name: str) -> dict[str, str]:
    """The hidden cases of ``name`` the mistake fails, each with what its failure says (``said``): computed
    once per machine and kept in the store."""
    return store_of(assignment).noted(f"signature {mistake.id} {name}", _failed_cases, assignment, mistake, name)


def _failed_cases(assignment: Assignment, mistake: Mistake, name: str) -> dict[str, str]:
    fixtures = {
        "student": MistakeView(with_mistake(assignment, mistake)),
        "reference": _reference(assignment),
        "submission": None,
    }
    failed = {}
    for check in _plan(assignment):
        if check.name != name:
            continue
        try:
            check.call(fixtures)
        except (Mismatch, StudentError) as error:
            failed[f"{check.check}[{check.case}]"] = said(error.message if isinstance(error, Mismatch) else str(error))
        except Exception:
            failed[f"{check.check}[{check.case}]"] = "broken"  # never equals a student's failure
    return failed


# ---------------------------------------------------------------- naming


def diagnose(
    assignment: Assignment,
    name: str,
    results: list[CheckResult],
    failing_callees: frozenset[str] = frozenset(),
    named: dict[str, set[str]] | None = None,
    code: str | None = None,
) -> list[tuple[Mistake, frozenset[str]]]:
    """The known mistakes that explain every failing hidden case of ``name`` (``results``: its results), each with
    the cases it explains: one mistake, or two that share the cases between them, or none.

    failing_callees: the graded names the student's code of ``name`` calls that fail their
    own checks: only their mistakes may be named, as theirs (and then none of ``name``'s
    own); ``named``: the mistakes each called name's own checks named; ``code``: the
    student's code of the names (public/loader.py ``definitions``), where the kit has it.
    Every suspect that explains the failures is returned; ``attribute`` says which to name.
    """
    hidden = [r for r in results if r.kind == "hidden"]
    failing = {case_key(r): r for r in hidden if not r.passed}
    if not failing or any(r.internal_error for r in failing.values()):
        return []
    whole: list[tuple[Mistake, frozenset[str]]] = []
    partial: list[tuple[Mistake, frozenset[str]]] = []
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
        if not _known(assignment, mistake, name) and not _reproduces_one(assignment, mistake, failing.values()):
            continue  # where its run of the checks is not kept yet, one failing case decides whether to make it
        fails = signature(assignment, mistake, name)
        if mistake.unordered and set(failing) <= set(fails):
            # Its order is the grader's, not the student's: a case the student's order happened to pass may fail.
            fails = {key: fails[key] for key in failing}
        if not fails or not set(fails) <= set(failing):
            continue  # it passes a case the student's code fails, or fails one it passes
        if all(_reproduces(assignment, mistake, failing[key], said_there) for key, said_there in fails.items()):
            (whole if len(fails) == len(failing) else partial).append((mistake, frozenset(fails)))
    if whole:
        return _preferred(whole, code)
    pairs = [
        [first, second]
        for first, second in itertools.islice(itertools.combinations(partial, 2), PAIRS_AT_MOST)
        if first[0].target == second[0].target
        and not first[1] & second[1]
        and len(first[1]) + len(second[1]) == len(failing)
    ]
    if pairs:
        return pairs[0] if len(pairs) == 1 else []
    if failing_callees or not store_of(assignment).complete:
        return []  # two slips at once are searched for where every mistake's run is kept (grade/engine.py prepares it)
    return _made_together(assignment, name, failing)


def _made_together(
    assignment: Assignment, name: str, failing: dict[str, CheckResult]
) -> list[tuple[Mistake, frozenset[str]]]:
    """Two of the name's own mistakes made in one code, where no one alone explains every failing case (a
    softmax shifted by the array's largest entry and summed over axis 0): the reference with both edits made
    must fail exactly the student's cases and reproduce every one. The pairs of mistakes that fail only cases
    the student's code fails are tried, those that reproduce most cases first, at most COMBINED_AT_MOST
    combined references for one name (each kept in the store, once per machine)."""
    own = []
    for mistake in catalogue(assignment):
        if mistake.target != name or mistake.unordered:
            continue
        fails = signature(assignment, mistake, name)
        if fails and set(fails) <= set(failing):
            reproduced = sum(_reproduces(assignment, mistake, failing[key], said) for key, said in fails.items())
            own.append((reproduced, mistake, frozenset(fails)))
    pairs = sorted(
        (
            (first, second)
            for first, second in itertools.combinations(own, 2)
            if first[0] + second[0] and first[2] | second[2] == set(failing)
        ),
        key=lambda pair: -(pair[0][0] + pair[1][0]),
    )
    found, tried = [], 0
    for (_, first, first_fails), (_, second, second_fails) in pairs:
        both = _both(assignment, first, second)
        if both is None:
            continue  # their edits overlap: no code makes both
        tried += 1
        fails = signature(assignment, both, name)
        if set(fails) == set(failing) and all(_reproduces(assignment, both, failing[k], s) for k, s in fails.items()):
            found.append([(first, first_fails), (second, second_fails)])
        if tried == COMBINED_AT_MOST:
            break
    return found[0] if len(found) == 1 else []


COMBINED_AT_MOST = 6  # combined references run for one name, at most


def _both(assignment: Assignment, first: Mistake, second: Mistake) -> Mistake | None:
    """The reference with both mistakes made, as one edit (None where their edits overlap)."""
    reference = assignment.reference_path.read_text()
    edited = first.source(reference)
    if edited.count(second.old) != 1:
        return None
    return Mistake(f"{first.id}+{second.id}", first.target, reference, edited.replace(second.old, second.new), "")


def _preferred(found: list[tuple[Mistake, frozenset[str]]], code: str | None) -> list[tuple[Mistake, frozenset[str]]]:
    """Of mistakes that explain the same cases: those whose outputs are reproduced exactly rather than up to
    their order, then those whose line is in the student's code (all, where the code says nothing)."""
    exact = [entry for entry in found if not entry[0].unordered]
    found = exact or found
    seen = [entry for entry in found if code is not None and slip_line(entry[0], code)]
    said_once = {entry[0].message: entry for entry in reversed(seen or found)}  # one slip, written two ways
    return [entry for entry in seen or found if said_once[entry[0].message] is entry]


def slip_line(mistake: Mistake, code: str) -> str | None:
    """The first line of the student's code where the mistake's ``line`` pattern is found (stripped), if any."""
    if not mistake.line:
        return None
    pattern = re.compile(mistake.line)
    found = next((line for line in code.splitlines() if pattern.search(line)), None)
    if found is None:
        return None
    found = _COMMENT.sub("", found).strip()
    return found if len(found) <= LINE_SHOWN else found[: LINE_SHOWN - 3] + "..."


LINE_SHOWN = 120  # characters of a student's line quoted, at most
_COMMENT = re.compile(r"\s+#[^'\"]*$")  # a comment ending the line (one with no quote in it)


def name_mistakes(
    assignment: Assignment,
    name: str,
    results: list[CheckResult],
    failing_callees: frozenset[str] = frozenset(),
    named: dict[str, set[str]] | None = None,
    called: frozenset[str] | None = None,
    stood_in: frozenset[str] = frozenset(),
    code: dict[str, str] | None = None,
) -> None:
    """Name the known mistakes that explain the failing cases of ``name`` (``diagnose``): in the first failing
    case's message of each check they explain, with the line of the student's code that holds the slip where
    the kit finds it, and as the ``mistakes`` of each case they explain. A called name's mistake whose name is
    not at fault is a hint in that message only. ``results``: that name's check results; ``failing_callees``
    and ``named``: ``diagnose``'s; ``called``: the graded names the student's code of ``name`` calls (None: not
    known, taken as all); ``stood_in``: those the reference stood in for (error carried forward); ``code``:
    the student's code of each graded name (public/loader.py ``definitions``), where the kit has it."""
    code = code or {}
    found = diagnose(assignment, name, results, failing_callees, named, code.get(name))
    chosen, look_alikes = attribute(name, [m for m, _ in found], lambda m: m.target, failing_callees)
    for mistake, keys in found:
        if mistake in chosen:
            where = slip_line(mistake, code[mistake.target]) if mistake.target in code else None
            said_here = known_line(name, mistake.target, mistake.message) + (f" (your line: {where})" if where else "")
        elif mistake in look_alikes:
            calls = called is None or mistake.target in called
            said_here = look_alike_line(name, mistake.target, mistake.message, calls, mistake.target in stood_in)
        else:
            continue
        explained = [r for r in results if r.kind == "hidden" and not r.passed and case_key(r) in keys]
        for cases in by_check(explained).values():
            cases[0].message += said_here
            if mistake in chosen:
                for case in cases:
                    case.mistakes += [] if mistake.id in case.mistakes else [mistake.id]


def _reproduces(assignment: Assignment, mistake: Mistake, result: CheckResult, said_there: str) -> bool:
    """Whether the mistake fails this case of the student's the way the student's code does."""
    if result.evidence:
        return _explains(assignment, mistake, result.evidence)
    return not result.process_failure and said(result.message) == said_there


def _explains(assignment: Assignment, mistake: Mistake, failure: dict) -> bool:
    try:
        outputs, error = with_mistake(assignment, mistake).outputs(failure["probe_id"], failure["inputs"])
    except Exception:  # a broken catalogue entry must not break a grading; the kit's tests catch it
        return False
    if "error" in failure:
        return error is not None and same_error(error, failure["error"])
    tolerances = PROBES[failure["probe_id"]].tolerances
    keys = failure.get("keys") or list(tolerances)
    compared = {key: tolerances[key] for key in keys}
    got = failure["got"]
    if mistake.unordered:
        got, outputs = _in_order(got, mistake.unordered), _in_order(outputs, mistake.unordered)
    return error is None and matches(got, outputs, compared)


def _in_order(outputs: dict, keys: tuple[str, ...]) -> dict:
    """The outputs with those of ``keys`` sorted: their values, whatever order the code left them in."""
    return {
        key: wire.with_device(np.sort(value, axis=None), wire.device_of(value)) if key in keys else value
        for key, value in outputs.items()
    }
