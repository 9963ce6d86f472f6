"""The catalogue of known mistakes of the `attention_numpy` assignment (see autograder/mutants.py)."""
from autograder.grade.mistakes import Mistake

# The mistake of the demo's sample submission: the seed notebook's own slip, which no other exercise calls.
DEMO = "positional_cosine_exponent_off_by_one"

MISTAKES = [
    Mistake(
        id="softmax_without_axis",
        target="softmax",
        old="""    shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=axis, keepdims=True)""",
        new="""    exponentials = np.exp(x - np.max(x))
    return exponentials / np.sum(exponentials)""",
        message="The softmax normalises the whole array at once (np.sum without an axis): sum along `axis` with keepdims=True, so that each row sums to 1.",
    ),
    Mistake(
        id="softmax_overflows",
        target="softmax",
        old="shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0",
        new="shifted = x",
        message="exp overflows for large scores (exp(1000) is inf, and inf / inf is nan): subtract the largest entry along the axis before exp.",
    ),
    Mistake(
        id="softmax_over_axis_0",
        target="softmax",
        old="""    shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=axis, keepdims=True)""",
        new="""    shifted = x - np.max(x, axis=0, keepdims=True)
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=0, keepdims=True)""",
        message="The softmax always runs over axis 0: use the `axis` argument (by default -1, each row).",
    ),
    Mistake(
        id="basic_attention_without_softmax",
        target="basic_self_attention",
        old="weights = softmax(x @ x.T, axis=-1)  # (n, n)",
        new="weights = x @ x.T",
        message="The similarities x x^T are used as weights directly: turn each row into weights with softmax first.",
    ),
    Mistake(
        id="basic_attention_softmax_over_columns",
        target="basic_self_attention",
        old="weights = softmax(x @ x.T, axis=-1)  # (n, n)",
        new="weights = softmax(x @ x.T, axis=0)",
        message="The softmax runs down the columns: each ROW of the weights (one per token) must sum to 1.",
    ),
    Mistake(
        id="qkv_not_scaled",
        target="qkv_attention",
        old="scores = scores / np.sqrt(k.shape[-1])",
        new="scores = scores",
        message="The scores are not divided by sqrt(d_k) when scale is True.",
    ),
    Mistake(
        id="qkv_scaled_by_d_k",
        target="qkv_attention",
        old="scores = scores / np.sqrt(k.shape[-1])",
        new="scores = scores / k.shape[-1]",
        message="The scores are divided by d_k: the scale is 1/sqrt(d_k).",
    ),
    Mistake(
        id="qkv_always_scaled",
        target="qkv_attention",
        old="if scale:",
        new="if True:",
        message="The scores are scaled even when scale is False: divide by sqrt(d_k) only when scale is True.",
    ),
    Mistake(
        id="qkv_keys_from_queries",
        target="qkv_attention",
        old="q, k, v = x @ W_q, x @ W_k, x @ W_v",
        new="q, k, v = x @ W_q, x @ W_q, x @ W_v",
        message="The keys are computed with W_q: use W_k for the keys.",
    ),
    Mistake(
        id="positional_cosine_exponent_off_by_one",
        target="positional_encoding",
        old="pe[:, 1::2] = np.cos(angle)",
        new="pe[:, 1::2] = np.cos(position / 10000 ** ((two_i + 1) / d_model))",
        message="The cosine of feature 2i+1 uses the exponent (2i+1)/d_model, a common slip: both features of a pair share the exponent 2i/d_model.",
    ),
    Mistake(
        id="positional_sin_cos_swapped",
        target="positional_encoding",
        old="pe[:, 0::2] = np.sin(angle)\n    pe[:, 1::2] = np.cos(angle)",
        new="pe[:, 0::2] = np.cos(angle)\n    pe[:, 1::2] = np.sin(angle)",
        message="Sine and cosine are swapped: even features (0, 2, 4, ...) take the sine, odd ones the cosine.",
    ),
    Mistake(
        id="mha_without_output_projection",
        target="multi_head_attention",
        old="return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)",
        new="return np.concatenate(heads, axis=-1)",
        message="The output projection is missing: multiply the concatenated heads by W_o.",
    ),
    Mistake(
        id="mha_heads_in_reverse",
        target="multi_head_attention",
        old="return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)",
        new="return np.concatenate(heads[::-1], axis=-1) @ W_o",
        message="The heads are concatenated in the wrong order: head 0's output comes first, then head 1's, ...",
    ),
    Mistake(
        id="mha_unscaled_heads",
        target="multi_head_attention",
        old="heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))",
        new="heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns], scale=False))",
        message="The heads' scores are not scaled: every head divides its scores by sqrt(d_k), d_k = d_model // n_heads.",
    ),
]
