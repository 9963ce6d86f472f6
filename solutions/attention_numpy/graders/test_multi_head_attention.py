"""Hidden checks of multi_head_attention: column slices per head, concatenation, W_o."""

import pytest

from autograder.grade.authoring import expect_same, rng

from .. import probes

GRADED = "multi_head_attention"


def inputs(seed, n, d_model, n_heads):
    generator = rng(seed)
    weights = {
        name: generator.standard_normal((d_model, d_model)) / d_model**0.5 for name in ("W_q", "W_k", "W_v", "W_o")
    }
    return {"x": generator.standard_normal((n, d_model)), **weights, "n_heads": n_heads}


SHAPES = {  # n, d_model, n_heads
    "one head": (4, 6, 1),
    "2 heads of 4": (3, 8, 2),
    "4 heads of 3": (5, 12, 4),
    "one token, 2 heads": (1, 4, 2),
    "8 heads of 2": (6, 16, 8),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_heads_joined_and_projected(student, reference, shape):
    """returns concat(head_0, ..., head_h-1) W_o, head h attending with columns h*d_k..(h+1)*d_k"""
    expect_same(student, reference, probes.multi_head_attention, inputs(31, *shape))
