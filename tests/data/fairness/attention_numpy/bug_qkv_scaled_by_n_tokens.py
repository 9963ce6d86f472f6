# Source of the mistake: a picoGPT-derived NumPy GPT found by code search
#   (`def attention(q, k, v): sc = np.dot(q, k.T); sc /= np.sqrt(len(k)); weights = softmax(sc)`;
#   the repository was not identified, only the excerpt).
# The rest: as correct_picogpt.py.
# Mistake kept: len(k) is the number of keys (tokens), not their width: the scores are
#   divided by sqrt(n) instead of sqrt(d_k).
import numpy as np


def positional_encoding(seq_len, d_model):
    positions = np.arange(seq_len)[:, np.newaxis]  # (seq, 1)
    div_term = np.exp(np.arange(0, d_model, 2) * (-np.log(10000.0) / d_model))
    pe = np.zeros((seq_len, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(positions * div_term)
    pe[:, 1::2] = np.cos(positions * div_term)
    return pe


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(q, k, v, scale=True):  # [n_q, d_k], [n_k, d_k], [n_k, d_v] -> [n_q, d_v]
    sc = np.dot(q, k.T)
    if scale:
        sc /= np.sqrt(len(k))
    weights = softmax(sc)
    return np.dot(weights, v)


def basic_self_attention(x):
    return attention(x, x, x, scale=False)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    return attention(x @ W_q, x @ W_k, x @ W_v, scale=scale)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):  # [n_seq, n_embd] -> [n_seq, n_embd]
    # qkv projection
    qkv = [x @ W_q, x @ W_k, x @ W_v]  # [3, n_seq, n_embd]

    # split into heads
    qkv_heads = list(map(lambda x: np.split(x, n_heads, axis=-1), qkv))  # [3, n_seq, n_embd] -> [3, n_head, n_seq, n_embd/n_head]

    # perform attention over each head
    out_heads = [attention(q, k, v) for q, k, v in zip(*qkv_heads)]  # [3, n_head, n_seq, n_embd/n_head] -> [n_head, n_seq, n_embd/n_head]

    # merge heads
    x = np.hstack(out_heads)  # [n_head, n_seq, n_embd/n_head] -> [n_seq, n_embd]

    # out projection
    return x @ W_o  # [n_seq, n_embd] -> [n_seq, n_embd]
