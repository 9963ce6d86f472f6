import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, 0)
    e = np.exp(x - x.max(axis=0))
    return np.moveaxis(e / e.sum(axis=0), 0, axis)


def basic_self_attention(x):
    return softmax(x @ x.T, axis=-1) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    d_k = q.shape[-1]
    scores = q @ k.T
    if scale:
        scores = scores / d_k
    return softmax(scores, axis=-1) @ v


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    pos = np.arange(seq_len)
    inv = np.power(10000.0, -np.arange(0, d_model, 2) / d_model)
    pe[:, 0::2] = np.sin(np.outer(pos, inv))
    pe[:, 1::2] = np.cos(np.outer(pos, inv))
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    heads = [qkv_attention(x, W_q[:, i:i + d_k], W_k[:, i:i + d_k], W_v[:, i:i + d_k])
             for i in range(0, d_model, d_k)][:n_heads]
    return np.concatenate(heads, axis=1) @ W_o
