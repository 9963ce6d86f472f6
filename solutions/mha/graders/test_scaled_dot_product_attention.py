"""Hidden checks of scaled_dot_product_attention: values, masks, gradients, dropout, no shortcut."""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same, keep_mask, normal, require_own_attention, rng

from .. import probes

# The row sums first: a sum that is not 1 says what is wrong (a softmax over another axis,
# weights masked after the softmax) where the values alone would not.
VALUES = (probes.ROW_SUMS, "output", "attn_probs")

GRADED = "scaled_dot_product_attention"

SHAPES = {  # leading dims, q_len, k_len, d_k, d_v
    "3 dims: (batch 2, seq 5, d_k 4)": ((2,), 5, 5, 4, 4),
    "4 dims, the seed example: (3, 4 heads, 6, 2)": ((3, 4), 6, 6, 2, 2),
    "batch 1, seq 1": ((1, 1), 1, 1, 8, 8),
    "q_len 3 attends to k_len 7": ((2, 2), 3, 7, 8, 8),
    "d_v differs from d_k": ((2, 3), 4, 6, 5, 3),
    "d_k 64": ((2, 2), 5, 5, 64, 64),
}


def inputs(seed, lead, q_len, k_len, d_k, d_v, **extra):
    if extra.pop("float64", False):
        return {key: value.astype(np.float64) for key, value in inputs(seed, lead, q_len, k_len, d_k, d_v).items()}
    return {
        "query": normal(seed, *lead, q_len, d_k),
        "key": normal(seed + 1, *lead, k_len, d_k),
        "value": normal(seed + 2, *lead, k_len, d_v),
        "grad_output": normal(seed + 3, *lead, q_len, d_v),
        **extra,
    }


def padding_mask(seed, batch, k_len):
    """(batch, 1, 1, k_len), True where visible; every row keeps at least its first key."""
    lengths = rng(seed).integers(1, k_len + 1, batch)
    return (np.arange(k_len)[None, :] < lengths[:, None])[:, None, None, :]


MASKS = {
    "padding mask (batch, 1, 1, k_len)": lambda: inputs(41, (3, 2), 5, 5, 4, 4, mask=padding_mask(1, 3, 5)),
    "causal mask (1, 1, seq, seq)": lambda: inputs(
        43, (2, 2), 6, 6, 4, 4, mask=np.tril(np.ones((6, 6), dtype=bool))[None, None]
    ),
    "integer 0/1 mask": lambda: inputs(
        47, (2, 1), 4, 4, 3, 3, mask=np.tril(np.ones((4, 4), dtype=np.int64))[None, None]
    ),
    "mask with q_len 2, k_len 6": lambda: inputs(53, (2, 2), 2, 6, 4, 4, mask=padding_mask(2, 2, 6)),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_values(student, reference, shape):
    """returns softmax(Q K^T / sqrt(d_k)) V and the weights, softmax over the keys"""
    expect_same(student, reference, probes.attention, inputs(13, *shape), keys=VALUES)


def test_keeps_the_dtype(student, reference):
    """returns float64 results for float64 inputs"""
    expect_same(
        student,
        reference,
        probes.attention,
        inputs(29, (2, 2), 3, 4, 4, 4, float64=True),
        keys=VALUES,
    )


@pytest.mark.weight(2)
@pytest.mark.parametrize("make", MASKS.values(), ids=MASKS.keys())
def test_masks(student, reference, make):
    """gives blocked keys (mask 0 or False) no weight"""
    expect_same(student, reference, probes.attention, make(), keys=VALUES)


@pytest.mark.parametrize(
    "shape", [SHAPES["q_len 3 attends to k_len 7"], SHAPES["d_v differs from d_k"]], ids=["cross", "d_v"]
)
def test_gradients(student, reference, shape):
    """passes the right gradients back to Q, K and V"""
    expect_same(student, reference, probes.attention, inputs(17, *shape), keys=("grad_query", "grad_key", "grad_value"))


def test_dropout_on_the_weights(student, reference):
    """applies dropout to the weights before they multiply V, and returns the weights before dropout"""
    case = inputs(19, (2, 2), 4, 5, 3, 3, keep=keep_mask(7, 4, 5), p=0.5)
    expect_same(
        student,
        reference,
        probes.attention,
        case,
        keys=(probes.ROW_SUMS, "attn_probs"),
        what="attn_probs must be returned before dropout",
    )
    expect_same(student, reference, probes.attention, case, keys=("output",), what="dropout(attn_probs) @ V")


@pytest.mark.gate
def test_computes_attention_itself(student):
    """computes attention itself, without torch's scaled_dot_product_attention"""
    require_own_attention(student, probes.attention, inputs(13, *SHAPES["3 dims: (batch 2, seq 5, d_k 4)"]), GRADED)
