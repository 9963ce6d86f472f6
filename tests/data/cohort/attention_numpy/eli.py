"""Eli's attention exercises: correct, with small helpers and explicit loops."""

import numpy as np


def _row_softmax(row):
    shifted = row - np.max(row)
    exponentials = np.exp(shifted)
    return exponentials / np.sum(exponentials)


def softmax(x, axis=-1):
    return np.apply_along_axis(_row_softmax, axis, x)


def _attend(queries, keys, values, divide_by):
    scores = queries @ keys.T / divide_by
    weights = np.vstack([_row_softmax(scores[row]) for row in range(scores.shape[0])])
    return weights @ values


def positional_encoding(seq_len, d_model):
    encoding = np.zeros((seq_len, d_model))
    for position in range(seq_len):
        for pair in range(d_model // 2):
            frequency = 1.0 / 10000 ** (2 * pair / d_model)
            encoding[position, 2 * pair] = np.sin(position * frequency)
            encoding[position, 2 * pair + 1] = np.cos(position * frequency)
    return encoding


def basic_self_attention(x):
    return _attend(x, x, x, 1.0)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    divisor = np.sqrt(W_k.shape[1]) if scale else 1.0
    return _attend(x @ W_q, x @ W_k, x @ W_v, divisor)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    head_width = W_q.shape[1] // n_heads
    outputs = []
    for head in range(n_heads):
        start, stop = head * head_width, (head + 1) * head_width
        outputs.append(qkv_attention(x, W_q[:, start:stop], W_k[:, start:stop], W_v[:, start:stop]))
    return np.concatenate(outputs, axis=1) @ W_o
