"""Hidden checks of combine_heads: the exact inverse of split_heads."""

import pytest

from autograder.grade.authoring import counting, expect_same

from .. import probes

GRADED = "combine_heads"

SHAPES = {  # batch, n_heads, seq, d_key
    "the seed example: (3, 4, 6, 2)": (3, 4, 6, 2),
    "batch 1, seq 1": (1, 2, 1, 4),
    "one head": (2, 1, 5, 6),
    "3 heads of 4": (2, 3, 5, 4),
    "8 heads of 8": (2, 8, 7, 8),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_joins_the_heads(student, reference, shape):
    """gives (batch, seq, n_heads * d_key) with head h's features at h*d_key up to (h+1)*d_key"""
    expect_same(
        student,
        reference,
        probes.combine_heads,
        {"x": counting(*shape)},
        what="x holds 0, 1, 2, ... in order, so a value says which head, token and feature it is",
    )
