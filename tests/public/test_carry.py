"""Do the stand-ins of error carried forward send plain data, put back what they replaced, answer only while
their checks run, and join the reference's answer to autograd?"""

import numpy as np
import pytest
import torch

from autograder.public.carry import Substitutes, carried_note, error_reply, talk
from autograder.public.plain_trees import CarryError, Decoder, Encoder


def nobody(meta, arrays):
    raise AssertionError("no function was passed: the server must not call back")


def test_a_stand_in_refuses_outside_its_checks():
    """Does a stand-in kept after its checks refuse to answer, without asking anyone?"""
    substitutes = Substitutes({"split_heads": "function"}, nobody)
    namespace: dict = {}
    with substitutes.installed([namespace]):
        stand_in = namespace["split_heads"]
    assert "split_heads" not in namespace
    with pytest.raises(CarryError, match="does not answer now"):
        stand_in(torch.zeros(1, 2, 4), 2)


def as_tensor(array, wants_grad):
    return torch.from_numpy(np.array(array))


def answering(result_of, record: list | None = None, call=None):
    """An ``ask`` that decodes each request, keeps it in ``record`` and answers result_of(args, kwargs)."""

    def ask(meta, arrays):
        if record is not None:
            record.append(meta)
        decoder = Decoder(arrays, as_tensor, lambda handle: f"function {handle}")
        args, kwargs = decoder.value(meta["args"]), decoder.value(meta["kwargs"])
        answer: dict = {}
        tree = Encoder(answer).tree(result_of(*args, **kwargs))
        return {"op": "carried", "result": tree, "call": call, "error": None}, answer

    return ask


def split_heads(x, n_heads, scale=1.0):
    return x


def test_installed_stand_ins_replace_every_alias_and_put_them_back():
    """Is the name replaced in the first namespace, every other name for the same object (an alias, a module's
    global) too, and is all of it put back, a name that was absent removed again, once the block ends?"""
    student = {"split_heads": split_heads, "other": len}
    module_globals = {"sh": split_heads}
    substitutes = Substitutes({"split_heads": "function", "combine_heads": "function"}, nobody)
    with substitutes.installed([student, module_globals]) as stand_ins:
        assert student["split_heads"] is stand_ins["split_heads"] is module_globals["sh"]
        assert student["combine_heads"] is stand_ins["combine_heads"] and student["other"] is len
        assert stand_ins["split_heads"].__name__ == "split_heads" and substitutes.open
    assert student == {"split_heads": split_heads, "other": len} and module_globals == {"sh": split_heads}
    assert not substitutes.open


def test_a_call_sends_its_arguments_bound_as_the_original_takes_them():
    """Are a call by keyword and the same call by position sent alike (defaults filled in), and is the answer
    turned back into a tensor?"""
    sent: list = []
    substitutes = Substitutes({"split_heads": "function"}, answering(lambda x, n, scale: x * n, sent))
    namespace = {"split_heads": split_heads}
    with substitutes.installed([namespace]):
        by_keyword = namespace["split_heads"](torch.ones(2), n_heads=3)
        by_position = namespace["split_heads"](torch.ones(2), 3, 1.0)
    assert sent[0]["args"] == sent[1]["args"] and sent[0]["kwargs"] == {"$": "dict", "items": []}
    assert [item["$"] if isinstance(item, dict) else item for item in sent[0]["args"]["items"]] == ["tensor", 3, 1.0]
    assert torch.equal(by_keyword, torch.full((2,), 3.0)) and torch.equal(by_position, by_keyword)


@pytest.mark.parametrize(
    "reply, words",
    [
        ({"op": "result"}, "answered with something other than its result"),
        (
            {"op": "carried", "unanswered": True, "error": "no recorded call"},
            "calls split_heads with arguments the reference's code never passes it",
        ),
        (
            {"op": "carried", "error": "RuntimeError: bad shape"},
            "standing in for yours, raised RuntimeError: bad shape",
        ),
    ],
    ids=["another op", "unanswered", "the reference raised"],
)
def test_a_reply_that_is_no_answer_fails_the_call_saying_why(reply, words):
    """Does a stand-in whose trusted side answers otherwise, cannot answer, or raised fail with CarryError saying so?"""
    substitutes = Substitutes({"split_heads": "function"}, lambda meta, arrays: (reply, {}))
    namespace = {"split_heads": split_heads}
    with substitutes.installed([namespace]), pytest.raises(CarryError, match=words):
        namespace["split_heads"](torch.ones(2), 2)


