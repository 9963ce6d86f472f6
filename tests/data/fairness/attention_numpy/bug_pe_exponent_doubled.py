# Source of the mistake: a public positional-encoding tutorial (generate a position encoding matrix, with
#   Chinese comments; found by the kit's code search, its repository not named by the index):
#   `for i in range(0, d_model, 2): denominator = np.power(10000, (2 * i) / d_model)`, the same
#   denominator for columns i and i + 1.
# The rest: as correct_cs231n_loops.py.
# Mistake kept: i already steps by 2, so 2 * i / d_model doubles the exponent (10000^(4k/d_model) for pair k).
import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))

    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            # 计算位置编码
            denominator = np.power(10000, (2 * i) / d_model)
            pe[pos, i] = np.sin(pos / denominator)

            if i + 1 < d_model:
                pe[pos, i + 1] = np.cos(pos / denominator)

    return pe


def _softmax_vector(f):
    f = f - np.max(f)  # f becomes [-666, -333, 0]
    return np.exp(f) / np.sum(np.exp(f))  # safe to do, gives the correct answer


def softmax(x, axis=-1):
    return np.apply_along_axis(_softmax_vector, axis, np.asarray(x, dtype=float))


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
