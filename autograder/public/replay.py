"""The notebook's error carried forward: the reference's answers recorded at build time, replayed.

Where no grader runs (the student's notebook), a stand-in for a failing exercise answers
from the reference's own calls recorded on each visible check's inputs
(grade/recorded.py writes them into the self-check bundle), given where the caller
passes the same data within SAME_CALL.
"""

from __future__ import annotations

import numpy as np

from .carry import SAME_CALL, Ask, Message, error_reply
from .plain_trees import leaves


class Recorded:
    """The reference's answers recorded on one visible check's inputs, given where the call matches.

    records: [{"kind", "name", "args", "kwargs", "state", "training", "callbacks",
    "result", "error"}, ...] with trees over ``arrays``; a callback is
    {"handle": position among the call's callables, "args", "kwargs", "result"}.
    """

    def __init__(self, records: list[dict], arrays: dict[str, np.ndarray]):
        self.records = records
        self.arrays = arrays

    def handle(self, meta: dict, arrays: dict, callback: Ask) -> Message:
        if meta.get("kind") == "vjp":
            return error_reply("carried", "the notebook's checks carry values only, not gradients")
        for record in self.records:
            if not self._same_call(record, meta, arrays):
                continue
            if not self._callbacks_agree(record, meta, callback):
                continue
            if record.get("error"):
                return error_reply("carried", record["error"])
            result = record.get("result")
            return {"op": "carried", "result": result, "call": None, "error": None}, dict(self.arrays)
        meta, _ = error_reply("carried", "no recorded call passes these arguments")
        return {**meta, "unanswered": True}, {}

    def _same_call(self, record: dict, meta: dict, arrays: dict) -> bool:
        if record.get("kind") != meta.get("kind") or record.get("name") != meta.get("name"):
            return False
        parts = ["args", "kwargs"] + (["state"] if meta.get("kind") == "forward" else [])
        if meta.get("kind") == "forward" and bool(record.get("training")) != bool(meta.get("training")):
            return False
        return all(same_tree(meta.get(part), arrays, record.get(part), self.arrays) for part in parts)

    def _callbacks_agree(self, record: dict, meta: dict, callback: Ask) -> bool:
        handles = [leaf.get("h") for leaf in leaves([meta.get("args"), meta.get("kwargs")], "callable")]
        for made in record.get("callbacks", []):
            position = made.get("handle")
            if not isinstance(position, int) or position >= len(handles):
                return False
            request = {"op": "callback", "kind": "call", "handle": handles[position]}
            request.update(args=made.get("args"), kwargs=made.get("kwargs"))
            reply, answer = callback(request, dict(self.arrays))
            if reply.get("error") or not same_tree(reply.get("result"), answer, made.get("result"), self.arrays):
                return False
        return True


def same_tree(a, arrays_a: dict, b, arrays_b: dict) -> bool:
    """Whether two trees hold the same data: arrays within SAME_CALL (exact for integers, booleans and
    strings), of the same shape and kind; callables wherever the other has one."""
    if isinstance(a, dict) and isinstance(b, dict):
        tag = a.get("$")
        if tag != b.get("$"):
            return False
        if tag in ("tensor", "ndarray"):
            x, y = arrays_a.get(a.get("a")), arrays_b.get(b.get("a"))
            return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and _same_array(x, y)
        if tag in ("list", "tuple"):
            items_a, items_b = a.get("items", []), b.get("items", [])
            return len(items_a) == len(items_b) and all(
                same_tree(x, arrays_a, y, arrays_b) for x, y in zip(items_a, items_b)
            )
        if tag == "dict":
            pairs_a, pairs_b = a.get("items", []), b.get("items", [])
            return [k for k, _ in pairs_a] == [k for k, _ in pairs_b] and all(
                same_tree(x, arrays_a, y, arrays_b) for (_, x), (_, y) in zip(pairs_a, pairs_b)
            )
        if tag == "callable":
            return True
        return a == b
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return bool(SAME_CALL.close(np.array(a), np.array(b)))
    return type(a) is type(b) and a == b


def _same_array(x: np.ndarray, y: np.ndarray) -> bool:
    if x.shape != y.shape:
        return False
    if (x.dtype.kind == "f") != (y.dtype.kind == "f") or (x.dtype.kind == "U") != (y.dtype.kind == "U"):
        return False
    return bool(np.all(SAME_CALL.close(x, y)))
