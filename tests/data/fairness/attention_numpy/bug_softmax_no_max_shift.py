# Source of the mistake: Fangzhou-Code/Learn_AI, 第四阶段：大模型/self_attention.py
#   (soft_max: `t = np.exp(z); a = np.exp(z) / np.expand_dims(np.sum(t, axis=1), 1)`), also in
#   Geneww/llm_tools self_attention.py.
# The rest: as correct_mlm.py; the file's axis=1 is the contract's `axis`.
# Mistake kept: nothing is subtracted before np.exp, so scores of about 1000 overflow to inf
#   and the weights become nan.
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
    t = np.exp(x)
    a = np.exp(x) / np.expand_dims(np.sum(t, axis=axis), axis)
    return a


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
