"""Hidden checks of LayerNorm: each token normalised over its own features, scaled and shifted, and its gradients."""

import pytest

from autograder.grade.authoring import expect_same, normal

from .. import probes
from . import norm

GRADED = "LayerNorm"


def inputs(seed, shape, eps=1e-5, scale=1.0, offset=0.0):
    d_model = shape[-1]
    return {
        "d_model": d_model,
        "eps": eps,
        **norm(seed, d_model),
        "x": offset + normal(seed + 2, *shape, scale=scale),
        "grad_out": normal(seed + 3, *shape),
    }


SHAPES = {  # the input's shape, (..., d_model)
    "the seed example: (3, 6, 8)": (3, 6, 8),
    "d_model 4": (2, 5, 4),
    "d_model 64": (2, 7, 64),
    "one token": (1, 1, 12),
    "a 2-D input (seq, d_model)": (5, 6),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_normalises_each_token(student, reference, shape):
    """returns weight * (x - mean) / sqrt(var + eps) + bias over the last axis, var biased"""
    expect_same(student, reference, probes.layer_norm, inputs(31, shape), keys=("out",))


def test_tokens_far_from_zero(student, reference):
    """normalises tokens whose features sit around 3 with a std of 2"""
    expect_same(student, reference, probes.layer_norm, inputs(37, (2, 4, 16), scale=2.0, offset=3.0), keys=("out",))


@pytest.mark.weight(2)
@pytest.mark.parametrize("eps", [1e-5, 1e-3], ids=["eps 1e-5", "eps 1e-3"])
def test_eps_inside_the_square_root(student, reference, eps):
    """normalises tokens whose features barely vary (std 0.01), where eps weighs: (x - mean) / sqrt(var + eps)"""
    expect_same(student, reference, probes.layer_norm, inputs(41, (2, 3, 8), eps=eps, scale=0.01), keys=("out",))


@pytest.mark.parametrize("shape", [(2, 5, 8), (3, 16)], ids=["(2, 5, 8)", "(3, 16)"])
def test_gradients(student, reference, shape):
    """passes the right gradients back to x, weight and bias"""
    expect_same(student, reference, probes.layer_norm, inputs(43, shape), keys=("grad_x", "grad_weight", "grad_bias"))


def test_default_eps(student, reference):
    """keeps eps=1e-5 when built without one (nn.LayerNorm's default): SublayerConnection's norms use it"""
    expect_same(student, reference, probes.layer_norm_default_eps, {"d_model": 6})


def test_starts_as_the_identity(student, reference):
    """starts with weight 1 and bias 0, both parameters"""
    expect_same(student, reference, probes.layer_norm_start, {"d_model": 10})
