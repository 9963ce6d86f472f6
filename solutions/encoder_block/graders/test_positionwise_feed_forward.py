"""Hidden checks of PositionwiseFeedForward: w_2(dropout(relu(w_1(x)))), its gradients and where its dropout acts."""

import pytest

from autograder.grade.authoring import expect_same, keep_mask, normal, require_dropouts_built

from .. import probes
from . import feed_forward

GRADED = "PositionwiseFeedForward"


def inputs(seed, batch, seq, d_model, d_ff, **extra):
    return {
        "d_model": d_model,
        "d_ff": d_ff,
        "weights": feed_forward(seed, d_model, d_ff),
        "x": normal(seed + 2, batch, seq, d_model),
        "grad_out": normal(seed + 3, batch, seq, d_model),
        **extra,
    }


SHAPES = {  # batch, seq, d_model, d_ff
    "the seed example: d_model 8, d_ff 32": (3, 6, 8, 32),
    "batch 1, seq 1": (1, 1, 4, 16),
    "d_model 12, d_ff 48 (not powers of two)": (2, 5, 12, 48),
    "d_ff smaller than d_model": (2, 3, 16, 8),
}
GRADIENTS = ("grad_x",) + tuple(f"grad_{w}.{part}" for w in probes.FEED_FORWARD for part in ("weight", "bias"))


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_output(student, reference, shape):
    """returns w_2(relu(w_1(x))) in eval mode, shape (batch, seq, d_model)"""
    expect_same(student, reference, probes.feed_forward, inputs(51, *shape), keys=("out",))


@pytest.mark.parametrize("shape", [(2, 4, 8, 24), (1, 3, 6, 4)], ids=["d_ff 24", "d_ff 4"])
def test_gradients(student, reference, shape):
    """passes the right gradients back to x, w_1 and w_2"""
    expect_same(student, reference, probes.feed_forward, inputs(53, *shape), keys=GRADIENTS)


def test_no_dropout_in_eval_mode(student, reference):
    """built with dropout 0.5, drops nothing in eval mode"""
    expect_same(student, reference, probes.feed_forward, inputs(57, 2, 5, 8, 16, p=0.5), keys=("out",))


@pytest.mark.weight(2)
def test_dropout_on_the_hidden_layer(student, reference):
    """in train mode, applies self.dropout to the hidden layer (after the ReLU, before w_2)"""
    case = inputs(59, 2, 4, 6, 20, p=0.5, keep=keep_mask(61, 4, 20))
    expect_same(student, reference, probes.feed_forward, case, keys=("out", "grad_x"))


def test_dropout_probability(student):
    """builds self.dropout with the probability given (dropout=p)"""
    require_dropouts_built(student, probes.dropout_built, GRADED, [4, 8], 0.3)
