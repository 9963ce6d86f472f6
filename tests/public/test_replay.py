"""Does the notebook's stand-in answer from the reference's recorded calls only where the call is the one
recorded, and refuse otherwise?"""

import numpy as np
import pytest

from autograder.public.plain_trees import Encoder
from autograder.public.replay import Recorded, same_tree

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def encoded(*values, callables: list | None = None) -> tuple[list, dict]:
    """The trees of values, over one table of arrays, as a stand-in sends them."""
    arrays: dict = {}
    encoder = Encoder(arrays, callables)
    return [encoder.tree(value) for value in values], arrays


def recorded(**record) -> Recorded:
    """A record of one call of split_heads(X, 3) whose result is X doubled."""
    (args, kwargs, result), arrays = encoded((X, 3), {}, X * 2)
    return Recorded(
        [{"kind": "call", "name": "split_heads", "args": args, "kwargs": kwargs, "result": result, **record}], arrays
    )


def asked(x, n_heads=3, name="split_heads", kind="call") -> tuple[dict, dict]:
    (args, kwargs), arrays = encoded((x, n_heads), {})
    return {"op": "carry", "kind": kind, "name": name, "args": args, "kwargs": kwargs}, arrays


def nobody(meta, arrays):
    raise AssertionError("no callback was recorded")


def test_the_recorded_call_is_answered_with_the_recorded_result():
    """Is the same call, within SAME_CALL of the recorded data, answered with the recorded result and its arrays?"""
    replay = recorded()
    reply, arrays = replay.handle(*asked(X + 1e-6), nobody)
    assert reply["op"] == "carried" and reply["error"] is None
    assert np.array_equal(arrays[reply["result"]["a"]], X * 2)


@pytest.mark.parametrize(
    "call",
    [
        {"x": X + 0.01},
        {"x": X, "n_heads": 2},
        {"x": X.astype(np.int64)},
        {"x": X[:1]},
        {"x": X, "name": "combine_heads"},
    ],
    ids=["other values", "another integer", "integers for floats", "another shape", "another name"],
)
def test_another_call_is_unanswered(call):
    """Is a call that passes other data (beyond SAME_CALL, another integer, dtype kind or shape) or names another
    exercise refused as unanswered, saying that no recorded call passes these arguments?"""
    reply, arrays = recorded().handle(*asked(**call), nobody)
    assert reply["unanswered"] and reply["error"] == "no recorded call passes these arguments" and arrays == {}


def test_a_recorded_error_is_the_answer_and_a_gradient_is_refused():
    """Does a call on which the reference raised answer with that error, and a gradient request say the notebook
    carries values only?"""
    reply, _ = recorded(error="RuntimeError: shape is invalid").handle(*asked(X), nobody)
    assert reply["error"] == "RuntimeError: shape is invalid" and reply["result"] is None
    reply, _ = recorded().handle({"op": "carry", "kind": "vjp", "call": 0, "grads": []}, {}, nobody)
    assert reply["error"] == "the notebook's checks carry values only, not gradients"


def test_a_forward_call_matches_its_state_and_mode_too():
    """Is a module's forward answered only in the mode (training or not) and with the state it was recorded with?"""
    (args, kwargs, state, result), arrays = encoded((X,), {}, {"w": np.ones(2)}, X)
    record = {"kind": "forward", "name": "Layer", "args": args, "kwargs": kwargs, "state": state, "training": False}
    replay = Recorded([{**record, "result": result}], arrays)

    def forward(weights, training):
        (args, kwargs, state), arrays = encoded((X,), {}, {"w": weights})
        meta = {"kind": "forward", "name": "Layer", "args": args, "kwargs": kwargs, "state": state}
        return replay.handle({**meta, "training": training}, arrays, nobody)[0]

    assert forward(np.ones(2), False)["error"] is None
    assert forward(np.ones(2), True)["unanswered"]
    assert forward(np.zeros(2), False)["unanswered"]


def test_a_call_passing_a_function_is_answered_only_where_the_function_answers_as_recorded():
    """Where the recorded call ran a function its caller passed (a sublayer), is the student's function asked the
    same and the call answered only when it gives the recorded result?"""
    (args, kwargs, result, sublayer_args, sublayer_result), arrays = encoded((X, abs), {}, X, (X,), X + 1, callables=[])
    callback = {"handle": 0, "args": sublayer_args, "kwargs": {"$": "dict", "items": []}, "result": sublayer_result}
    record = {"kind": "call", "name": "residual", "args": args, "kwargs": kwargs, "result": result}
    replay = Recorded([{**record, "callbacks": [callback]}], arrays)

    def student(adds):
        callables: list = []
        (args, kwargs), sent = encoded((X, lambda x: x + adds), {}, callables=callables)
        asked_of_student = []

        def run_callback(request, request_arrays):
            asked_of_student.append(request["handle"])
            answer: dict = {}
            tree = Encoder(answer).tree(callables[request["handle"]](request_arrays[request["args"]["items"][0]["a"]]))
            return {"op": "called", "result": tree, "error": None}, answer

        meta = {"kind": "call", "name": "residual", "args": args, "kwargs": kwargs}
        return replay.handle(meta, sent, run_callback)[0], asked_of_student

    reply, handles = student(adds=1)
    assert reply["error"] is None and handles == [0]
    reply, _ = student(adds=2)
    assert reply["unanswered"]


def test_same_tree_compares_data_not_identity():
    """Are floats close within SAME_CALL the same, a bool never an int, dict keys compared in order, and any two
    callables the same?"""
    assert same_tree(1.0, {}, 1.0 + 1e-7, {}) and not same_tree(1.0, {}, 1.1, {})
    assert same_tree(1.0, {}, 1, {}) and not same_tree(True, {}, 1, {}) and not same_tree(1, {}, 1.0, {})
    one = {"$": "dict", "items": [["a", 1], ["b", 2]]}
    other = {"$": "dict", "items": [["b", 2], ["a", 1]]}
    assert same_tree(one, {}, one, {}) and not same_tree(one, {}, other, {})
    assert same_tree({"$": "callable", "h": 0}, {}, {"$": "callable", "h": 3}, {})
    assert not same_tree({"$": "list", "items": [1]}, {}, {"$": "tuple", "items": [1]}, {})
    assert not same_tree({"$": "list", "items": [1]}, {}, {"$": "list", "items": [1, 2]}, {})
    strings = {"$": "ndarray", "a": "s"}
    assert not same_tree(strings, {"s": np.array(["a"])}, strings, {"s": np.array(["b"])})
