# Sources: machinelearningmastery.com, "The Attention Mechanism from Scratch"
#   (`scores = Q @ K.transpose()`, `weights = softmax(scores / K.shape[1] ** 0.5, axis=1)`,
#   `attention = weights @ V`) and "A Gentle Introduction to Positional Encoding in
#   Transformer Models, Part 1" (getPositionEncoding: loops over k and i in
#   np.arange(int(d/2)), denominator = np.power(n, 2*i/d), P[k, 2*i] = sin, P[k, 2*i+1] = cos).
# Adapted: scipy.special.softmax is not in the course environment, so softmax is written
#   out (stable, along `axis`); the scale switch and the head loop are the contract's; n is
#   10000.
# From the reference (no counterpart): basic_self_attention, multi_head_attention's column slices.
# Mistake kept: none.
import numpy as np


def positional_encoding(seq_len, d_model, n=10000):
    d = d_model
    P = np.zeros((seq_len, d))
    for k in range(seq_len):
        for i in np.arange(int(d / 2)):
            denominator = np.power(n, 2 * i / d)
            P[k, 2 * i] = np.sin(k / denominator)
            P[k, 2 * i + 1] = np.cos(k / denominator)
    return P


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def basic_self_attention(x):
    scores = x @ x.transpose()
    weights = softmax(scores, axis=1)
    return weights @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    # generating the queries, keys and values
    Q = x @ W_q
    K = x @ W_k
    V = x @ W_v
    # scoring the query vectors against all key vectors
    scores = Q @ K.transpose()
    # computing the weights by a softmax operation
    weights = softmax(scores / K.shape[1] ** 0.5 if scale else scores, axis=1)
    # computing the attention by a weighted sum of the value vectors
    return weights @ V


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = W_q.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(qkv_attention(x, W_q[:, cols], W_k[:, cols], W_v[:, cols]))
    return np.concatenate(heads, axis=1) @ W_o
