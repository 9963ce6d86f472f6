"""The visible checks, which students run in their notebook: small inputs, other seeds and shapes than the hidden ones."""

from autograder.grade.authoring import Visible, keep_mask, normal

from . import probes
from .graders import encoder, feed_forward, linear, norm, padding_mask


def layer_norm_inputs(seed, shape, eps=1e-5, scale=1.0):
    return {
        "d_model": shape[-1],
        "eps": eps,
        **norm(seed, shape[-1]),
        "x": normal(seed + 2, *shape, scale=scale),
        "grad_out": normal(seed + 3, *shape),
    }


def feed_forward_inputs(seed, batch, seq, d_model, d_ff, **extra):
    return {
        "d_model": d_model,
        "d_ff": d_ff,
        "weights": feed_forward(seed, d_model, d_ff),
        "x": normal(seed + 2, batch, seq, d_model),
        "grad_out": normal(seed + 3, batch, seq, d_model),
        **extra,
    }


def sublayer_inputs(seed, batch, seq, d_model, **extra):
    sublayer = linear(seed + 2, d_model, d_model, "sublayer")
    return {
        "d_model": d_model,
        "weights": norm(seed, d_model, "norm."),
        "sublayer": {"weight": sublayer["sublayer.weight"], "bias": sublayer["sublayer.bias"]},
        "x": normal(seed + 3, batch, seq, d_model, scale=2.0),
        "grad_out": normal(seed + 4, batch, seq, d_model),
        **extra,
    }


def encoder_inputs(seed, batch, seq, d_model, n_heads, d_ff, **extra):
    return {
        "d_model": d_model,
        "n_heads": n_heads,
        "d_ff": d_ff,
        "weights": encoder(seed, d_model, d_ff),
        "x": normal(seed + 10, batch, seq, d_model, scale=2.0),
        "grad_out": normal(seed + 11, batch, seq, d_model),
        **extra,
    }


VISIBLE = [
    # eps 0.1, large enough that sqrt(var + eps) and std + eps differ here: an unbiased variance with eps in
    # the root is told apart from the unbiased std plus eps, and an eps not passed on shows.
    Visible(
        "LayerNorm",
        "normalises each token of a (2, 3, 4) input over its 4 features, then scales and shifts (eps 0.1)",
        probes.layer_norm,
        layer_norm_inputs(1001, (2, 3, 4), eps=0.1),
        keys=("out",),
    ),
    # Two sequences, so that statistics over a whole sequence differ from those over the whole tensor.
    Visible(
        "LayerNorm",
        "normalises tokens whose features barely vary (std 0.01), where eps weighs: (x - mean) / sqrt(var + eps)",
        probes.layer_norm,
        layer_norm_inputs(1005, (2, 2, 6), scale=0.01),
        keys=("out",),
    ),
    Visible(
        "LayerNorm", "keeps the eps given as self.eps (eps=0.001)", probes.layer_norm_eps, {"d_model": 3, "eps": 1e-3}
    ),
    Visible(
        "LayerNorm",
        "keeps eps=1e-5 when built without one (nn.LayerNorm's default)",
        probes.layer_norm_default_eps,
        {"d_model": 3},
    ),
    Visible("LayerNorm", "starts with weight 1 and bias 0", probes.layer_norm_start, {"d_model": 3}),
    Visible(
        "LayerNorm",
        "registers weight and bias as nn.Parameter (not plain tensors), so that .to() and the optimizer reach them",
        probes.registration,
        {"name": "LayerNorm", "args": [5]},
    ),
    Visible(
        "PositionwiseFeedForward",
        "widens d_model 4 to d_ff 8 and back, with a ReLU between",
        probes.feed_forward,
        feed_forward_inputs(1011, 1, 3, 4, 8),
        keys=("out",),
    ),
    Visible(
        "PositionwiseFeedForward",
        "built with dropout 0.5, drops nothing in eval mode",
        probes.feed_forward,
        feed_forward_inputs(1015, 1, 2, 4, 6, p=0.5),
        keys=("out",),
    ),
    Visible(
        "PositionwiseFeedForward",
        "in train mode, applies self.dropout to the hidden layer (batch, seq, d_ff)",
        probes.feed_forward,
        feed_forward_inputs(1019, 1, 3, 4, 6, p=0.5, keep=keep_mask(1023, 3, 6)),
        keys=("out",),
    ),
    Visible(
        "PositionwiseFeedForward",
        "builds self.dropout with the probability given (dropout=0.5)",
        probes.dropout_built,
        {"name": "PositionwiseFeedForward", "args": [4, 6], "p": 0.5},
    ),
    Visible(
        "PositionwiseFeedForward",
        "keeps w_1, w_2 and dropout as attributes of their own (not in a Python list), so that .to(), .eval() and "
        "the optimizer reach them",
        probes.registration,
        {"name": "PositionwiseFeedForward", "args": [4, 8, 0.1]},
    ),
    Visible(
        "SublayerConnection",
        "post-norm around a linear sublayer: norm(x + sublayer(x))",
        probes.sublayer_connection,
        sublayer_inputs(1031, 1, 3, 4),
        keys=("out",),
    ),
    Visible(
        "SublayerConnection",
        "in train mode, drops the sublayer's output only, before adding x",
        probes.sublayer_connection,
        sublayer_inputs(1037, 1, 3, 4, p=0.5, keep=keep_mask(1041, 3, 4)),
        keys=("out",),
    ),
    Visible(
        "SublayerConnection",
        "builds self.dropout with the probability given (dropout=0.5)",
        probes.dropout_built,
        {"name": "SublayerConnection", "args": [4], "p": 0.5},
    ),
    Visible(
        "SublayerConnection",
        "keeps its norm and dropout as attributes of their own, so that .to(), .eval() and the optimizer reach them",
        probes.registration,
        {"name": "SublayerConnection", "args": [4, 0.1]},
    ),
    Visible(
        "EncoderLayer",
        "one sequence of 3 tokens, d_model 4, 2 heads, d_ff 8",
        probes.encoder_layer,
        encoder_inputs(1051, 1, 3, 4, 2, 8),
        keys=("out",),
    ),
    Visible(
        "EncoderLayer",
        "passes a padding mask on: the second sequence has 2 real tokens of 4",
        probes.encoder_layer,
        encoder_inputs(1063, 2, 4, 6, 3, 12, mask=padding_mask([4, 2], 4)),
        keys=("out",),
    ),
    Visible(
        "EncoderLayer",
        "builds self_attn with the dropout given (dropout=0.5)",
        probes.dropout_built,
        {"name": "EncoderLayer", "args": [4, 2, 8], "p": 0.5, "paths": list(probes.LAYER_DROPOUTS)},
    ),
    Visible(
        "EncoderLayer",
        "keeps its sublayers in an nn.ModuleList (not a Python list), so that .to(), .eval() and the optimizer "
        "reach them",
        probes.registration,
        {"name": "EncoderLayer", "args": [4, 2, 8, 0.1]},
    ),
]
