import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    shift = x - x.max(axis=axis, keepdims=True)
    return np.exp(shift) / np.exp(shift).sum(axis=axis, keepdims=True)


def basic_self_attention(x):
    return softmax(x @ x.T) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.T / (np.sqrt(q.shape[-1]) if scale else 1)
    return softmax(scores) @ v


def positional_encoding(seq_len, d_model):
    positions = np.arange(seq_len)[:, np.newaxis]
    div = 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.cos(positions / div)
    pe[:, 1::2] = np.sin(positions / div)
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = x.shape[-1] // n_heads
    chunks = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        chunks.append(qkv_attention(x, W_q[:, c], W_k[:, c], W_v[:, c], scale=True))
    return np.concatenate(chunks, -1) @ W_o
