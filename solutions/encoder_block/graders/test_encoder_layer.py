"""Hidden checks of EncoderLayer: self-attention and the feed-forward network, each inside its
SublayerConnection, with the reference's weights loaded through the contract's attributes."""

import pytest

from autograder.grade.authoring import expect_same, normal, require_dropouts_built

from .. import probes
from . import encoder, padding_mask

GRADED = "EncoderLayer"


def inputs(seed, batch, seq, d_model, n_heads, d_ff, **extra):
    return {
        "d_model": d_model,
        "n_heads": n_heads,
        "d_ff": d_ff,
        "weights": encoder(seed, d_model, d_ff),
        "x": normal(seed + 10, batch, seq, d_model, scale=2.0),  # std 2: see probes.py on eps
        "grad_out": normal(seed + 11, batch, seq, d_model),
        **extra,
    }


SHAPES = {  # batch, seq, d_model, n_heads, d_ff
    "the seed example: (3, 6, 8), 4 heads, d_ff 32": (3, 6, 8, 4, 32),
    "batch 1, seq 1": (1, 1, 8, 2, 16),
    "one head": (2, 5, 6, 1, 12),
    "d_model 32, 8 heads, d_ff 64": (2, 7, 32, 8, 64),
}

MASKS = {
    "padding: lengths 6, 4 and 1 of 6": lambda: inputs(91, 3, 6, 8, 2, 16, mask=padding_mask([6, 4, 1], 6)),
    "padding: lengths 2 and 5 of 5, one head": lambda: inputs(97, 2, 5, 12, 1, 24, mask=padding_mask([2, 5], 5)),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_output(student, reference, shape):
    """returns the reference's output (batch, seq, d_model) in eval mode, without a mask"""
    expect_same(student, reference, probes.encoder_layer, inputs(83, *shape), keys=("out",))


@pytest.mark.weight(2)
@pytest.mark.parametrize("make", MASKS.values(), ids=MASKS.keys())
def test_padding_mask(student, reference, make):
    """passes the padding mask (batch, 1, 1, seq) to self-attention: no token attends to padding"""
    expect_same(student, reference, probes.encoder_layer, make(), keys=("out",))


def test_gradient(student, reference):
    """passes the right gradient back to x, through both sublayers and their residuals"""
    case = inputs(101, 2, 4, 8, 2, 16, mask=padding_mask([4, 3], 4))
    expect_same(student, reference, probes.encoder_layer, case, keys=("grad_x",))


def test_dropout_passed_on(student):
    """builds self_attn with the dropout given (dropout=p)"""
    require_dropouts_built(
        student,
        probes.dropout_built,
        GRADED,
        [8, 2, 16],
        0.3,
        probes.LAYER_DROPOUTS,
        fix="pass the layer's dropout on to every part it builds: MultiHeadAttention(d_model, n_heads, dropout), as "
        "PositionwiseFeedForward(d_model, d_ff, dropout) and SublayerConnection(d_model, dropout)",
    )
