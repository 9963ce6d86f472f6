"""Attention exercise -- NumPy only.

Rows are tokens, columns are features.
"""
import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along `axis`."""
    x = np.asarray(x, dtype=np.float64)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def basic_self_attention(x):
    weights = softmax(x @ x.T, axis=-1)   # (n, n), rows sum to 1
    return weights @ x                    # (n, d)


def scaled_dot_product_attention(q, k, v, scale=True):
    """Helper shared by qkv_attention and multi_head_attention."""
    scores = q @ k.T
    if scale:
        scores = scores / np.sqrt(k.shape[-1])
    return softmax(scores, axis=-1) @ v


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = x @ W_q
    k = x @ W_k
    v = x @ W_v
    return scaled_dot_product_attention(q, k, v, scale=scale)


def positional_encoding(seq_len, d_model):
    positions = np.arange(seq_len)[:, np.newaxis]          # (seq_len, 1)
    two_i = np.arange(0, d_model, 2)[np.newaxis, :]         # (1, d_model/2)
    i = np.arange(d_model // 2)[np.newaxis, :]               # the pair's number
    angles = positions / np.power(10000.0, i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        q = x @ W_q[:, cols]
        k = x @ W_k[:, cols]
        v = x @ W_v[:, cols]
        heads.append(scaled_dot_product_attention(q, k, v, scale=True))
    concat = np.concatenate(heads, axis=-1)   # (n, d_model)
    return concat @ W_o


if __name__ == "__main__":
    rng = np.random.default_rng(42)
    x = rng.normal(size=(3, 8))
    print(softmax(np.array([1000.0, 1000.0, 999.0])))
    print(basic_self_attention(x).shape)
    W = [rng.normal(size=(8, 8)) for _ in range(4)]
    print(qkv_attention(x, W[0], W[1], W[2]).shape)
    print(positional_encoding(4, 8).round(3))
    print(multi_head_attention(x, *W, n_heads=2).shape)
