# Source of the mistake: karpathy's "Let's build GPT" lecture, Head.forward as recorded
#   (`wei = q @ k.transpose(-2,-1) * C**-0.5` with C = n_embd, later fixed to head_size in
#   karpathy/ng-video-lecture gpt.py); the same sqrt(embed_size) scale is in
#   aladdinpersson/Machine-Learning-Collection transformer_from_scratch.py.
# The rest: as correct_cs231n_loops.py.
# Mistake kept: each head divides its scores by sqrt(d_model) instead of sqrt(d_k).
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
        q, k, v = x @ W_q[:, cols], x @ W_k[:, cols], x @ W_v[:, cols]
        wei = q @ k.T * x.shape[-1] ** -0.5
        concat[:, cols] = softmax(wei, axis=-1) @ v
    return concat @ W_o
