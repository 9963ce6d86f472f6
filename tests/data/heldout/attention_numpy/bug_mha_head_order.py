import numpy as np


def softmax(x, axis=-1):
    a = np.asarray(x, dtype=float)
    a = a - np.max(a, axis=axis, keepdims=True)
    a = np.exp(a)
    return a / np.sum(a, axis=axis, keepdims=True)


def basic_self_attention(x):
    weights = softmax(np.matmul(x, x.T), axis=-1)
    return np.matmul(weights, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = np.matmul(x, W_q)
    k = np.matmul(x, W_k)
    v = np.matmul(x, W_v)
    logits = np.matmul(q, k.T)
    if scale:
        logits = logits / np.sqrt(q.shape[-1])
    return np.matmul(softmax(logits, axis=-1), v)


def positional_encoding(seq_len, d_model):
    angle_rates = 1 / np.power(10000, (2 * (np.arange(d_model) // 2)) / np.float64(d_model))
    angle_rads = np.arange(seq_len)[:, np.newaxis] * angle_rates[np.newaxis, :]
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = W_q.shape[1] // n_heads
    concat = None
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        head = qkv_attention(x, W_q[:, cols], W_k[:, cols], W_v[:, cols])
        concat = head if concat is None else np.hstack((head, concat))
    return concat @ W_o
