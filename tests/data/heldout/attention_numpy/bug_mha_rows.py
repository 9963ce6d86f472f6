import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def basic_self_attention(x):
    return softmax(x @ x.T) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    s = q @ k.T
    if scale:
        s = s / np.sqrt(k.shape[1])
    return softmax(s) @ v


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = np.sin(pos / 10000 ** (i / d_model))
            pe[pos, i + 1] = np.cos(pos / 10000 ** (i / d_model))
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        Wq_h = W_q[h * d_k:(h + 1) * d_k]      # (d_k, d_model)
        Wk_h = W_k[h * d_k:(h + 1) * d_k]
        Wv_h = W_v[h * d_k:(h + 1) * d_k]
        # transpose so the shapes line up: (n, d_model) @ (d_model, d_k)
        heads.append(qkv_attention(x, Wq_h.T, Wk_h.T, Wv_h.T))
    return np.concatenate(heads, axis=1) @ W_o
