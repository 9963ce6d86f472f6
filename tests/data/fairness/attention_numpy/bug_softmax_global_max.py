# Source of the mistake: CS231n notes, "Linear classification", numeric stability (`f -= np.max(f)`,
#   written for one score vector) applied to a whole matrix at once.
# The rest: as correct_cs231n_loops.py (whose attention loops use the per-vector softmax).
# Mistake kept: the largest entry of the WHOLE array is subtracted, not each slice's own;
#   a slice whose entries are all far below the global max underflows to 0 / 0 = nan.
import numpy as np


def positional_encoding(seq_len, d_model):
    pes = []
    for pos in range(seq_len):
        PE = np.zeros((1, d_model))
        for i in range(d_model):
            if i % 2 == 0:
                PE[:, i] = np.sin(pos / 10000 ** (i / d_model))
            else:
                PE[:, i] = np.cos(pos / 10000 ** ((i - 1) / d_model))
        pes.append(PE)
    return np.concatenate(pes, axis=0)


def _softmax_vector(f):
    f = f - np.max(f)  # f becomes [-666, -333, 0]
    return np.exp(f) / np.sum(np.exp(f))  # safe to do, gives the correct answer


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x = x - np.max(x)  # the notes' shift, on the whole array
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def _attend(q, k, v, scale):
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        scores = np.array([q[i] @ k[j] for j in range(k.shape[0])])
        if scale:
            scores = scores / np.sqrt(k.shape[1])
        out[i] = _softmax_vector(scores) @ v
    return out


def basic_self_attention(x):
    return _attend(x, x, x, scale=False)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    return _attend(x @ W_q, x @ W_k, x @ W_v, scale)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = W_q.shape[1] // n_heads
    concat = np.zeros((x.shape[0], n_heads * d_k))
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        concat[:, cols] = qkv_attention(x, W_q[:, cols], W_k[:, cols], W_v[:, cols])
    return concat @ W_o
