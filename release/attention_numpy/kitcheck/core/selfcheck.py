"""The checks a student runs on their own work: ``check(split_heads)`` in the notebook,
or ``python -m kitcheck mha.ipynb``.

Each visible check runs a probe on the student's code and compares its outputs with
the instructor's outputs for the same (visible) inputs, stored in the bundle, with
the same comparison and messages as the hidden graders. When the outputs match a
known mistake's outputs (also stored), the message names it. No reference code ships:
only its outputs on these few inputs.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path

from . import wire
from .compare import differences, matches
from .probing import PROBES, Implementation, run_probe


class CheckFailed(AssertionError):
    """A visible check failed; the message says what is wrong and where to look."""


@dataclass
class Outcome:
    name: str
    title: str
    passed: bool
    message: str = ""


class Bundle:
    """The visible checks of one assignment: visible.json beside its probes.

    visible.json = {"checks": [{name, title, probe, keys, inputs, arrays, expected,
    mistakes: [{id, message, outputs}]}], "hidden": {name: {cases, titles}}}
    """

    def __init__(self, folder: Path):
        self.data = json.loads((folder / "visible.json").read_text())

    @staticmethod
    def _arrays(table: dict) -> dict:
        return {key: wire.array_from_json(value) for key, value in table.items()}

    def checks(self, name: str) -> list[dict]:
        return [check for check in self.data["checks"] if check["name"] == name]

    def run(self, impl: Implementation, name: str) -> list[Outcome]:
        outcomes = []
        for check in self.checks(name):
            inputs = wire.unpack(check["inputs"], self._arrays(check["arrays"]))
            got, error = run_probe(check["probe"], impl, copy.deepcopy(inputs))
            if error:
                outcomes.append(Outcome(name, check["title"], False, error))
                continue
            tolerances = PROBES[check["probe"]].tolerances
            keys = check["keys"] or list(tolerances)
            want = self._arrays(check["expected"])
            problems = differences(got, want, {key: tolerances[key] for key in keys}, device=impl.device)
            if not problems:
                outcomes.append(Outcome(name, check["title"], True))
                continue
            message = problems[0]
            for mistake in check["mistakes"]:
                wrong = self._arrays(mistake["outputs"])
                if matches(got, wrong, {key: tolerances[key] for key in keys if key in wrong}):
                    message += f"\nThis looks like a known mistake: {mistake['message']}"
            outcomes.append(Outcome(name, check["title"], False, message))
        return outcomes

    def hidden_summary(self, name: str) -> str:
        hidden = self.data["hidden"].get(name, {})
        if not hidden:
            return ""
        lines = [f"When your work is graded, {hidden['cases']} hidden checks test {name} further:"]
        lines += [f"  - {title}" for title in hidden["titles"]]
        return "\n".join(lines)


def report(name: str, outcomes: list[Outcome], hidden: str) -> str:
    passed = sum(o.passed for o in outcomes)
    lines = [f"{name}: {passed} of {len(outcomes)} visible checks pass"]
    for outcome in outcomes:
        mark = "ok  " if outcome.passed else "FAIL"
        lines.append(f"  [{mark}] {outcome.title}")
        if not outcome.passed:
            lines += [f"         {line}" for line in outcome.message.splitlines()]
    if hidden:
        lines.append(hidden)
    return "\n".join(lines)


def check_object(bundle: Bundle, obj, device: str = "cpu") -> list[Outcome]:
    """Run the visible checks of the graded name ``obj`` is (a function or class), print, raise on failure."""
    name = getattr(obj, "__name__", None)
    if name is None or not bundle.checks(name):
        known = sorted({c["name"] for c in bundle.data["checks"]})
        raise ValueError(f"check() takes one of the exercises ({', '.join(known)}), not {obj!r}")
    outcomes = bundle.run(Implementation({name: obj}, device=device), name)
    print(report(name, outcomes, bundle.hidden_summary(name)))
    if not all(o.passed for o in outcomes):
        raise CheckFailed(f"{name} fails {sum(not o.passed for o in outcomes)} visible check(s): see above")
    return outcomes
