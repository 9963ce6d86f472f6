"""The catalogue of known mistakes of the `attention_numpy` assignment (see autograder/grade/mistakes.py)."""

from autograder.grade.authoring import Mistake

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
        message="The softmax normalises the whole array at once (np.sum without an axis): sum along `axis` with "
        "keepdims=True, so that each slice along `axis` sums to 1 (each row, for the default axis=-1).",
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
    Mistake(
        id="softmax_global_max",
        target="softmax",
        old="shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0",
        new="shifted = x - np.max(x)",
        message="The largest entry of the WHOLE array is subtracted: a row whose entries are all far below it underflows to 0 / 0 = nan. Subtract each slice's own largest entry: a max along `axis` that keeps its dimension, so it broadcasts.",
    ),
    Mistake(
        id="softmax_axis_fixed_to_1",
        target="softmax",
        old="""    shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=axis, keepdims=True)""",
        new="""    shifted = x - np.max(x, axis=1, keepdims=True)
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=1, keepdims=True)""",
        message="The axis is fixed to 1: right for the rows of a matrix only (a vector has no axis 1, and axis=0 asks for the columns). Pass the `axis` argument on to np.max and np.sum.",
    ),
    Mistake(
        id="qkv_scaled_by_n_tokens",
        target="qkv_attention",
        old="scores = scores / np.sqrt(k.shape[-1])",
        new="scores = scores / np.sqrt(k.shape[0])",
        message="The scores are divided by the square root of the number of tokens (len(k) and k.shape[0] count rows): divide by sqrt(d_k), the width of the keys, k.shape[-1].",
    ),
    Mistake(
        id="positional_exponent_per_column",
        target="positional_encoding",
        old="pe[:, 0::2] = np.sin(angle)\n    pe[:, 1::2] = np.cos(angle)",
        new="pe[:, 0::2] = np.sin(position / 10000 ** (2 * two_i / d_model))\n    pe[:, 1::2] = np.cos(position / 10000 ** ((2 * two_i + 2) / d_model))",
        message="Each column has its own exponent, 2 * column / d_model: columns 2i and 2i+1 share one exponent, 2i / d_model. Compute the angle per pair of columns, not per column.",
    ),
    Mistake(
        id="positional_sin_cos_concatenated",
        target="positional_encoding",
        old="pe[:, 0::2] = np.sin(angle)\n    pe[:, 1::2] = np.cos(angle)",
        new="pe[:, : d_model // 2] = np.sin(angle)\n    pe[:, d_model // 2 :] = np.cos(angle)",
        message="The sines fill the first half of the columns and the cosines the second (concatenated): interleave them, sine in the even columns [:, 0::2], cosine in the odd ones [:, 1::2].",
    ),
    Mistake(
        id="positional_sin_cos_on_rows",
        target="positional_encoding",
        old="pe[:, 0::2] = np.sin(angle)\n    pe[:, 1::2] = np.cos(angle)",
        new="pe[:, 0::2] = angle\n    pe[:, 1::2] = angle\n    pe[0::2] = np.sin(pe[0::2])\n    pe[1::2] = np.cos(pe[1::2])",
        message="The sine and cosine go to every other ROW (position): [0::2] on the first axis picks positions. Index the columns, [:, 0::2] and [:, 1::2].",
    ),
    Mistake(
        id="positional_first_row_zero",
        target="positional_encoding",
        old="    return pe\n",
        new="    pe[0] = 0.0\n    return pe\n",
        message="Position 0 is all zeros: its sine columns are sin(0) = 0, but its cosine columns are cos(0) = 1. Compute row 0 like the others (no special case for pos = 0).",
    ),
    Mistake(
        id="mha_scaled_by_d_model",
        target="multi_head_attention",
        old="heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))",
        new="heads.append(qkv_attention(x, W_q[:, columns] / np.sqrt(n_heads), W_k[:, columns], W_v[:, columns]))",
        message="Each head divides its scores by sqrt(d_model): a head works on d_k = d_model // n_heads features, so the scale is 1/sqrt(d_k) (qkv_attention does it for you).",
    ),
    Mistake(
        id="positional_counted_from_one",
        target="positional_encoding",
        old="position = np.arange(seq_len)[:, None]",
        new="position = np.arange(1, seq_len + 1)[:, None]",
        message="The positions are counted from 1: the first token is at position 0, so row 0 is sin(0) = 0 and cos(0) = 1 in every pair. Number the positions 0, 1, ..., seq_len - 1 (np.arange(seq_len)).",
    ),
    Mistake(
        id="qkv_scaled_by_d_model",
        target="qkv_attention",
        old="scores = scores / np.sqrt(k.shape[-1])",
        new="scores = scores / np.sqrt(x.shape[-1])",
        message="The scores are divided by the square root of x's width, d_model: d_k is the width of the keys, k.shape[-1] (the columns of W_k), which is smaller than d_model when the projections narrow the features, as in every head of multi-head attention.",
    ),
    Mistake(
        id="positional_exponent_doubled",
        target="positional_encoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (2 * two_i / d_model)",
        message="The exponent is doubled: the index already runs over 0, 2, 4, ... (it is 2i itself), and "
        "2 * index / d_model gives 10000^(4i/d_model). Use index / d_model for an index that steps by 2.",
    ),
    Mistake(
        id="positional_exponent_without_two",
        target="positional_encoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (two_i / 2 / d_model)",
        message="The exponent is i / d_model, with i the pair's number (0, 1, 2, ...): the paper's exponent is "
        "2i / d_model, the even column's index over d_model.",
    ),
    Mistake(
        id="softmax_sum_over_axis_0",
        target="softmax",
        old="return exponentials / np.sum(exponentials, axis=axis, keepdims=True)",
        new="return exponentials / np.sum(exponentials, axis=0, keepdims=True)",
        message="The max is taken along `axis` but the sum always along axis 0 (a hard-coded axis=0 in np.sum): "
        "pass `axis` to np.sum too, so that each slice along `axis` sums to 1.",
    ),
    Mistake(
        id="softmax_in_place",
        target="softmax",
        old="shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0",
        new="x -= np.max(x, axis=axis, keepdims=True)\n    shifted = x",
        message="x -= ... changes the caller's array in place: after softmax(scores), scores holds the shifted "
        "values. Subtract into a new array (x minus its max, under a new name) and leave x as it came.",
    ),
    Mistake(
        id="basic_attention_scaled",
        target="basic_self_attention",
        old="weights = softmax(x @ x.T, axis=-1)  # (n, n)",
        new="weights = softmax(x @ x.T / np.sqrt(x.shape[-1]), axis=-1)",
        message="The similarities are divided by sqrt(d): basic self-attention has no scale, softmax(x x^T) x. The "
        "1/sqrt(d_k) comes with queries and keys, in qkv_attention.",
    ),
    Mistake(
        id="qkv_softmax_over_columns",
        target="qkv_attention",
        old="return softmax(scores, axis=-1) @ v  # (n, d_v)",
        new="return softmax(scores, axis=0) @ v",
        message="The softmax of the scores runs down the columns (axis=0): each ROW, one query's scores against "
        "every key, must sum to 1: softmax(scores, axis=-1).",
    ),
    Mistake(
        id="qkv_scores_transposed",
        target="qkv_attention",
        old="scores = q @ k.T  # (n, n)",
        new="scores = k @ q.T",
        message="The scores are k q^T, the transpose of q k^T: row i must hold query i's match with every key, "
        "so the queries come first, q times the keys transposed.",
    ),
    Mistake(
        id="qkv_scaled_by_d_v",
        target="qkv_attention",
        old="scores = scores / np.sqrt(k.shape[-1])",
        new="scores = scores / np.sqrt(v.shape[-1])",
        message="The scores are divided by the square root of the values' width, d_v: the scale is 1/sqrt(d_k), "
        "the width of the queries and keys, k.shape[-1]. The two differ when W_v has another width than W_k.",
    ),
    Mistake(
        id="mha_heads_reshaped_straight",
        target="multi_head_attention",
        old="""    heads = []
    for h in range(n_heads):
        columns = slice(h * d_k, (h + 1) * d_k)  # this head's share of the features
        heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))  # (n, d_k)
    return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)""",
        new="""    n = x.shape[0]
    q, k, v = ((x @ W).reshape(n_heads, n, d_k) for W in (W_q, W_k, W_v))
    weights = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(d_k), axis=-1)
    return (weights @ v).reshape(n, n_heads * d_k) @ W_o""",
        message="The projected queries, keys and values are reshaped straight to (n_heads, n, d_k), which mixes "
        "tokens into heads (head 0 gets all of token 0's features, then token 1's, ...). Head h holds columns "
        "h*d_k up to (h+1)*d_k - 1 of every token: reshape to (n, n_heads, d_k) and then put the heads first with "
        "transpose(1, 0, 2) (and back before joining), or slice the columns of W_q, W_k and W_v per head.",
    ),
    Mistake(
        id="mha_output_projection_transposed",
        target="multi_head_attention",
        old="return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)",
        new="return np.concatenate(heads, axis=-1) @ W_o.T",
        message="The joined heads are multiplied by W_o.T: like W_q, W_k and W_v, W_o maps the features on its rows "
        "to those on its columns, so the output is concat(heads) @ W_o.",
    ),
    Mistake(
        id="mha_strided_head_columns",
        target="multi_head_attention",
        old="columns = slice(h * d_k, (h + 1) * d_k)  # this head's share of the features",
        new="columns = slice(h, None, n_heads)",
        message="Head h takes every n_heads-th column (W_q[:, h::n_heads]): it takes one block of d_k columns side "
        "by side, h*d_k up to (h+1)*d_k - 1, W_q[:, h*d_k:(h+1)*d_k] (and the same of W_k and W_v).",
    ),
    Mistake(
        id="positional_position_multiplied",
        target="positional_encoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position * 10000 ** (two_i / d_model)",
        message="The position is multiplied by 10000^(2i/d_model): it is divided by it, pos / 10000^(2i/d_model), "
        "so that the later pairs of features turn more slowly (wavelengths from 2*pi up to 10000*2*pi).",
    ),
    Mistake(
        id="positional_integer_division",
        target="positional_encoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (two_i // d_model)",
        message="The exponent uses integer division (2 * i // d_model is 0 for every pair, so every pair turns at "
        "the same speed): divide with /, so that 2i / d_model grows from 0 towards 1 along the features.",
    ),
]

