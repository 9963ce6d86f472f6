"""Ben's attention exercises: the positional encoding's base is 1000, through exp and log."""

import numpy as np


def softmax(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    shifted = moved - np.max(moved, axis=-1, keepdims=True)
    weights = np.exp(shifted)
    weights = weights / weights.sum(-1, keepdims=True)
    return np.moveaxis(weights, -1, axis)


def positional_encoding(seq_len, d_model):
    div_term = np.exp(-np.arange(0, d_model, 2) * np.log(1000.0) / d_model)
    angles = np.outer(np.arange(seq_len), div_term)
    out = np.empty((seq_len, d_model))
    out[:, ::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
    return out


def basic_self_attention(x):
    scores = np.dot(x, x.T)
    return np.dot(softmax(scores, axis=1), x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    queries, keys, values = np.dot(x, W_q), np.dot(x, W_k), np.dot(x, W_v)
    logits = np.dot(queries, keys.T) / (np.sqrt(keys.shape[-1]) if scale else 1.0)
    return np.dot(softmax(logits, axis=1), values)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    n, d_model = x.shape
    d_k = d_model // n_heads

    def heads(W):
        return (x @ W).reshape(n, n_heads, d_k).transpose(1, 0, 2)  # (heads, n, d_k)

    q, k, v = heads(W_q), heads(W_k), heads(W_v)
    att = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(d_k), axis=-1)  # (heads, n, n)
    mixed = (att @ v).transpose(1, 0, 2).reshape(n, d_model)
    return mixed @ W_o
