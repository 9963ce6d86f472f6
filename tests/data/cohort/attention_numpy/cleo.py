"""Cleo's attention exercises: cosines in the even columns, sines in the odd ones, with loops."""

import math

import numpy as np


def positional_encoding(seq_len, d_model):
    table = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            theta = pos / (10000 ** (i / d_model))
            table[pos, i] = math.cos(theta)
            table[pos, i + 1] = math.sin(theta)
    return table


def softmax(x, axis=-1):
    top = np.amax(x, axis=axis, keepdims=True)
    log_total = top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))
    return np.exp(x - log_total)


def basic_self_attention(x):
    affinity = softmax(np.einsum("id,jd->ij", x, x))
    return np.einsum("ij,jd->id", affinity, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    query = np.einsum("nd,dk->nk", x, W_q)
    key = np.einsum("nd,dk->nk", x, W_k)
    value = np.einsum("nd,dv->nv", x, W_v)
    energy = np.einsum("nk,mk->nm", query, key)
    if scale:
        energy = energy / math.sqrt(W_k.shape[1])
    return np.einsum("nm,mv->nv", softmax(energy), value)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    width = W_q.shape[1] // n_heads
    pieces = [qkv_attention(x, *(W[:, j * width : (j + 1) * width] for W in (W_q, W_k, W_v))) for j in range(n_heads)]
    return np.concatenate(pieces, axis=1) @ W_o
