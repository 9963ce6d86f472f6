"""The visible checks, which students run in their notebook: small inputs, other seeds and shapes than the hidden ones."""

import numpy as np

from autograder.grade.authoring import Visible, rng

from . import probes

X = np.array([[1.0, 2.0, 1.0, 2.0], [3.0, 4.0, 3.0, 4.0]])  # two tokens of 4, as in the notebook


def weights(seed, *shape):
    return rng(seed).standard_normal(shape) / np.sqrt(shape[0])


VISIBLE = [
    Visible(
        "softmax",
        "normalises each row of a small matrix",
        probes.softmax,
        {"x": np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), "axis": -1},
        keys=("out",),
    ),
    Visible(
        "softmax",
        "handles scores of 1000 without overflowing, beside a row of small scores",
        probes.softmax,
        {"x": np.array([[1000.0, 1001.0, 999.0], [-2.0, 0.0, 3.0]]), "axis": -1},
        keys=("out",),
    ),
    Visible(
        "softmax",
        "normalises columns with axis=0",
        probes.softmax,
        {"x": np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 6.0]]), "axis": 0},
        keys=("out",),
    ),
    Visible(
        "softmax",
        "leaves the scores it is given unchanged (a caller still needs them)",
        probes.softmax,
        {"x": np.array([[2.0, -1.0, 0.5], [0.0, 3.0, 1.0]]), "axis": -1},
        keys=("input_kept",),
    ),
    Visible("basic_self_attention", "the notebook's two tokens", probes.basic_self_attention, {"x": X / 4}),
    Visible(
        "basic_self_attention",
        "3 tokens of 2 features, the last far from the first two",
        probes.basic_self_attention,
        {"x": np.array([[0.5, 0.0], [0.0, 0.5], [-1.0, 1.5]])},
    ),
    # d_v 2 differs from d_k 3, so that a scale taken from the values' width shows.
    Visible(
        "qkv_attention",
        "2 tokens, d_k 3, d_v 2, scaled",
        probes.qkv_attention,
        {"x": X / 4, "W_q": weights(2001, 4, 3), "W_k": weights(2002, 4, 3), "W_v": weights(2003, 4, 2), "scale": True},
    ),
    Visible(
        "qkv_attention",
        "the same, unscaled",
        probes.qkv_attention,
        {
            "x": X / 4,
            "W_q": weights(2001, 4, 3),
            "W_k": weights(2002, 4, 3),
            "W_v": weights(2003, 4, 2),
            "scale": False,
        },
    ),
    # More positions than features, so that a table built (d_model, seq_len) has the wrong shape.
    Visible(
        "positional_encoding", "6 positions of d_model 4", probes.positional_encoding, {"seq_len": 6, "d_model": 4}
    ),
    # d_model 6, d_k 3, 4 tokens: sqrt(d_model), d_k and the number of tokens all differ, so a head
    # scaled by the wrong one of them shows (with d_model 4 and 2 heads, sqrt(4) = 2 = d_k).
    Visible(
        "multi_head_attention",
        "4 tokens, d_model 6, 2 heads",
        probes.multi_head_attention,
        {
            "x": rng(2004).standard_normal((4, 6)),
            "W_q": weights(2005, 6, 6),
            "W_k": weights(2006, 6, 6),
            "W_v": weights(2007, 6, 6),
            "W_o": weights(2008, 6, 6),
            "n_heads": 2,
        },
    ),
]
