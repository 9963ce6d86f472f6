"""Hidden checks of SublayerConnection: norm(x + dropout(sublayer(x))), post-norm, around a linear sublayer."""

import pytest

from autograder.grade.authoring import expect_same, keep_mask, normal, require_dropouts_built

from .. import probes
from . import linear, norm

GRADED = "SublayerConnection"


def inputs(seed, batch, seq, d_model, **extra):
    sublayer = linear(seed + 2, d_model, d_model, "sublayer")
    return {
        "d_model": d_model,
        "weights": norm(seed, d_model, "norm."),
        "sublayer": {"weight": sublayer["sublayer.weight"], "bias": sublayer["sublayer.bias"]},
        "x": normal(seed + 3, batch, seq, d_model, scale=2.0),  # std 2: see probes.py on eps
        "grad_out": normal(seed + 4, batch, seq, d_model),
        **extra,
    }


SHAPES = {  # batch, seq, d_model
    "the seed example: (3, 6, 8)": (3, 6, 8),
    "batch 1, seq 1": (1, 1, 4),
    "d_model 12": (2, 5, 12),
    "d_model 64": (2, 4, 64),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_post_norm(student, reference, shape):
    """returns norm(x + sublayer(x)) in eval mode: the residual sum, then the norm"""
    expect_same(student, reference, probes.sublayer_connection, inputs(71, *shape), keys=("out",))


def test_gradients(student, reference):
    """passes the right gradient back to x, through the norm, the residual and the sublayer"""
    expect_same(student, reference, probes.sublayer_connection, inputs(73, 2, 4, 8), keys=("grad_x",))


def test_no_dropout_in_eval_mode(student, reference):
    """built with dropout 0.5, drops nothing in eval mode"""
    expect_same(student, reference, probes.sublayer_connection, inputs(77, 2, 3, 8, p=0.5), keys=("out",))


@pytest.mark.weight(2)
def test_dropout_on_the_sublayer_output(student, reference):
    """in train mode, applies self.dropout to the sublayer's output, before adding x"""
    case = inputs(79, 2, 5, 8, p=0.5, keep=keep_mask(81, 5, 8))
    expect_same(student, reference, probes.sublayer_connection, case, keys=("out", "grad_x"))


def test_dropout_probability(student):
    """builds self.dropout with the probability given (dropout=p)"""
    require_dropouts_built(student, probes.dropout_built, GRADED, [4], 0.3)
