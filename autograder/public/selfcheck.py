"""Visible checks: the checks a student can see and run, judged like the hidden ones.

Each visible check runs a probe on the student's code and compares its outputs with
the instructor's outputs for the same (visible) inputs, stored in the visible data,
with the same comparison and messages as the hidden graders. When the outputs match a
known mistake's outputs (also stored), the message names it. No reference code ships:
only its outputs on these few inputs.

The visible data (built by autograder/author/visible.py):

    {"assignment": name,
     "checks": [{name, title, probe, keys, inputs, arrays, expected,
                 mistakes: [{id, target, message, outputs or error}], note (optional)}],
     "hidden": {name: {cases, titles}}}

A check with a note only advises: where the outputs differ it passes all the same, and
says its note (display_attention's figure made by pyplot, which a notebook shows twice).

A mistake's target is the graded name whose code holds it: a check of a name that calls
another exercise (MultiHeadAttention calls scaled_dot_product_attention) names that
exercise's mistakes as its, not as the caller's own. When a called exercise fails its
own checks, the caller's report says so first, and none of the caller's own mistakes is
named: what looks like one may be the called exercise's doing.

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
from .carry import Recorded, Substitutes, carried_note
from .compare import differences, matches
from .loader import holds_stub
from .probing import PROBES, Implementation, error_kind, run_probe


@dataclass
class Outcome:
    name: str  # the graded name
    title: str  # what the check verifies
    passed: bool
    message: str = ""
    mistakes: tuple[str, ...] = ()  # ids of the known mistakes the outputs match
    not_done: bool = False  # the exercise still holds its stub
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


def stub_message(exercise) -> str | None:
    """The message of the stub's NotImplementedError an exercise (a function, a class's methods) still holds."""
    for code in code_objects(exercise):
        for constant in code.co_consts:
            if isinstance(constant, str) and holds_stub(constant):
                return constant
    return None


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

    def run(self, impl: Implementation, name: str, failing_callees: tuple[str, ...] = ()) -> list[Outcome]:
        """Run the visible checks of ``name`` on an implementation in this process.

        failing_callees: the exercises ``name`` calls that fail their own checks.
        """
        stub = stub_message(getattr(impl, name))
        if stub is not None:
            message = f"NotImplementedError: {stub}"
            return [Outcome(name, check["title"], False, message, not_done=True) for check in self.checks(name)]
        outcomes = []
        for check in self.checks(name):
            got, error = run_probe(check["probe"], impl, copy.deepcopy(self.inputs(check)))
            outcomes.append(judge(check, got, error, impl.device, failing_callees))
        return outcomes

    def run_carried(self, impl: Implementation, name: str, callees: tuple[str, ...], namespace: dict) -> list[Outcome]:
        """The visible checks of ``name`` again, with the reference standing in for ``callees`` in ``namespace``
        (where the exercise looks them up): values only, answered from the reference's calls recorded on
        each check's inputs."""
        outcomes = []
        for check in self.checks(name):
            outcome = self._carried_outcome(check, impl, callees, namespace)
            outcome.carried = callees
            outcomes.append(outcome)
        return outcomes

    def _carried_outcome(self, check: dict, impl: Implementation, callees: tuple[str, ...], namespace: dict) -> Outcome:
        inputs = copy.deepcopy(self.inputs(check))
        recorded = check.get("carried")
        if recorded is None:  # the reference calls none of them on these inputs
            got, error = run_probe(check["probe"], impl, inputs)
            return judge(check, got, error, impl.device)
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
        return judge(check, got, error, impl.device)

    def hidden_summary(self, name: str) -> str:
        hidden = self.data["hidden"].get(name, {})
        if not hidden:
            return ""
        lines = [f"When your work is graded, {hidden['cases']} hidden checks test {name} further:"]
        lines += [f"  - {title}" for title in hidden["titles"]]
        return "\n".join(lines)


def judge(
    check: dict, got: dict, error: str | None, device: str = "cpu", failing_callees: tuple[str, ...] = ()
) -> Outcome:
    """The outcome of one visible check, from the outputs of the student's code (or its error).

    failing_callees: the exercises the checked one calls that fail their own checks;
    then only their mistakes are named, never the checked exercise's own.
    """
    name, title = check["name"], check["title"]
    suspects = [m for m in check["mistakes"] if not (failing_callees and m.get("target", name) == name)]
    if error:
        not_done = holds_stub(error) and f"({name})" in error  # its own stub, not a called exercise's
        named = [m for m in suspects if m.get("error") is not None and m["error"] == error_kind(error)]
        message = error + "".join(_known(m, name) for m in named)
        return Outcome(name, title, False, message, tuple(m["id"] for m in named), not_done=not_done)
    probe = PROBES[check["probe"]]
    keys = check["keys"] or list(probe.tolerances)
    tolerances = {key: probe.tolerances[key] for key in keys}
    want = {key: wire.array_from_json(value) for key, value in check["expected"].items()}
    problems = differences(got, want, tolerances, device=device, any_device=probe.any_device)
    if not problems:
        return Outcome(name, title, True)
    if check.get("note"):
        return Outcome(name, title, True, check["note"], note=True)
    message, named = problems[0], []
    for mistake in (m for m in suspects if "outputs" in m):
        wrong = {key: wire.array_from_json(value) for key, value in mistake["outputs"].items()}
        if matches(got, wrong, {key: tolerances[key] for key in keys if key in wrong}):
            message += _known(mistake, name)
            named.append(mistake["id"])
    return Outcome(name, title, False, message, tuple(named))


def _known(mistake: dict, name: str) -> str:
    """The line naming a known mistake: a called exercise's is said to be that exercise's."""
    target = mistake.get("target", name)
    where = "" if target == name else f" (in {target}, which {name} calls)"
    return f"\nThis looks like a known mistake{where}: {mistake['message']}"


def report(name: str, outcomes: list[Outcome], hidden: str = "", failing_callees: tuple[str, ...] = ()) -> str:
    """What a check cell prints: each visible check, what failed and why, what the hidden checks test.

    failing_callees: the exercises ``name`` calls that fail their own checks, said first
    when a check of ``name`` fails; where the reference stood in for them (the outcomes'
    ``carried``), that is said first instead.
    """
    passed = sum(o.passed for o in outcomes)
    if outcomes and all(o.not_done for o in outcomes if not o.passed) and passed == 0:
        first = outcomes[0].message.split("NotImplementedError: ", 1)[-1].split(" (in ", 1)[0]
        return f"{name}: not done yet. {first}"
    carried = next((o.carried for o in outcomes if o.carried), ())
    if carried:
        lines = [carried_note(name, carried, verb="checked") + "."]
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
