import numpy as np

__all__ = ["softmax", "basic_self_attention", "qkv_attention",
           "positional_encoding", "multi_head_attention"]


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def basic_self_attention(x):
    return softmax(x @ x.T) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = x @ W_q
    k = x @ W_q
    v = x @ W_v
    s = q @ k.T
    if scale:
        s /= np.sqrt(W_k.shape[1])
    return softmax(s) @ v


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(d_model // 2):
            w = 1.0 / 10000 ** (2 * i / d_model)
            pe[pos, 2 * i] = np.sin(pos * w)
            pe[pos, 2 * i + 1] = np.cos(pos * w)
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    n, d_model = x.shape
    d_k = d_model // n_heads
    Wq = W_q.reshape(d_model, n_heads, d_k)
    Wk = W_k.reshape(d_model, n_heads, d_k)
    Wv = W_v.reshape(d_model, n_heads, d_k)
    q = np.einsum("nd,dhk->hnk", x, Wq)
    k = np.einsum("nd,dhk->hnk", x, Wk)
    v = np.einsum("nd,dhk->hnk", x, Wv)
    a = softmax(np.einsum("hik,hjk->hij", q, k) / np.sqrt(d_k), axis=-1)
    z = np.einsum("hij,hjk->ihk", a, v).reshape(n, d_model)
    return z @ W_o