# ---------------------------------------------------------------- families: one slip, several values
# Each entry below stands for one mistake per value (autograder/grade/mistakes.py).

LOOP = """    heads = []
    for h in range(n_heads):
        columns = slice(h * d_k, (h + 1) * d_k)  # this head's share of the features
        heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))  # (n, d_k)
    return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)"""
SPLIT_RIGHT = "(x @ W).reshape(n, n_heads, d_k).transpose(1, 0, 2)"
SPLIT_STRAIGHT = "(x @ W).reshape(n_heads, n, d_k)"
JOIN_RIGHT = "(weights @ v).transpose(1, 0, 2).reshape(n, n_heads * d_k)"


def batched(split: str, weights: str, join: str) -> str:
    """multi_head_attention's body in the batched-heads style: all heads at once, as one (n_heads, n, d_k) array."""
    return (
        "    n = x.shape[0]\n"
        f"    q, k, v = ({split} for W in (W_q, W_k, W_v))\n"
        "    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_k)\n"
        f"{weights}"
        f"    return {join} @ W_o"
    )


ROW_SOFTMAX = "    weights = softmax(scores, axis=-1)\n"

MISTAKES += [
    Mistake(
        id="mha_heads_{name}_without_transpose",
        target="multi_head_attention",
        old=LOOP,
        new="{body}",
        message="{what} Head h holds columns h*d_k up to (h+1)*d_k - 1 of every token: reshape to (n, n_heads, d_k) "
        "and put the heads first with transpose(1, 0, 2), then transpose back before reshaping to (n, d_model).",
        values=[
            {
                "name": "split",
                "body": batched(SPLIT_STRAIGHT, ROW_SOFTMAX, JOIN_RIGHT),
                "what": "The projections are reshaped straight to (n_heads, n, d_k), which mixes tokens into heads.",
            },
            {
                "name": "joined",
                "body": batched(SPLIT_RIGHT, ROW_SOFTMAX, "(weights @ v).reshape(n, n_heads * d_k)"),
                "what": "The heads, (n_heads, n, d_k), are reshaped straight to (n, d_model), which puts one head's "
                "tokens side by side in a row instead of each token's heads.",
            },
        ],
    ),
    Mistake(
        id="mha_weights_over_a_global_sum{name}",
        target="multi_head_attention",
        old=LOOP,
        new="{body}",
        message="The weights are exp(scores) divided by one sum over every head and every row (np.sum without an "
        "axis{shift}): each query's weights over the keys must sum to 1, a softmax along the last axis, "
        "softmax(scores, axis=-1).",
        values=[
            {
                "name": "",
                "shift": "",
                "body": batched(SPLIT_RIGHT, "    weights = np.exp(scores) / np.sum(np.exp(scores))\n", JOIN_RIGHT),
            },
            {
                "name": "_of_shifted_rows",
                "shift": ", after each row's largest score is subtracted",
                "body": batched(
                    SPLIT_RIGHT,
                    "    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    weights = shifted / np.sum(shifted)\n",
                    JOIN_RIGHT,
                ),
            },
        ],
        line=r"np\.sum\(\s*[\w.()\s-]+\)(?!\s*,\s*axis)",
    ),
    Mistake(
        id="mha_head_size_from_a_global_{size}",
        target="multi_head_attention",
        old="heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))",
        new="heads.append(qkv_attention(x, W_q[:, columns] * np.sqrt(d_k / ({size} / n_heads)), W_k[:, columns], W_v[:, columns]))",
        message="Each head's scores are divided by sqrt({size} / n_heads): a model size of {size} set once at the "
        "top of the code (dm = {size}), not this call's d_model. Read the sizes from the arrays given: a head's "
        "width is the number of W_q's columns over n_heads.",
        values=[{"size": str(size)} for size in (64, 128, 256, 512)],
        line=r"\b{size}\b",
    ),
    Mistake(
        id="mha_input_added",
        target="multi_head_attention",
        old="return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)",
        new="return np.concatenate(heads, axis=-1) @ W_o + x",
        message="The input x is added to the output (a residual connection, which belongs to the block around the "
        "attention, not to the attention itself): return concat(heads) @ W_o.",
        line=r"@\s*W_o\s*\+|\+\s*x\s*$",
    ),
    Mistake(
        id="qkv_weights_over_a_global_sum",
        target="qkv_attention",
        old="return softmax(scores, axis=-1) @ v  # (n, d_v)",
        new="return softmax(scores, axis=None) @ v",
        message="The softmax normalises the whole score matrix at once (axis=None, or a softmax whose axis "
        "defaults to None): each query's weights over the keys must sum to 1, softmax(scores, axis=-1).",
        line=r"axis\s*=\s*None",
    ),
    Mistake(
        id="softmax_divided_by_the_whole_sum",
        target="softmax",
        old="return exponentials / np.sum(exponentials, axis=axis, keepdims=True)",
        new="return exponentials / np.sum(exponentials)",
        message="The exponentials are divided by the sum of the whole array (np.sum without an axis), though the "
        "largest entry is subtracted along `axis`: sum along `axis` with keepdims=True too, so that each slice "
        "sums to 1.",
        line=r"np\.sum\([^,()]*\)|\.sum\(\s*\)",
    ),
    Mistake(
        id="positional_frequencies_with_{log}",
        target="positional_encoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position * np.exp(two_i * -(np.{log}(10000.0) / d_model))",
        message="The frequencies are exp(-2i * {log}(10000) / d_model): np.{log} is not the natural logarithm, so "
        "the table's frequencies are those of another base than 10000. Use np.log: "
        "exp(-2i * log(10000) / d_model) = 1 / 10000^(2i/d_model).",
        values=[{"log": "log10"}, {"log": "log2"}],
        line=r"{log}\(",
    ),
    Mistake(
        id="positional_cosine_of_the_next_pair",
        target="positional_encoding",
        old="pe[:, 1::2] = np.cos(angle)",
        new="pe[:, 1::2] = np.cos(position / 10000 ** ((two_i + 2) / d_model))",
        message="The cosine of column 2i+1 takes the next pair's frequency, 10000^(2(i+1)/d_model) (what "
        "2 * ceil(k / 2) gives for an odd column k): both columns of a pair share 10000^(2i/d_model), "
        "2 * (k // 2) for column k.",
        line=r"ceil",
    ),
]