def test_a_gradient_through_a_stand_in_is_the_trusted_sides():
    """Where the route carries gradients, does backward() through a stand-in ask for the vector-Jacobian product
    and give the input the gradient that came back; where it carries values only, no gradient flows back?"""
    asked: list = []

    def ask(meta, arrays):
        asked.append(meta["kind"])
        if meta["kind"] == "vjp":
            grads = Decoder(arrays, as_tensor).value(meta["grads"])
            answer: dict = {}
            return {"op": "carried", "result": Encoder(answer).tree([grads[0] * 10]), "error": None}, answer
        return answering(lambda x: x * 2, call=7)(meta, arrays)

    for gradients, expected in ((True, [10.0, 10.0]), (False, None)):
        x = torch.ones(2, requires_grad=True)
        namespace = {"double": lambda x: x * 2}
        with Substitutes({"double": "function"}, ask, gradients=gradients).installed([namespace]):
            out = namespace["double"](x)
            assert out.requires_grad and torch.equal(out.detach(), torch.full((2,), 2.0))
            (out * torch.ones(2)).sum().backward()
        assert x.grad is None if expected is None else x.grad.tolist() == expected, x.grad
    assert asked == ["call", "vjp", "call"]


def test_a_module_stand_in_is_built_and_run_by_the_trusted_side():
    """Does a module's stand-in take the state the reference's constructor answers as its own parameters and
    buffers, and send that state with its mode on each forward?"""
    sent: list = []

    def ask(meta, arrays):
        sent.append(meta)
        answer: dict = {}
        if meta["kind"] == "init":
            state = {"instance": 0, "parameters": {"proj.weight": torch.ones(2, 2)}, "buffers": {"pe": torch.zeros(3)}}
            return {"op": "carried", "result": Encoder(answer).tree(state), "error": None}, answer
        return {"op": "carried", "result": Encoder(answer).tree(torch.zeros(1)), "error": None}, answer

    class Layer(torch.nn.Module):
        def __init__(self, d_model, dropout=0.1):
            super().__init__()

    namespace = {"Layer": Layer}
    with Substitutes({"Layer": "module"}, ask).installed([namespace]):
        layer = namespace["Layer"](2)
        assert [name for name, _ in layer.named_parameters()] == ["proj.weight"]
        assert [name for name, _ in layer.named_buffers()] == ["pe"]
        layer.eval()
        layer(torch.ones(1))
    assert [item for item in sent[0]["args"]["items"]] == [2, 0.1]  # the default filled in
    assert sent[1]["kind"] == "forward" and sent[1]["training"] is False and sent[1]["instance"] == 0
    assert [key for key, _ in sent[1]["state"]["items"]] == ["proj.weight", "pe"]


def test_a_passed_function_runs_on_the_students_side_when_the_trusted_side_asks():
    """Does a callback run the function the caller passed, by its handle, answer its result, refuse a handle
    never passed and answer what the function raised as an error?"""

    def sublayer(x):
        if x.sum() < 0:
            raise ValueError("negative")
        return x + 1

    substitutes = Substitutes({"residual": "function"}, answering(lambda x, f: x))
    namespace = {"residual": lambda x, f: x}
    with substitutes.installed([namespace]):
        namespace["residual"](torch.zeros(2), sublayer)
        arrays: dict = {}
        meta = {"op": "callback", "kind": "call", "handle": 0, "args": Encoder(arrays).tree((np.ones(2),))}
        reply, answer = substitutes.on_callback({**meta, "kwargs": {"$": "dict", "items": []}}, arrays)
        assert reply["error"] is None and Decoder(answer).value(reply["result"]).tolist() == [2.0, 2.0]
        assert substitutes.on_callback({**meta, "handle": 5}, arrays)[0]["error"] == "no such function was passed"
        negative: dict = {}
        args = Encoder(negative).tree((-np.ones(2),))
        reply, _ = substitutes.on_callback({**meta, "args": args, "kwargs": {"$": "dict", "items": []}}, negative)
        assert reply["error"].startswith("ValueError: negative (in sublayer, ")


def test_talk_serves_the_other_sides_requests_until_its_answer_comes():
    """Does talk send the message, serve every request of the op asked for meanwhile, and return the first other
    message as the answer?"""
    incoming = iter([({"op": "callback", "n": 1}, {}), ({"op": "callback", "n": 2}, {}), ({"op": "carried"}, {})])
    sent: list = []
    answer = talk(lambda meta, arrays: sent.append(meta), lambda: next(incoming), ({"op": "carry"}, {}), "callback",
                  lambda meta, arrays: ({"op": "called", "n": meta["n"]}, {}))  # fmt: skip
    assert answer == ({"op": "carried"}, {})
    assert sent == [{"op": "carry"}, {"op": "called", "n": 1}, {"op": "called", "n": 2}]


def test_the_notes_and_errors_read_as_sentences():
    """Does the note name one or several callees, and an error reply keep at most 2000 characters?"""
    assert carried_note("MultiHeadAttention", ["split_heads"]) == (
        "MultiHeadAttention graded with the reference's split_heads, since yours fails its own checks"
    )
    assert carried_note("Layer", ["a", "b", "c"], "checked") == (
        "Layer checked with the reference's a, b and c, since yours fail their own checks"
    )
    meta, arrays = error_reply("carried", "x" * 5000)
    assert len(meta["error"]) == 2000 and meta["result"] is None and arrays == {}
