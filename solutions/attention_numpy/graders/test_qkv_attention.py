"""Hidden checks of qkv_attention: projections, scaled (or not) scores, row softmax."""

import pytest

from autograder.grade.authoring import expect_same, rng

from .. import probes

GRADED = "qkv_attention"


def inputs(seed, n, d_model, d_k, d_v, scale=True):
    generator = rng(seed)
    return {
        "x": generator.standard_normal((n, d_model)),
        "W_q": generator.standard_normal((d_model, d_k)),
        "W_k": generator.standard_normal((d_model, d_k)),
        "W_v": generator.standard_normal((d_model, d_v)),
        "scale": scale,
    }


SHAPES = {  # n, d_model, d_k, d_v
    "one token": (1, 4, 4, 4),
    "5 tokens, d_model 6, d_k 4": (5, 6, 4, 4),
    "d_v differs from d_k": (4, 8, 3, 5),
    "wide keys, d_k 16": (3, 16, 16, 2),
}


@pytest.mark.weight(2)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_scaled(student, reference, shape):
    """returns softmax(q k^T / sqrt(d_k)) v with q = x W_q, k = x W_k, v = x W_v"""
    expect_same(student, reference, probes.qkv_attention, inputs(21, *shape))


@pytest.mark.parametrize("shape", list(SHAPES.values())[1:], ids=list(SHAPES.keys())[1:])
def test_unscaled(student, reference, shape):
    """leaves the scores unscaled when scale is False"""
    expect_same(student, reference, probes.qkv_attention, inputs(23, *shape, scale=False))
