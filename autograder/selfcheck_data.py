"""Build the data of the students' self-checks: the instructor's outputs on the visible inputs.

For each visible check of an assignment (autograder/<name>/visible.py) it stores the
inputs, the reference's outputs, and the outputs of every known mistake that differs
on those inputs, so that a student's check can name the mistake without any reference
code. It also summarises the hidden checks (how many, and what each verifies) from the
grader modules, without their inputs.
"""
from __future__ import annotations

import importlib
import json
import math
from dataclasses import dataclass

from . import mutants
from .assignments import Assignment
from .core import wire
from .core.compare import matches
from .core.probing import PROBES
from .reference import Reference


@dataclass(frozen=True)
class Visible:
    name: str  # the graded name checked
    title: str  # what the check verifies, as the student reads it
    probe: object  # a probe function
    inputs: dict
    keys: tuple[str, ...] | None = None  # the outputs compared (default: all of the probe's)


def _select(outputs: dict, keys) -> dict:
    chosen = {}
    for key in keys:
        for name in (key, f"{key}@dtype", f"{key}@device"):
            if name in outputs:
                chosen[name] = wire.array_to_json(outputs[name])
    return chosen


def visible_checks(assignment: Assignment, reference: Reference) -> list[dict]:
    checks = []
    for case in assignment.module("visible").VISIBLE:
        probe_id = case.probe.probe_id
        tolerances = PROBES[probe_id].tolerances
        keys = list(case.keys or tolerances)
        expected = reference.run(probe_id, case.inputs)
        mistakes = []
        for mistake in mutants.suspects(assignment, case.name):
            outputs, error = mutants.mutant(assignment, mistake).outputs(probe_id, case.inputs)
            if error is None and not matches(outputs, expected, {key: tolerances[key] for key in keys}):
                mistakes.append({"id": mistake.id, "message": mistake.message, "outputs": _select(outputs, keys)})
        meta, arrays = wire.pack(case.inputs)
        checks.append(
            {
                "name": case.name,
                "title": case.title,
                "probe": probe_id,
                "keys": list(case.keys) if case.keys else None,
                "inputs": meta,
                "arrays": {key: wire.array_to_json(value) for key, value in arrays.items()},
                "expected": _select(expected, keys),
                "mistakes": mistakes,
            }
        )
    return checks


def hidden_summary(assignment: Assignment) -> dict[str, dict]:
    """Per graded name: how many hidden cases, and the title of each hidden check."""
    summary: dict[str, dict] = {}
    for path in sorted(assignment.graders_dir.glob("test_*.py")):
        module = importlib.import_module(f"autograder.{assignment.name}.graders.{path.stem}")
        entry = summary.setdefault(module.GRADED, {"cases": 0, "titles": []})
        for attribute in sorted(vars(module)):
            function = getattr(module, attribute)
            if not (attribute.startswith("test_") and callable(function)):
                continue
            marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
            entry["cases"] += math.prod(len(list(mark.args[1])) for mark in marks)
            entry["titles"].append((function.__doc__ or attribute).strip().splitlines()[0])
    return summary


def visible_json(assignment: Assignment) -> str:
    data = {
        "assignment": assignment.name,
        "checks": visible_checks(assignment, Reference.of(assignment)),
        "hidden": hidden_summary(assignment),
    }
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
