# Source of the mistake: the accepted answer of Stack Overflow question 34968722 "How to implement
#   the Softmax function in Python" (`e_x = np.exp(x - np.max(x)); return e_x / e_x.sum(axis=0) # only difference`),
#   written for one vector or for scores laid out in columns.
# The rest: as correct_mlm.py.
# Mistake kept: the softmax normalises along axis 0 (the columns of a matrix), whatever `axis` says.
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
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum(axis=0)  # only difference


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
