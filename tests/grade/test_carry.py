"""Does the trusted side's server answer the stand-ins of error carried forward within its bounds, and only then?"""

import numpy as np
import pytest
import torch

from autograder.grade.carry import MAX_AXIS, MAX_ELEMENTS, MAX_INTEGER, Server
from autograder.grade.reference import Reference
from autograder.public.plain_trees import Encoder


@pytest.fixture(scope="module")
def reference(mha):
    return Reference.of(mha)


def request(name: str, *args, kind: str = "call") -> tuple[dict, dict]:
    arrays: dict = {}
    encoder = Encoder(arrays, [])
    return {"op": "carry", "kind": kind, "name": name, "args": encoder.tree(args), "kwargs": encoder.tree({})}, arrays


def nobody(meta, arrays):
    raise AssertionError("no function was passed: the server must not call back")


def test_the_reference_answers_a_stand_ins_call(reference):
    """Does split_heads's stand-in get the reference's answer, computed on the data it sent?"""
    server = Server(reference, ["split_heads"])
    x = torch.arange(24.0).reshape(1, 2, 12)
    reply, arrays = server.handle(*request("split_heads", x, 3), nobody)
    assert reply["error"] is None
    answer = arrays[reply["result"]["a"]]
    assert np.array_equal(answer, x.reshape(1, 2, 3, 4).transpose(1, 2).numpy())


@pytest.mark.parametrize(
    "args, words",
    [
        ((torch.zeros(1, 1, MAX_ELEMENTS + 1), 1), f"at most {MAX_ELEMENTS} values"),
        ((torch.zeros(1, MAX_AXIS + 1, 2), 2), f"no axis longer than {MAX_AXIS}"),
        ((torch.zeros(1, 2, 4), MAX_INTEGER + 1), f"no integer above {MAX_INTEGER}"),
    ],
    ids=["too many values", "too long an axis", "too large an integer"],
)
def test_a_request_beyond_the_bounds_is_refused(reference, args, words):
    """Is a call whose data would make the trusted grader build a huge tensor refused before the reference runs?"""
    server = Server(reference, ["split_heads"])
    reply, _ = server.handle(*request("split_heads", *args), nobody)
    assert words in reply["error"] and reply["result"] is None


def test_only_the_names_lent_answer_and_only_until_closed(reference):
    """Does the server refuse a name it was not lent, and every request once closed?"""
    server = Server(reference, ["split_heads"])
    reply, _ = server.handle(*request("combine_heads", torch.zeros(1, 2, 2, 2)), nobody)
    assert "does not stand in for 'combine_heads'" in reply["error"]
    server.close()
    reply, _ = server.handle(*request("split_heads", torch.zeros(1, 2, 4), 2), nobody)
    assert "only while the checks it was lent to run" in reply["error"]


def test_what_the_reference_raises_says_no_line_of_it(reference):
    """Is the reference's error on the student's data its type and message only, never a line of the reference?"""
    server = Server(reference, ["split_heads"])
    reply, _ = server.handle(*request("split_heads", torch.zeros(1, 2, 5), 2), nobody)
    assert reply["error"].startswith("RuntimeError: ") and "reference.py" not in reply["error"]
    assert "line" not in reply["error"] and "reshape" not in reply["error"]
