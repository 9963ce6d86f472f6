"""Hidden checks of split_heads: head h gets features h*d_key .. (h+1)*d_key of every token."""

import pytest

from autograder.grade.authoring import counting, expect_same

from .. import probes

GRADED = "split_heads"

SHAPES = {  # batch, seq, d_model, n_heads
    "the seed example: (3, 6, 8), 4 heads": (3, 6, 8, 4),
    "batch 1, seq 1": (1, 1, 8, 2),
    "one head": (2, 5, 6, 1),
    "d_model 12, 3 heads": (2, 5, 12, 3),
    "d_model 64, 8 heads": (2, 7, 64, 8),
    "heads of width 1": (2, 3, 4, 4),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_heads_hold_their_features(student, reference, shape):
    """gives (batch, n_heads, seq, d_key) with head h holding features h*d_key up to (h+1)*d_key"""
    batch, seq, d_model, n_heads = shape
    expect_same(
        student,
        reference,
        probes.split_heads,
        {"x": counting(batch, seq, d_model), "n_heads": n_heads},
        what=f"x holds 0, 1, 2, ... in order: x[b, t, f] = (b * seq + t) * {d_model} + f, so a value says "
        f"which token and feature it is",
    )
