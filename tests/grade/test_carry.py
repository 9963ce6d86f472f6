"""Does the trusted side's server answer the stand-ins of error carried forward within its bounds, and only then?"""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from autograder import KIT_ROOT
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


# In a fresh interpreter, as a carried run's process of the reference is: the gradient of one call of the reference's
# attention, both of its outputs weighted, and whether answering it imported SymPy (PyTorch does for gradients passed
# to autograd explicitly: 0.25 s of CPU in each carried run).
VJP_IN_A_FRESH_PROCESS = """
import json, sys
import numpy as np, torch
from autograder import assignments
from autograder.grade.carry import Server
from autograder.grade.reference import Reference
from autograder.public.plain_trees import Encoder

def request(meta, *values):
    arrays = {}
    encoder = Encoder(arrays, [])
    return {**meta, **{key: encoder.tree(value) for key, value in values}}, arrays

torch.manual_seed(0)
q, k, v = (torch.randn(1, 2, 3, 4, requires_grad=True) for _ in range(3))
server = Server(Reference.of(assignments.get("mha")), ["scaled_dot_product_attention"])
call = {"op": "carry", "kind": "call", "name": "scaled_dot_product_attention"}
grads = [torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 3)]
found = []
for autograd_on in (True, False):  # off: asked from within the student's backward pass, as in a notebook's kernel
    reply, _ = server.handle(*request(call, ("args", (q, k, v)), ("kwargs", {})), None)
    vjp = {"op": "carry", "kind": "vjp", "call": reply["call"]}
    with torch.set_grad_enabled(autograd_on):
        reply, arrays = server.handle(*request(vjp, ("grads", grads)), None)
    assert reply["error"] is None, reply["error"]
    found.append([arrays[leaf["a"]].tolist() for leaf in reply["result"]["items"]])
print(json.dumps({"grads": [g.tolist() for g in grads], "found": found, "sympy": "sympy" in sys.modules}))
"""


@pytest.mark.slow(seconds=3)  # a fresh interpreter, as the reference's process in a carried run is
def test_a_gradient_through_the_reference_is_its_vector_jacobian_product_and_imports_no_sympy(reference):
    """Does the server give a call's inputs the vector-Jacobian product of the reference's function for the gradients
    sent, as autograd computes it, with autograd on or off where it is asked, without importing SymPy?"""
    done = subprocess.run([sys.executable, "-c", VJP_IN_A_FRESH_PROCESS], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout)
    assert answer["sympy"] is False
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 3, 4, requires_grad=True) for _ in range(3))
    outputs = reference.impl.scaled_dot_product_attention(q, k, v)
    expected = torch.autograd.grad(outputs, (q, k, v), [torch.tensor(g) for g in answer["grads"]])
    for found in answer["found"]:  # with autograd on, and off
        for leaf, wanted in zip(found, expected):
            # float32 sums of 3 to 12 terms, added in another order where the two outputs' paths meet: a few ulps
            assert np.allclose(leaf, wanted.numpy(), rtol=1e-6, atol=1e-7)
