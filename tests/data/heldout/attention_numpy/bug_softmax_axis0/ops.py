import numpy as np


def softmax(x, axis=-1):
    # normalise each column
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def basic_self_attention(x):
    return softmax(x @ x.T) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = x @ W_q
    k = x @ W_k
    v = x @ W_v
    scores = q @ k.T
    if scale:
        scores = scores / np.sqrt(W_k.shape[-1])
    return softmax(scores) @ v


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    out = []
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        out.append(qkv_attention(x, W_q[:, lo:hi], W_k[:, lo:hi], W_v[:, lo:hi]))
    return np.concatenate(out, axis=1) @ W_o
