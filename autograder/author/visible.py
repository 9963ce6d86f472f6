"""The visible checks' data: the instructor's outputs on the visible inputs, for the self-check bundle.

For each visible check of an assignment (solutions/<name>/visible.py) it stores the
inputs, the reference's outputs, and the outputs of every known mistake that differs
on those inputs (or the error it raises, without the place), so that a student's check
can name the mistake without any reference code. It also summarises the hidden checks (how many, and what each verifies), without
their inputs. For a check of a name that calls other graded names, it also stores the reference's
calls of them on the check's inputs (grade/recorded.py), so that the notebook's check can
stand the reference in for an exercise that fails its own checks. The format is read
by autograder/public/selfcheck.py.
"""

from __future__ import annotations

import json

import numpy as np

from ..assignments import Assignment
from ..grade import mistakes as catalogue
from ..grade import recorded
from ..grade.plan import collect, hidden_summary
from ..grade.reference import Reference
from ..public import wire
from ..public.compare import matches
from ..public.probing import PROBES, Tolerance, error_kind, raising_calls


def _select(outputs: dict, keys) -> dict:
    return {key: wire.array_to_json(outputs[key]) for key in keys if key in outputs}


def visible_checks(assignment: Assignment, reference: Reference) -> list[dict]:
    checks = []
    for case in assignment.module("visible").VISIBLE:
        probe_id = case.probe.probe_id
        tolerances = PROBES[probe_id].tolerances
        keys = list(case.keys or tolerances)
        expected = reference.run(probe_id, case.inputs)
        mistakes: list[dict[str, object]] = []
        for mistake in catalogue.suspects(assignment, case.name):
            made = catalogue.with_mistake(assignment, mistake, reference.store)
            outputs, error = made.outputs(probe_id, case.inputs)
            entry = {"id": mistake.id, "target": mistake.target, "message": mistake.message}
            if error is not None:
                calls = sorted(raising_calls(error))
                mistakes.append({**entry, "error": error_kind(error), **({"calls": calls} if calls else {})})
            elif not matches(outputs, expected, {key: tolerances[key] for key in keys}):
                mistakes.append({**entry, "outputs": _select(outputs, keys)})
        meta, arrays = wire.pack(case.inputs)
        carried = (  # kept beside the reference's outputs: recording runs the reference (PyTorch imported)
            reference.noted(
                f"carried {case.name} {wire.digest(probe_id, case.inputs)}",
                recorded.visible_records,
                assignment,
                case.name,
                probe_id,
                case.inputs,
            )
            if assignment.carry_forward
            else None
        )
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
                **({"note": case.note} if case.note else {}),
                **({"carried": carried} if carried else {}),  # {}: the check calls no other graded name
            }
        )
    return checks


def visible_data(assignment: Assignment) -> dict:
    """The visible checks' data; the outputs it computed are kept in the assignment's store, so that the next
    build with the same files (one that finds the release up to date, say) runs neither reference nor mistake."""
    reference = Reference.of(assignment)
    data = {
        "assignment": assignment.name,
        "checks": visible_checks(assignment, reference),
        "hidden": hidden_summary(collect(assignment)),
        "carry_forward": assignment.carry_forward,
        "kinds": recorded.exercise_kinds(assignment, reference),
    }
    if reference.store is not None:
        reference.store.save(complete=reference.store.complete)
    return data


def visible_json(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


# ------------------------------------------------------------------ comparing two builds


def equivalent(old: dict, new: dict) -> bool:
    """Whether two visible data differ only by what the graders' tolerances allow.

    A reference run on another CPU may sum in another order and differ in the last
    digits of a float32; each stored output is compared with its probe's declared
    tolerance, everything else exactly.
    """
    if {k: v for k, v in old.items() if k != "checks"} != {k: v for k, v in new.items() if k != "checks"}:
        return False  # hidden, carry_forward, kinds...: no float in them, so exactly
    if len(old["checks"]) != len(new["checks"]):
        return False
    for a, b in zip(old["checks"], new["checks"]):
        if {k: v for k, v in a.items() if k not in ("expected", "mistakes", "carried")} != {
            k: v for k, v in b.items() if k not in ("expected", "mistakes", "carried")
        }:
            return False
        if not recorded.same_records(a.get("carried"), b.get("carried")):
            return False
        tolerances = PROBES[a["probe"]].tolerances
        if not _same_outputs(a["expected"], b["expected"], tolerances):
            return False
        if [(m["id"], m.get("target"), m["message"], m.get("error"), m.get("calls")) for m in a["mistakes"]] != [
            (m["id"], m.get("target"), m["message"], m.get("error"), m.get("calls")) for m in b["mistakes"]
        ]:
            return False
        if not all(
            _same_outputs(m.get("outputs", {}), n.get("outputs", {}), tolerances)
            for m, n in zip(a["mistakes"], b["mistakes"])
        ):
            return False
    return True


def _same_outputs(a: dict, b: dict, tolerances: dict[str, Tolerance]) -> bool:
    if set(a) != set(b):
        return False
    for key in a:
        x, y = wire.array_from_json(a[key]), wire.array_from_json(b[key])
        if x.shape != y.shape or x.dtype != y.dtype or wire.device_of(x) != wire.device_of(y):
            return False
        if not bool(np.all(tolerances[key].close(x, y))):
            return False
    return True
