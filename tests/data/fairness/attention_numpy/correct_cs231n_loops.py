# Source: CS231n course notes, "Linear classification", Practical issues: numeric stability
#   (cs231n.github.io/linear-classify/: `f -= np.max(f)` before exponentiating, then
#   `p = np.exp(f) / np.sum(np.exp(f))`), applied one slice at a time, and the per-position
#   loop of the "Transformer model for language understanding" TF 2.0 blog code
#   (PE[:, i] = sin(pos / 10000 ** (i / model_size)) for even i and
#   cos(pos / 10000 ** ((i - 1) / model_size)) for odd i).
# Adapted: the notes' softmax is for one score vector; here it is applied to every slice
#   along `axis` with np.apply_along_axis, so each slice has its own max; attention and
#   heads are written with explicit loops over rows and heads.
# From the reference (no counterpart): the attention functions' order of operations.
# Mistake kept: none.
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
