"""Visible checks: the checks a student can see and run, judged like the hidden ones.

Each visible check runs a probe on the student's code and compares its outputs with
the instructor's outputs for the same (visible) inputs, stored in the visible data,
with the same comparison and messages as the hidden graders. When the outputs match a
known mistake's outputs (also stored), the message names it. No reference code ships:
only its outputs on these few inputs.

The visible data (built by autograder/author/visible.py):

    {"assignment": name,
     "checks": [{name, title, probe, keys, inputs, arrays, expected,
                 mistakes: [{id, target, message, outputs or error (and calls: what the line
                 that raised it calls)}], note (optional)}],
     "hidden": {name: {cases, titles}}}

A check with a note only advises: where the outputs differ it passes all the same, and
says its note (display_attention's figure made by pyplot, which a notebook shows twice).

A mistake's target is the graded name whose code holds it: a check of a name that calls
another exercise (MultiHeadAttention calls scaled_dot_product_attention) names that
exercise's mistakes as its, not as the caller's own, and only where the caller's code
calls that exercise and the exercise fails its own checks (``attribute``). Then the
caller's report says so first, and none of the caller's own mistakes is named: what
looks like one may be the called exercise's doing. A called exercise's mistake whose
outputs the caller gives while that exercise is not at fault (it passes, the reference
stood in for it, or the caller does its work itself) is never named: where nothing else
is, a hint says where to look instead (``look_alike_line``).

Error carried forward: where an exercise a check's exercise calls fails its own checks,
the checks run a second time with the reference standing in for it (public/carry.py),
answering from the reference's own calls on the check's inputs, stored with the check;
the better of the two runs is reported, and says so.

The same judging serves the student's notebook (public/notebook.py, outputs from this
process) and the grader (outputs from the student's sandboxed process).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from . import wire
from .carry import Substitutes, carried_note
from .compare import differences, matches
from .loader import stub_raised
from .probing import CALLS_ITS_CODE, PROBES, Implementation, error_kind, raising_calls, run_probe
from .replay import Recorded


@dataclass
class Outcome:
    name: str  # the graded name
    title: str  # what the check verifies
    passed: bool
    message: str = ""
    mistakes: tuple[str, ...] = ()  # ids of the known mistakes the outputs match
    not_done: bool = False  # the exercise's own stub raised: not started
    note: bool = False  # passed, with advice in message
    carried: tuple[str, ...] = ()  # the exercises the reference stood in for


def code_objects(exercise) -> list:
    """The code of an exercise (a function, or a class's methods) and every code object nested in it."""
    if isinstance(exercise, type):
        members = [getattr(v, "__func__", getattr(v, "fget", v)) for v in vars(exercise).values()]
    else:
        members = [exercise] if callable(exercise) else []
    found, pending = [], [getattr(m, "__code__", None) for m in members]
    while pending:
        code = pending.pop()
        if code is not None:
            found.append(code)
            pending += [c for c in code.co_consts if hasattr(c, "co_consts")]
    return found


def names_read(exercise) -> set[str]:
    """The global (and attribute) names the code of an exercise reads."""
    return {name for code in code_objects(exercise) for name in code.co_names}


def globals_of(exercise) -> dict:
    """The namespace an exercise (a function, or a class's methods) looks its global names up in."""
    functions = [exercise] + ([v for v in vars(exercise).values() if callable(v)] if isinstance(exercise, type) else [])
    return next((f.__globals__ for f in functions if isinstance(getattr(f, "__globals__", None), dict)), {})


def exercises_called(exercise, name: str, names, namespace: dict) -> dict[str, object]:
    """The other exercises (of ``names``) the code of ``exercise`` reads from ``namespace``, directly or
    through them: {name: the object}."""
    called: dict[str, object] = {}
    pending = [exercise]
    while pending:
        for callee in names_read(pending.pop()) & set(names) - {name} - set(called):
            if callee in namespace:
                called[callee] = namespace[callee]
                pending.append(called[callee])
    return called


def calls_failing(name: str, callees: list[str]) -> str:
    """What a check of ``name`` says first when exercises it calls fail their own checks."""
    if len(callees) == 1:
        return f"{name} calls {callees[0]}, which fails its own check: fix that first."
    listed = ", ".join(callees[:-1]) + f" and {callees[-1]}"
    return f"{name} calls {listed}, which fail their own checks: fix them first."


def demos_wait(name: str, callees) -> str:
    """What a check carried forward adds: the demos run the student's own code, so they wait for the callees."""
    callees = list(callees)
    if len(callees) == 1:
        return f"The demos that use {name} run your own {callees[0]}: they wait until it passes its own checks."
    listed = ", ".join(callees[:-1]) + f" and {callees[-1]}"
    return f"The demos that use {name} run your own {listed}: they wait until these pass their own checks."


class VisibleChecks:
    """The visible checks of one assignment, from its visible data."""

    def __init__(self, data: dict):
        self.data = data
        self.names = list(dict.fromkeys(check["name"] for check in data["checks"]))
        self.carry_forward = bool(data.get("carry_forward"))
        self.kinds: dict[str, str] = data.get("kinds", {})

    def checks(self, name: str) -> list[dict]:
        return [check for check in self.data["checks"] if check["name"] == name]

    @staticmethod
    def inputs(check: dict) -> dict:
        arrays = {key: wire.array_from_json(value) for key, value in check["arrays"].items()}
        return wire.unpack(check["inputs"], {key: np.asarray(value) for key, value in arrays.items()})

    def run(
        self,
        impl: Implementation,
        name: str,
        failing_callees: tuple[str, ...] = (),
        called: tuple[str, ...] | None = None,
    ) -> list[Outcome]:
        """Run the visible checks of ``name`` on an implementation in this process.

        failing_callees: the exercises ``name`` calls that fail their own checks; called:
        every exercise its code calls, directly or not (None: not known, taken as all).

        Whether the exercise is done is told by what its code does, as the grader tells it
        (grade/unfinished.py): where a check fails, it is not done when a check raised its own
        stub's error or, its checks failing before reaching its code (a class whose constructor
        is still empty), calling its code does (``calls_its_code``); then every check says so. A
        stub's line left under a finished return never runs, and changes nothing.
        """
        runs = [
            (check, *run_probe(check["probe"], impl, copy.deepcopy(self.inputs(check)))) for check in self.checks(name)
        ]
        only = common_mistakes([[m["id"] for m in _problem(c, got, error, impl.device)[1]] for c, got, error in runs])
        outcomes = [judge(c, got, error, impl.device, failing_callees, called, only=only) for c, got, error in runs]
        if all(o.passed for o in outcomes):
            return outcomes
        stub = next((o.message for o in outcomes if o.not_done), None)
        if stub is None:
            _, error = run_probe(CALLS_ITS_CODE, impl, {"name": name})
            stub = error if stub_raised(error) == name else None
        if stub is None:
            return outcomes
        return [Outcome(name, o.title, False, stub, not_done=True) for o in outcomes]

    def run_carried(
        self,
        impl: Implementation,
        name: str,
        callees: tuple[str, ...],
        namespace: dict,
        called: tuple[str, ...] | None = None,
    ) -> list[Outcome]:
        """The visible checks of ``name`` again, with the reference standing in for ``callees`` in ``namespace``
        (where the exercise looks them up): values only, answered from the reference's calls recorded on
        each check's inputs. called: as ``run``'s."""
        outcomes = []
        for check in self.checks(name):
            outcome = self._carried_outcome(check, impl, callees, namespace, called)
            outcome.carried = callees
            outcomes.append(outcome)
        return outcomes

    def _carried_outcome(
        self,
        check: dict,
        impl: Implementation,
        callees: tuple[str, ...],
        namespace: dict,
        called: tuple[str, ...] | None,
    ) -> Outcome:
        inputs = copy.deepcopy(self.inputs(check))
        recorded = check.get("carried")
        if recorded is None:  # the reference calls none of them on these inputs
            got, error = run_probe(check["probe"], impl, inputs)
            return judge(check, got, error, impl.device, called=called, stood_in=callees)
        arrays = {key: np.asarray(wire.array_from_json(value)) for key, value in recorded["arrays"].items()}
        answers = Recorded(recorded["records"], arrays)
        substitutes = Substitutes(
            {callee: self.kinds.get(callee, "function") for callee in callees},
            lambda meta, data: answers.handle(meta, data, substitutes.on_callback),
            gradients=False,
            device=impl.device,
        )
        with substitutes.installed([namespace]):
            got, error = run_probe(check["probe"], impl, inputs)
        return judge(check, got, error, impl.device, called=called, stood_in=callees)

    def hidden_summary(self, name: str) -> str:
        hidden = self.data["hidden"].get(name, {})
        if not hidden:
            return ""
        lines = [f"When your work is graded, {hidden['cases']} hidden checks test {name} further:"]
        lines += [f"  - {title}" for title in hidden["titles"]]
        return "\n".join(lines)


def judge(
    check: dict,
    got: dict,
    error: str | None,
    device: str = "cpu",
    failing_callees: tuple[str, ...] = (),
    called: tuple[str, ...] | None = None,
    stood_in: tuple[str, ...] = (),
    only: frozenset[str] | None = None,
) -> Outcome:
    """The outcome of one visible check, from the outputs of the student's code (or its error).

    failing_callees: the exercises the checked one calls that fail their own checks;
    then only their mistakes are named, never the checked exercise's own. called: every
    exercise the checked one's code calls (None: not known, taken as all); stood_in: the
    exercises the reference stood in for in this run; only: where given, the ids of the
    mistakes that may be named (``common_mistakes``).
    """
    name, title = check["name"], check["title"]
    problem, found = _problem(check, got, error, device)
    if problem is None:
        return Outcome(name, title, True)
    if check.get("note") and not error:
        return Outcome(name, title, True, check["note"], note=True)
    not_done = bool(error) and stub_raised(problem) == name  # its own stub, not a called one's
    found = [m for m in found if only is None or m["id"] in only]
    named, look_alikes = attribute(name, found, lambda m: m.get("target", name), failing_callees)
    named, look_alikes = _said_once(named), _said_once(look_alikes)  # one slip, stored as written two ways
    message = problem + shown_inputs(check)
    message += "".join(known_line(name, m.get("target", name), m["message"]) for m in named)
    message += "".join(
        look_alike_line(
            name, m["target"], m["message"], called is None or m["target"] in called, m["target"] in stood_in
        )
        for m in look_alikes
    )
    return Outcome(name, title, False, message, tuple(m["id"] for m in named), not_done=not_done)


def _problem(check: dict, got: dict, error: str | None, device: str) -> tuple[str | None, list[dict]]:
    """What is wrong on one visible check (None: nothing), and the stored mistakes whose outputs (or error)
    are the student's."""
    if error:
        return error, [m for m in check["mistakes"] if m.get("error") is not None and _same_raise(m, error)]
    probe = PROBES[check["probe"]]
    keys = check["keys"] or list(probe.tolerances)
    tolerances = {key: probe.tolerances[key] for key in keys}
    want = {key: wire.array_from_json(value) for key, value in check["expected"].items()}
    problems = differences(got, want, tolerances, device=device, any_device=probe.any_device)
    if not problems:
        return None, []
    return problems[0], [m for m in check["mistakes"] if "outputs" in m and _same_as(got, m["outputs"], tolerances)]


def common_mistakes(found: list[list[str]]) -> frozenset[str] | None:
    """The mistakes to name on an exercise's failing checks, given the ids each one's outputs match: where
    some mistakes match every check that matches any, those only (two mistakes that give the same outputs
    on one check, softmax over dim=1 and over dim=-2 of 3-D scores, are told apart by another check);
    None (no restriction) where none does."""
    sets = [set(ids) for ids in found if ids]
    if len(sets) < 2:
        return None
    common = set.intersection(*sets)
    return frozenset(common) if common else None


def shown_inputs(check: dict) -> str:
    """The check's texts (a sentence, a list of sentences), which the student can see and compare with what
    their code made of them; nothing for a check of arrays."""
    texts = {
        key: value
        for key, value in check.get("inputs", {}).items()
        if isinstance(value, str) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
    }
    return "".join(f"\n  the check's {key}: {value!r}" for key, value in texts.items())


def _said_once(mistakes: list[dict]) -> list[dict]:
    """The mistakes, the first of those with one message only."""
    first: dict[str, dict] = {}
    for mistake in mistakes:
        first.setdefault(mistake["message"], mistake)
    return [mistake for mistake in mistakes if first[mistake["message"]] is mistake]


def _same_raise(mistake: dict, error: str) -> bool:
    """Whether the student's error is the one a stored mistake raises: its type and message, raised by a line
    that calls some of the same functions (or in a function of the student's named after one), where both
    lines are known (``raising_calls``; probing's ``same_error`` for the grader)."""
    if mistake["error"] != error_kind(error):
        return False
    mine, theirs = raising_calls(error, with_function=True), frozenset(mistake.get("calls", ()))
    return not mine or not theirs or bool(mine & theirs)


def _same_as(got: dict, outputs: dict, tolerances: dict) -> bool:
    """Whether the student's outputs equal a mistake's stored ones on every key both have."""
    wrong = {key: wire.array_from_json(value) for key, value in outputs.items()}
    return matches(got, wrong, {key: tolerance for key, tolerance in tolerances.items() if key in wrong})


def attribute(name: str, found: list, target_of, failing_callees) -> tuple[list, list]:
    """Of the known mistakes whose outputs a failing check of ``name`` shows (``found``), those to name and
    those that only look alike: (named, look-alikes). ``target_of(mistake)``: the exercise holding it.

    A mistake of an exercise ``name`` calls is named, as that exercise's, only where the
    student's code of ``name`` calls it and it fails its own checks (``failing_callees``);
    then none of ``name``'s own mistakes is named. Else ``name``'s own mistakes are named.
    The other mistakes of called exercises, whose exercise is not at fault, only look
    alike: given where nothing is named, never named themselves.
    """
    at_fault = [m for m in found if target_of(m) != name and target_of(m) in failing_callees]
    own = [] if failing_callees else [m for m in found if target_of(m) == name]
    named = at_fault or own
    if named:
        return named, []
    return [], [m for m in found if target_of(m) != name and target_of(m) not in failing_callees]


def known_line(name: str, target: str, message: str) -> str:
    """The line naming a known mistake: a called exercise's is said to be that exercise's."""
    where = "" if target == name else f" (in {target}, which {name} calls)"
    return f"\nThis looks like a known mistake{where}: {message}"


def look_alike_line(name: str, target: str, message: str, called: bool, stood_in: bool) -> str:
    """The hint for outputs that a known mistake of ``target`` gives where ``target`` is not at fault:
    ``name`` does that work itself, or calls ``target`` otherwise than it should."""
    if not called:
        why = f"{name} does not call {target}: look where it does that step itself"
    else:
        whose = f"the reference's {target} stood in for yours" if stood_in else f"your {target} passes its own checks"
        why = f"{whose}: look at how {name} calls {target} (the arguments it passes) and what it does with the result"
    return f"\nThis is what a known mistake of {target} gives, yet {why}. That mistake: {message}"


def not_started(outcomes: list[Outcome]) -> bool:
    """Whether an exercise's visible checks found it not started: none passed, and its own stub raised in each."""
    return bool(outcomes) and all(o.not_done and not o.passed for o in outcomes)


def report(name: str, outcomes: list[Outcome], hidden: str = "", failing_callees: tuple[str, ...] = ()) -> str:
    """What a check cell prints: each visible check, what failed and why, what the hidden checks test.

    failing_callees: the exercises ``name`` calls that fail their own checks, said first
    when a check of ``name`` fails; where the reference stood in for them (the outcomes'
    ``carried``), that is said first instead.
    """
    passed = sum(o.passed for o in outcomes)
    if not_started(outcomes):
        first = outcomes[0].message.split("NotImplementedError: ", 1)[-1].split(" (in ", 1)[0]
        return f"{name}: not done yet. {first}"
    carried = next((o.carried for o in outcomes if o.carried), ())
    if carried:
        lines = [carried_note(name, carried, verb="checked") + ".", demos_wait(name, carried)]
    elif failing_callees and passed < len(outcomes):
        lines = [calls_failing(name, list(failing_callees))]
    else:
        lines = []
    lines.append(f"{name}: {passed} of {len(outcomes)} visible checks pass")
    for outcome in outcomes:
        mark = "note" if outcome.note else "ok  " if outcome.passed else "FAIL"
        lines.append(f"  [{mark}] {outcome.title}")
        if not outcome.passed or outcome.note:
            lines += [f"         {line}" for line in outcome.message.splitlines()]
    if hidden:
        lines.append(hidden)
    return "\n".join(lines)
