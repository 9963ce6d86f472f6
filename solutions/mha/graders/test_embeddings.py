"""Hidden checks of Embeddings: the looked-up rows, times sqrt(d_model), and their gradient.

The same table is loaded into the student's and the reference's module through the
contract's attribute ``lut``.
"""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same, normal, rng

from .. import probes

GRADED = "Embeddings"

SHAPES = {  # vocab_size, d_model, batch, seq
    "the seed example: 20 words, d_model 8": (20, 8, 3, 6),
    "batch 1, seq 1": (7, 4, 1, 1),
    "d_model 12 (not a power of two)": (31, 12, 2, 5),
    "d_model 64": (50, 64, 2, 9),
}


def inputs(seed, vocab_size, d_model, batch, seq, special_ids=False):
    x = rng(seed + 1).integers(0, vocab_size, (batch, seq)).astype(np.int64)
    if special_ids:  # '<pad>' (0) and '<unk>' (1) are words like any other: their rows learn too
        x[0, :2] = (0, 1)
        x[-1, -1] = 0
    return {
        "vocab_size": vocab_size,
        "d_model": d_model,
        "lut": normal(seed, vocab_size, d_model),
        "x": x,
        "grad_out": normal(seed + 2, batch, seq, d_model),
    }


@pytest.mark.weight(2)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_scaled_lookup(student, reference, shape):
    """returns lut(x) * sqrt(d_model) for the same table"""
    expect_same(student, reference, probes.embeddings, inputs(11, *shape), keys=("out",))


@pytest.mark.parametrize("shape", list(SHAPES.values())[2:], ids=list(SHAPES.keys())[2:])
def test_gradient_of_the_table(student, reference, shape):
    """passes the right gradient back to the table, the rows of the special ids 0 and 1 included"""
    expect_same(student, reference, probes.embeddings, inputs(23, *shape, special_ids=True), keys=("grad_lut",))
