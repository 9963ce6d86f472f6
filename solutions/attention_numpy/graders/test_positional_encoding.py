"""Hidden checks of positional_encoding: the paper's sine/cosine table."""

import pytest

from autograder.grade.authoring import expect_same

from .. import probes

GRADED = "positional_encoding"

SIZES = {
    "one position": (1, 4),
    "d_model 2": (9, 2),
    "10 positions of 8": (10, 8),
    "d_model 6": (7, 6),
    "50 positions of 16": (50, 16),
}


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_table(student, reference, size):
    """returns pe[pos, 2i] = sin(pos / 10000^(2i/d)), pe[pos, 2i+1] = cos(pos / 10000^(2i/d))"""
    seq_len, d_model = size
    expect_same(student, reference, probes.positional_encoding, {"seq_len": seq_len, "d_model": d_model})
