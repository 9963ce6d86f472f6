# Source of the mistake: nituchao/nituchao-deeplearning, pytorch/transformer_explain/positional_embedding.py
#   (`[pos / np.power(10000, 2 * i / d_model) for i in range(d_model)]`; that file also zeroes
#   position 0, kept apart in bug_pe_first_position_zero.py).
# The rest: as correct_picogpt.py.
# Mistake kept: the exponent uses the column index, 2*i/d_model for column i, so the two
#   columns of a pair get different frequencies and all frequencies are doubled.
import numpy as np


def positional_encoding(seq_len, d_model):
    pos_table = np.array([
        [pos / np.power(10000, 2 * i / d_model) for i in range(d_model)]
        for pos in range(seq_len)])
    pos_table[:, 0::2] = np.sin(pos_table[:, 0::2])  # even columns
    pos_table[:, 1::2] = np.cos(pos_table[:, 1::2])  # odd columns
    return pos_table


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(q, k, v, scale=True):  # [n_q, d_k], [n_k, d_k], [n_k, d_v] -> [n_q, d_v]
    return softmax(q @ k.T / (np.sqrt(q.shape[-1]) if scale else 1.0)) @ v


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
