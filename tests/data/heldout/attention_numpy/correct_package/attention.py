import numpy as np

from .core import softmax, attend


def basic_self_attention(x):
    return np.matmul(softmax(np.matmul(x, x.T), axis=-1), x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    return attend(np.matmul(x, W_q), np.matmul(x, W_k), np.matmul(x, W_v), scale=scale)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = W_q.shape[1] // n_heads
    heads = [
        qkv_attention(x,
                      W_q[:, h * d_k:(h + 1) * d_k],
                      W_k[:, h * d_k:(h + 1) * d_k],
                      W_v[:, h * d_k:(h + 1) * d_k])
        for h in range(n_heads)
    ]
    return np.hstack(heads) @ W_o
