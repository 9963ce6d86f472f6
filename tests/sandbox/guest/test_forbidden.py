"""PyTorch's own attention, taken away from the student's process: by every route, blaming the right graded name.

forbid() changes PyTorch for the life of the process (its dispatcher's registrations cannot be
undone): each test calls it in a forked child (tests/sandbox/forked.py). The functions and
classes below stand for the student's code: this file is neither the kit's nor a library's.
"""

import pytest
import torch
import torch.nn.functional as F

from autograder.sandbox.guest import forbidden

from ..forked import in_a_child

GRADED = ("MultiHeadAttention", "attention")
SDPA = "torch's scaled_dot_product_attention"


def qkv():
    return (torch.ones(1, 2, 3, 4),) * 3


class MultiHeadAttention:
    def forward(self):
        return F.scaled_dot_product_attention(*qkv())


def _fused_helper():
    return F.scaled_dot_product_attention(*qkv())


def attention():
    return _fused_helper()


def not_graded():
    return F.scaled_dot_product_attention(*qkv())


def raised_under_forbid(call) -> str:
    """In the child: forbid, then call; the error the call raised ('' if none)."""

    def work() -> str:
        torch.set_num_threads(1)
        forbidden.forbid(GRADED)
        try:
            call()
        except forbidden.ForbiddenBuiltin as error:
            return str(error)
        return ""

    return in_a_child(work)


ROUTES = {
    "F.scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(*qkv()),
    "torch.ops.aten": lambda: torch.ops.aten.scaled_dot_product_attention(*qkv()),
    "torch._C._nn": lambda: torch._C._nn.scaled_dot_product_attention(*qkv()),
    "the math kernel": lambda: torch.ops.aten._scaled_dot_product_attention_math(*qkv()),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route_to_the_fused_operator_is_refused(route):
    """Whatever route the student's code takes to the fused operator, is it refused, saying what to do?"""
    call = ROUTES[route]
    assert raised_under_forbid(call).endswith(": the exercise is to compute attention yourself")


def test_without_forbid_the_routes_work():
    """The same calls in a child that did not forbid: do they compute (so the refusals above are forbid's)?"""

    def work() -> dict:
        torch.set_num_threads(1)
        outputs = {route: call() for route, call in ROUTES.items()}
        return {route: list((out[0] if isinstance(out, tuple) else out).shape) for route, out in outputs.items()}

    assert in_a_child(work) == {route: [1, 2, 3, 4] for route in ROUTES}


def test_the_python_builtins_are_refused():
    """Are nn.MultiheadAttention and F.multi_head_attention_forward refused too, by their names?"""
    assert raised_under_forbid(lambda: torch.nn.MultiheadAttention(4, 1)) == (
        "your code calls torch.nn.MultiheadAttention: the exercise is to compute attention yourself"
    )
    assert raised_under_forbid(lambda: F.multi_head_attention_forward()).startswith(
        "your code calls torch.nn.functional.multi_head_attention_forward:"
    )


def test_the_graded_name_whose_code_made_the_call_is_blamed():
    """Is a method blamed by its class's name, a graded function by its own name even through a helper of its
    own, and 'your code' where no graded name made the call?"""
    assert raised_under_forbid(lambda: MultiHeadAttention().forward()).startswith(f"MultiHeadAttention calls {SDPA}:")
    assert raised_under_forbid(attention).startswith(f"attention calls {SDPA}:")
    assert raised_under_forbid(not_graded).startswith(f"your code calls {SDPA}:")


def test_blamed_reads_the_error_of_the_name_it_is_asked_about():
    """Does blamed() say yes for the name the error blames only (not a name it merely begins with, not another
    error)?"""
    error = f"ForbiddenBuiltin: {forbidden.message('MultiHeadAttention', SDPA)}"
    assert forbidden.blamed(error, "MultiHeadAttention")
    assert not forbidden.blamed(error, "MultiHead")
    assert not forbidden.blamed(error, "attention")
    assert not forbidden.blamed(f"ValueError: {forbidden.message('attention', SDPA)}", "attention")
