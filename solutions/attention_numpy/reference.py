# The instructor's reference for the assignment `attention_numpy`: the one place each
# exercise's code lives. Each top-level definition holding a "### BEGIN SOLUTION" region
# is one exercise. `python -m autograder build attention_numpy` writes the student stubs,
# the nbgrader master notebook and the release from it.
"""Attention in NumPy: the core ideas of the Transformer, one function at a time.

Rows are tokens: x has shape (n, d), one row of d numbers per token.
"""

import numpy as np


def softmax(x, axis=-1):
    """Turn scores into weights that are positive and sum to 1 along ``axis``.

    softmax(x)_i = exp(x_i) / sum_j exp(x_j), over the entries along ``axis`` only.
    Subtract the largest entry along the axis first: it cancels out of the fraction,
    and it keeps exp from overflowing (exp(1000) is inf, and inf / inf is nan).

    Args:
        x: an array of any shape.
        axis: the axis whose entries become weights.

    Returns:
        An array of x's shape.
    """
    ### BEGIN SOLUTION
    shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials, axis=axis, keepdims=True)
    ### END SOLUTION


def basic_self_attention(x):
    """Replace each token by an average of all tokens, weighted by how similar they are.

    y = softmax(x x^T) x, with the softmax over each row: row i of the weights
    softmax(x x^T), (n, n), says how much token i looks at every token. The weights
    stay inside the function: it returns y only. Nothing here is learned.

    Shapes:
        x: (n, d) -> returns y: (n, d)
    """
    ### BEGIN SOLUTION
    weights = softmax(x @ x.T, axis=-1)  # (n, n)
    return weights @ x  # (n, d)
    ### END SOLUTION


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    """Attention with learned queries, keys and values.

    q = x W_q, k = x W_k, v = x W_v, then softmax(q k^T / sqrt(d_k)) v with the softmax
    over each row; when ``scale`` is False, the scores are not divided by sqrt(d_k).
    d_k is the width of the queries and keys (the columns of W_q and W_k), which need
    not be x's width d_model.

    Shapes:
        x: (n, d_model); W_q, W_k: (d_model, d_k); W_v: (d_model, d_v)
        returns (n, d_v)
    """
    ### BEGIN SOLUTION
    q, k, v = x @ W_q, x @ W_k, x @ W_v  # (n, d_k), (n, d_k), (n, d_v)
    scores = q @ k.T  # (n, n)
    if scale:
        scores = scores / np.sqrt(k.shape[-1])
    return softmax(scores, axis=-1) @ v  # (n, d_v)
    ### END SOLUTION


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    """Several attentions side by side, each on its own slice of the features, then mixed.

    With d_k = d_model // n_heads, head h uses columns h*d_k up to (h+1)*d_k - 1 of W_q,
    W_k and W_v (the slice [:, h*d_k:(h+1)*d_k]) and computes scaled qkv attention: you
    may call your qkv_attention for each head. The heads' outputs, (n, d_k) each, are
    concatenated in head order into (n, d_model) and multiplied by W_o.

    Shapes:
        x: (n, d_model); W_q, W_k, W_v, W_o: (d_model, d_model)
        returns (n, d_model)
    """
    ### BEGIN SOLUTION
    d_k = W_q.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        columns = slice(h * d_k, (h + 1) * d_k)  # this head's share of the features
        heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))  # (n, d_k)
    return np.concatenate(heads, axis=-1) @ W_o  # (n, d_model)
    ### END SOLUTION


def positional_encoding(seq_len, d_model):
    """The sinusoidal position table of the Transformer paper.

    For position pos = 0, 1, ..., seq_len - 1 (row 0 is position 0: its sines are 0,
    its cosines 1) and i = 0, 1, ..., d_model/2 - 1:
        pe[pos, 2i]   = sin(pos / 10000^(2i / d_model))
        pe[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
    Both features of a pair share the exponent 2i / d_model.

    Shapes:
        returns (seq_len, d_model); d_model is even.
    """
    ### BEGIN SOLUTION
    position = np.arange(seq_len)[:, None]  # (seq_len, 1)
    two_i = np.arange(0, d_model, 2)  # (d_model / 2,)
    angle = position / 10000 ** (two_i / d_model)  # (seq_len, d_model / 2)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe
    ### END SOLUTION
