"""Weights and masks for the graders and the visible checks of `encoder_block`, drawn from fixed seeds.

Every parameter is drawn (none is left at its start value), so that a weight loaded into
the wrong place, or a norm shared where two are asked for, changes the output.
"""

import numpy as np

from autograder.grade.authoring import linear_weights, normal


def linear(seed: int, d_in: int, d_out: int, prefix: str) -> dict[str, np.ndarray]:
    """{prefix.weight (d_out, d_in), prefix.bias (d_out,)}, drawn like nn.Linear's start."""
    weight, bias = linear_weights(seed, d_in, d_out)
    return {f"{prefix}.weight": weight, f"{prefix}.bias": bias}


def norm(seed: int, d_model: int, prefix: str = "") -> dict[str, np.ndarray]:
    """A layer norm's {weight, bias}: a scale near 1 and a shift near 0, different for every feature."""
    return {
        f"{prefix}weight": 1 + normal(seed, d_model, scale=0.3),
        f"{prefix}bias": normal(seed + 1, d_model, scale=0.3),
    }


def feed_forward(seed: int, d_model: int, d_ff: int, prefix: str = "") -> dict[str, np.ndarray]:
    """w_1 (d_model -> d_ff) and w_2 (d_ff -> d_model)."""
    return {**linear(seed, d_model, d_ff, f"{prefix}w_1"), **linear(seed + 1, d_ff, d_model, f"{prefix}w_2")}


def encoder(seed: int, d_model: int, d_ff: int) -> dict[str, np.ndarray]:
    """Every parameter of an EncoderLayer, by its path in the contract."""
    weights = {}
    for offset, name in enumerate(("Wq", "Wk", "Wv", "Wo")):
        weights.update(linear(seed + offset, d_model, d_model, f"self_attn.{name}"))
    weights.update(feed_forward(seed + 4, d_model, d_ff, "feed_forward."))
    weights.update(norm(seed + 6, d_model, "sublayer.0.norm."))
    weights.update(norm(seed + 8, d_model, "sublayer.1.norm."))
    return weights


def padding_mask(lengths, seq: int) -> np.ndarray:
    """(batch, 1, 1, seq): True on the first lengths[b] tokens of sequence b, False on its padding."""
    return (np.arange(seq)[None, :] < np.array(lengths)[:, None])[:, None, None, :]
