"""Dev's attention exercises: each pair of columns holds [cos, sin], stacked."""

import numpy as np


def positional_encoding(seq_len, d_model):
    positions = np.arange(seq_len, dtype=float).reshape(-1, 1)
    frequencies = np.power(10000.0, -np.arange(0, d_model, 2) / d_model)
    arguments = positions * frequencies
    return np.stack([np.cos(arguments), np.sin(arguments)], axis=-1).reshape(seq_len, d_model)


def softmax(x, axis=-1):
    exps = np.exp(x - x.max(axis, keepdims=True))
    norm = np.add.reduce(exps, axis=axis, keepdims=True)
    return np.divide(exps, norm)


def basic_self_attention(x):
    gram = np.matmul(x, np.transpose(x))
    return np.matmul(softmax(gram, -1), x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    Q, K, V = (np.matmul(x, M) for M in (W_q, W_k, W_v))
    factor = 1.0 / np.sqrt(Q.shape[-1]) if scale else 1.0
    return np.matmul(softmax(factor * np.matmul(Q, K.T), -1), V)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    size = W_q.shape[-1] // n_heads
    Q = np.split(np.matmul(x, W_q), n_heads, axis=-1)
    K = np.split(np.matmul(x, W_k), n_heads, axis=-1)
    V = np.split(np.matmul(x, W_v), n_heads, axis=-1)
    results = []
    for q, k, v in zip(Q, K, V):
        results.append(np.matmul(softmax(np.matmul(q, k.T) / np.sqrt(size), -1), v))
    return np.matmul(np.concatenate(results, axis=-1), W_o)
