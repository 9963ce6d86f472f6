"""Hidden checks of MultiHeadAttention, with the reference's weights loaded into Wq, Wk, Wv, Wo."""

import numpy as np
import pytest

from autograder.grade.authoring import (
    expect_same,
    keep_mask,
    layers,
    normal,
    require,
    require_dropouts_built,
    require_own_attention,
)

from .. import probes

# The row sums first: a sum that is not 1 says what is wrong (a softmax over another axis,
# weights masked after the softmax) where the values alone would not.
VALUES = (probes.ROW_SUMS, "output", "attn_probs")

GRADED = "MultiHeadAttention"


def inputs(seed, batch, q_len, k_len, d_model, n_heads, self_attention=True, **extra):
    query = normal(seed, batch, q_len, d_model)
    key_value = query if self_attention else normal(seed + 1, batch, k_len, d_model)
    return {
        "d_model": d_model,
        "n_heads": n_heads,
        "weights": layers(seed + 2, probes.WEIGHTS, d_model),
        "query": query,
        "key": key_value,
        "value": key_value if self_attention else normal(seed + 3, batch, k_len, d_model),
        "grad_output": normal(seed + 4, batch, q_len, d_model),
        **extra,
    }


SELF = {  # batch, seq, d_model, n_heads
    "the seed example: (3, 6, 8), 4 heads": (3, 6, 8, 4),
    "batch 1, seq 1": (1, 1, 8, 2),
    "one head": (2, 5, 6, 1),
    "d_model 12, 3 heads": (2, 5, 12, 3),
    "d_model 64, 8 heads": (2, 7, 64, 8),
}

OTHERS = {
    "cross-attention: q_len 3, k_len 7": lambda: inputs(61, 2, 3, 7, 12, 3, self_attention=False),
    "cross-attention: q_len 6, k_len 2, one head": lambda: inputs(67, 1, 6, 2, 8, 1, self_attention=False),
    "padding mask (batch, 1, 1, k_len)": lambda: inputs(
        71, 3, 5, 5, 8, 2, mask=(np.arange(5)[None, :] < np.array([5, 3, 1])[:, None])[:, None, None, :]
    ),
    "causal mask (1, 1, seq, seq)": lambda: inputs(
        73, 2, 6, 6, 12, 4, mask=np.tril(np.ones((6, 6), dtype=bool))[None, None]
    ),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SELF.values(), ids=SELF.keys())
def test_self_attention(student, reference, shape):
    """returns the reference's output (batch, q_len, d_model) and weights (batch, n_heads, q_len, k_len)"""
    batch, seq, d_model, n_heads = shape
    expect_same(
        student,
        reference,
        probes.multi_head_attention,
        inputs(59, batch, seq, seq, d_model, n_heads),
        keys=VALUES,
    )


@pytest.mark.weight(2)
@pytest.mark.parametrize("make", OTHERS.values(), ids=OTHERS.keys())
def test_cross_attention_and_masks(student, reference, make):
    """attends from the queries to separate keys and values, and honours masks"""
    expect_same(student, reference, probes.multi_head_attention, make(), keys=VALUES)


GRADIENT_KEYS = ("grad_query", "grad_key", "grad_value") + tuple(
    f"grad_{w}.{part}" for w in probes.WEIGHTS for part in ("weight", "bias")
)


@pytest.mark.weight(2)
@pytest.mark.parametrize(
    "make", [lambda: inputs(79, 2, 4, 4, 12, 3), OTHERS["cross-attention: q_len 3, k_len 7"]], ids=["self", "cross"]
)
def test_gradients(student, reference, make):
    """passes the right gradients to the inputs and to Wq, Wk, Wv, Wo"""
    expect_same(student, reference, probes.multi_head_attention, make(), keys=GRADIENT_KEYS)


def test_dropout_on_the_weights(student, reference):
    """in train mode, applies self.dropout to the attention weights only, and returns the weights before dropout"""
    case = inputs(83, 2, 4, 4, 8, 2, keep=keep_mask(11, 4, 4), p=0.5)
    expect_same(
        student,
        reference,
        probes.multi_head_attention,
        case,
        keys=(probes.ROW_SUMS, "attn_probs"),
        what="attn_probs must be returned before dropout",
    )
    expect_same(
        student,
        reference,
        probes.multi_head_attention,
        case,
        keys=("output",),
        what="self.dropout on the attention weights",
    )


def test_dropout_probability(student):
    """builds self.dropout with the probability given (dropout=p)"""
    require_dropouts_built(student, probes.dropout_built, GRADED, [4, 2], 0.3)


def test_refuses_heads_that_do_not_divide_d_model(student, reference):
    """raises an error in the constructor when n_heads does not divide d_model"""
    for d_model, n_heads in [(10, 3), (8, 3)]:
        sizes = {"d_model": d_model, "n_heads": n_heads}
        got = student.run(probes.multi_head_attention_indivisible.probe_id, sizes)
        evidence = {
            "probe_id": probes.multi_head_attention_indivisible.probe_id,
            "inputs": sizes,
            "got": got,
            "keys": ("raised",),
        }
        require(
            bool(got["raised"]),
            f"MultiHeadAttention({d_model}, {n_heads}) should raise an error: d_model {d_model} cannot be split into {n_heads} equal heads",
            evidence,
        )


@pytest.mark.gate
def test_computes_attention_itself(student):
    """computes attention itself, without torch's MultiheadAttention or scaled_dot_product_attention"""
    require_own_attention(student, probes.multi_head_attention, inputs(59, 2, 5, 5, 12, 3), GRADED)
