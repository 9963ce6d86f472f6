"""Visible checks: the checks a student can see and run, judged like the hidden ones.

Each visible check runs a probe on the student's code and compares its outputs with
the instructor's outputs for the same (visible) inputs, stored in the visible data,
with the same comparison and messages as the hidden graders. When the outputs match a
known mistake's outputs (also stored), the message names it. No reference code ships:
only its outputs on these few inputs.

The visible data (built by autograder/author/visible.py):

    {"assignment": name,
     "checks": [{name, title, probe, keys, inputs, arrays, expected, mistakes: [{id, message, outputs or error}]}],
     "hidden": {name: {cases, titles}}}

The same judging serves the student's notebook (public/notebook.py, outputs from this
process) and the grader (outputs from the student's sandboxed process).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from . import wire
from .compare import differences, matches
from .loader import STUB_MARKER
from .probing import PROBES, Implementation, error_kind, run_probe


@dataclass
class Outcome:
    name: str  # the graded name
    title: str  # what the check verifies
    passed: bool
    message: str = ""
    mistakes: tuple[str, ...] = ()  # ids of the known mistakes the outputs match
    not_done: bool = False  # the exercise still holds its stub


def stub_message(exercise) -> str | None:
    """The message of the stub's NotImplementedError an exercise (a function, a class's methods) still holds."""
    functions = (
        [exercise]
        if callable(exercise) and not isinstance(exercise, type)
        else list(vars(exercise).values())
        if isinstance(exercise, type)
        else []
    )
    codes = [getattr(f, "__code__", None) for f in functions]
    while codes:
        code = codes.pop()
        if code is None:
            continue
        for constant in code.co_consts:
            if isinstance(constant, str) and STUB_MARKER in constant:
                return constant
            if hasattr(constant, "co_consts"):
                codes.append(constant)
    return None


class VisibleChecks:
    """The visible checks of one assignment, from its visible data."""

    def __init__(self, data: dict):
        self.data = data
        self.names = list(dict.fromkeys(check["name"] for check in data["checks"]))

    def checks(self, name: str) -> list[dict]:
        return [check for check in self.data["checks"] if check["name"] == name]

    @staticmethod
    def inputs(check: dict) -> dict:
        arrays = {key: wire.array_from_json(value) for key, value in check["arrays"].items()}
        return wire.unpack(check["inputs"], {key: np.asarray(value) for key, value in arrays.items()})

    def run(self, impl: Implementation, name: str) -> list[Outcome]:
        """Run the visible checks of ``name`` on an implementation in this process."""
        stub = stub_message(getattr(impl, name))
        if stub is not None:
            message = f"NotImplementedError: {stub}"
            return [Outcome(name, check["title"], False, message, not_done=True) for check in self.checks(name)]
        outcomes = []
        for check in self.checks(name):
            got, error = run_probe(check["probe"], impl, copy.deepcopy(self.inputs(check)))
            outcomes.append(judge(check, got, error, impl.device))
        return outcomes

    def hidden_summary(self, name: str) -> str:
        hidden = self.data["hidden"].get(name, {})
        if not hidden:
            return ""
        lines = [f"When your work is graded, {hidden['cases']} hidden checks test {name} further:"]
        lines += [f"  - {title}" for title in hidden["titles"]]
        return "\n".join(lines)


def judge(check: dict, got: dict, error: str | None, device: str = "cpu") -> Outcome:
    """The outcome of one visible check, from the outputs of the student's code (or its error)."""
    name, title = check["name"], check["title"]
    if error:
        not_done = STUB_MARKER in error
        named = [m for m in check["mistakes"] if m.get("error") is not None and m["error"] == error_kind(error)]
        message = error + "".join(f"\nThis looks like a known mistake: {m['message']}" for m in named)
        return Outcome(name, title, False, message, tuple(m["id"] for m in named), not_done=not_done)
    probe = PROBES[check["probe"]]
    keys = check["keys"] or list(probe.tolerances)
    tolerances = {key: probe.tolerances[key] for key in keys}
    want = {key: wire.array_from_json(value) for key, value in check["expected"].items()}
    problems = differences(got, want, tolerances, device=device, any_device=probe.any_device)
    if not problems:
        return Outcome(name, title, True)
    message, named = problems[0], []
    for mistake in (m for m in check["mistakes"] if "outputs" in m):
        wrong = {key: wire.array_from_json(value) for key, value in mistake["outputs"].items()}
        if matches(got, wrong, {key: tolerances[key] for key in keys if key in wrong}):
            message += f"\nThis looks like a known mistake: {mistake['message']}"
            named.append(mistake["id"])
    return Outcome(name, title, False, message, tuple(named))


def report(name: str, outcomes: list[Outcome], hidden: str = "") -> str:
    """What a check cell prints: each visible check, what failed and why, what the hidden checks test."""
    passed = sum(o.passed for o in outcomes)
    if outcomes and all(o.not_done for o in outcomes if not o.passed) and passed == 0:
        first = outcomes[0].message.split("NotImplementedError: ", 1)[-1].split(" (in ", 1)[0]
        return f"{name}: not done yet. {first}"
    lines = [f"{name}: {passed} of {len(outcomes)} visible checks pass"]
    for outcome in outcomes:
        mark = "ok  " if outcome.passed else "FAIL"
        lines.append(f"  [{mark}] {outcome.title}")
        if not outcome.passed:
            lines += [f"         {line}" for line in outcome.message.splitlines()]
    if hidden:
        lines.append(hidden)
    return "\n".join(lines)
