import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return np.exp(shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)))


def basic_self_attention(x):
    return np.einsum("ij,jd->id", softmax(np.einsum("id,jd->ij", x, x)), x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    s = np.einsum("ik,jk->ij", q, k)
    if scale:
        s = s / np.sqrt(q.shape[-1])
    return softmax(s) @ v


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len)[:, None]
    freq = np.exp(-np.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    pe = np.stack([np.sin(pos * freq), np.cos(pos * freq)], axis=-1)   # (L, d/2, 2)
    return pe.reshape(seq_len, d_model)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    n, d_model = x.shape
    d_k = d_model // n_heads
    # (n, d_model) -> (n_heads, n, d_k)
    q = (x @ W_q).reshape(n, d_k, n_heads).transpose(2, 0, 1)
    k = (x @ W_k).reshape(n, d_k, n_heads).transpose(2, 0, 1)
    v = (x @ W_v).reshape(n, d_k, n_heads).transpose(2, 0, 1)
    a = softmax(np.einsum("hid,hjd->hij", q, k) / np.sqrt(d_k))
    z = np.einsum("hij,hjd->hid", a, v)          # (h, n, d_k)
    z = z.transpose(1, 2, 0).reshape(n, d_model)  # undo the same way
    return z @ W_o
