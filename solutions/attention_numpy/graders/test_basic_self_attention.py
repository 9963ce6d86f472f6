"""Hidden checks of basic_self_attention: softmax(x x^T) x, row by row."""

import pytest

from autograder.grade.authoring import expect_same, rng

from .. import probes

GRADED = "basic_self_attention"

SHAPES = {"one token": (1, 3), "4 tokens of 3": (4, 3), "6 tokens of 8": (6, 8), "2 tokens of 1": (2, 1)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_weighted_average_of_the_tokens(student, reference, shape):
    """returns softmax(x x^T) x with the softmax over each row"""
    expect_same(student, reference, probes.basic_self_attention, {"x": rng(11).standard_normal(shape)})
