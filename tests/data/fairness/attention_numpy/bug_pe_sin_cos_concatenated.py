# Source of the mistake: tensorflow/text, docs/tutorials/transformer.ipynb (2023 version,
#   positional_encoding(length, depth) with np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1));
#   also abdallah1097/TrOCR_Project Deep_Learning_App/src/utils/positional_encoding.py.
# The rest: as correct_picogpt.py.
# Mistake kept: all sines first, then all cosines, instead of sine/cosine interleaved by column.
import numpy as np


def positional_encoding(seq_len, d_model):
    depth = d_model / 2

    positions = np.arange(seq_len)[:, np.newaxis]  # (seq, 1)
    depths = np.arange(depth)[np.newaxis, :] / depth  # (1, depth)

    angle_rates = 1 / (10000**depths)  # (1, depth)
    angle_rads = positions * angle_rates  # (pos, depth)

    pos_encoding = np.concatenate(
        [np.sin(angle_rads), np.cos(angle_rads)],
        axis=-1)

    return pos_encoding


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
