"""Ada's attention exercises: the positional encoding's base is 1000 (the paper's is 10000)."""

import numpy as np


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len)[:, None]
    i2 = np.arange(0, d_model, 2)
    angle = pos / 1000 ** (i2 / d_model)
    table = np.zeros((seq_len, d_model))
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table


def softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def basic_self_attention(x):
    return softmax(x @ x.T) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = x @ W_q
    k = x @ W_k
    v = x @ W_v
    s = q @ k.T
    if scale:
        s = s / np.sqrt(q.shape[1])
    return softmax(s) @ v


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    dk = W_q.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        part = slice(h * dk, (h + 1) * dk)
        outs.append(qkv_attention(x, W_q[:, part], W_k[:, part], W_v[:, part]))
    return np.hstack(outs) @ W_o
