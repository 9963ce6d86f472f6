"""The reference's calls of other graded names on each visible check, recorded for the notebook.

The notebook has no grader to ask, so where a graded name calls others (a layer calling
``split_heads``), the self-check bundle carries what the reference's callee returned on
each visible check's inputs; public/carry.py's ``Recorded`` answers from those records,
standing the reference in for a callee that fails its own checks (grade/carry.py does
the same live, for the hidden graders).
"""

from __future__ import annotations

import copy

import numpy as np

from ..assignments import Assignment
from ..public import wire
from ..public.plain_trees import Encoder, method_signature_of, normalized
from ..public.probing import Implementation, run_probe
from ..public.replay import same_tree
from .carry import kinds, plain_error
from .inputs import rng
from .reference import Reference, exec_source


class _Log:
    def __init__(self):
        self.records: list[dict] = []
        self.arrays: dict = {}

    def open(self, kind: str, name: str, args: tuple, kwargs: dict, **extra) -> tuple[dict, tuple, dict]:
        """A record of a call, and its arguments with each function passed replaced by one that records its calls."""
        passed: list = []
        encoder = Encoder(self.arrays, passed)
        record = {"kind": kind, "name": name, "args": encoder.tree(tuple(args)), "kwargs": encoder.tree(dict(kwargs))}
        if "state" in extra:
            record.update(state=encoder.tree(extra["state"]), training=bool(extra["training"]))
        record["callbacks"] = []
        self.records.append(record)
        recorders = {
            id(function): self._recorder(record, position, function) for position, function in enumerate(passed)
        }
        return record, _swap_callables(args, recorders), _swap_callables(kwargs, recorders)

    def _recorder(self, record: dict, position: int, function):
        def recorded(*args, **kwargs):
            result = function(*args, **kwargs)
            encoder = Encoder(self.arrays, [])
            record["callbacks"].append(
                {
                    "handle": position,
                    "args": encoder.tree(tuple(args)),
                    "kwargs": encoder.tree(dict(kwargs)),
                    "result": encoder.tree(result),
                }
            )
            return result

        return recorded

    def close(self, record: dict, result=None, error: BaseException | None = None) -> None:
        if error is not None:
            record["result"], record["error"] = None, plain_error(error)
        else:
            record["result"], record["error"] = Encoder(self.arrays).tree(result), None


def _swap_callables(value, recorders: dict):
    if id(value) in recorders and callable(value):
        return recorders[id(value)]
    if isinstance(value, (list, tuple)):
        return type(value)(_swap_callables(item, recorders) for item in value)
    if isinstance(value, dict):
        return {key: _swap_callables(item, recorders) for key, item in value.items()}
    return value


def _recording_function(function, name: str, log: _Log):
    def recording(*args, **kwargs):
        args, kwargs = normalized(function, args, kwargs)
        record, args, kwargs = log.open("call", name, args, kwargs)
        try:
            result = function(*args, **kwargs)
        except Exception as error:
            log.close(record, error=error)
            raise
        log.close(record, result)
        return result

    recording.__name__ = name
    return recording


def _recording_class(cls, name: str, log: _Log):
    init_signature = method_signature_of(cls, "__init__")
    forward_signature = method_signature_of(cls, "forward")

    class Recording(cls):
        def __init__(self, *args, **kwargs):
            given = normalized(init_signature, args, kwargs)
            record, _, _ = log.open("init", name, *given)
            try:
                super().__init__(*args, **kwargs)
            except Exception as error:
                log.close(record, error=error)
                raise
            state = {"parameters": dict(self.named_parameters()), "buffers": dict(self.named_buffers())}
            log.close(record, {"instance": len(log.records), **state})

        def forward(self, *args, **kwargs):
            state = dict(self.named_parameters())
            state.update(dict(self.named_buffers()))
            given = normalized(forward_signature, args, kwargs)
            record, args, kwargs = log.open("forward", name, *given, state=state, training=self.training)
            try:
                result = super().forward(*args, **kwargs)
            except Exception as error:
                log.close(record, error=error)
                raise
            log.close(record, result)
            return result

    Recording.__name__ = Recording.__qualname__ = cls.__name__
    return Recording


def visible_records(assignment: Assignment, name: str, probe_id: str, inputs: dict) -> dict | None:
    """The reference's calls of its other graded names while a visible check of ``name`` runs on the reference:
    {"records", "arrays"} (arrays as JSON), or None when it calls none. Where the caller passes the same data,
    the notebook's stand-ins answer from these."""
    path = assignment.reference_path
    namespace = exec_source(path.read_text(), str(path), f"recording_{assignment.name}")
    log = _Log()
    for other in assignment.graded:
        if other != name:
            original = namespace[other]
            recorder = _recording_class if isinstance(original, type) else _recording_function
            namespace[other] = recorder(original, other, log)
    rng(0)  # modules built while recording start from the same random weights in every build
    with np.errstate(all="ignore"):
        run_probe(probe_id, Implementation(namespace), copy.deepcopy(inputs))
    if not log.records:
        return None
    return {"records": log.records, "arrays": {key: wire.array_to_json(value) for key, value in log.arrays.items()}}


def exercise_kinds(assignment: Assignment, reference: Reference | None = None) -> dict[str, str]:
    """Each graded name's kind, "module" or "function", for the notebook's stand-ins; kept in the reference's
    store (finding them runs the reference's code)."""
    reference = reference or Reference.of(assignment)
    return dict(reference.noted("kinds", kinds, reference, assignment.graded))


def same_records(a: dict | None, b: dict | None) -> bool:
    """Whether two checks' recorded calls are the same, their arrays within public/carry.py's SAME_CALL
    (a reference run on another CPU rounds its float32 otherwise)."""
    if a is None or b is None:
        return a is b
    if len(a["records"]) != len(b["records"]):
        return False
    arrays_a = {key: wire.array_from_json(value) for key, value in a["arrays"].items()}
    arrays_b = {key: wire.array_from_json(value) for key, value in b["arrays"].items()}
    trees = ("args", "kwargs", "state", "result")
    for x, y in zip(a["records"], b["records"]):
        if any(x.get(key) != y.get(key) for key in ("kind", "name", "training", "error")):
            return False
        if not all(same_tree(x.get(key), arrays_a, y.get(key), arrays_b) for key in trees):
            return False
        calls_x, calls_y = x.get("callbacks", []), y.get("callbacks", [])
        if len(calls_x) != len(calls_y):
            return False
        for c, d in zip(calls_x, calls_y):
            if c["handle"] != d["handle"] or not all(
                same_tree(c[key], arrays_a, d[key], arrays_b) for key in ("args", "kwargs", "result")
            ):
                return False
    return True
