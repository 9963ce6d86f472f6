# Source of the mistake: Alan-404/Transformer-Architecture, transformer/behaviors/positional_encoding.py
#   (encode_position: `pos_angles[0::2] = np.sin(pos_angles[0::2])`, `pos_angles[1::2] = np.cos(pos_angles[1::2])`).
# The rest: as correct_picogpt.py.
# Mistake kept: [0::2] on a (length, d_model) array picks every other ROW (position), so even
#   positions get sines and odd positions cosines in every column, instead of even and odd columns.
import numpy as np


def positional_encoding(seq_len, d_model):
    angles = np.arange(d_model)  # dim angles = (d_model, )
    angles[1::2] = angles[0::2]
    angles = 1 / (10000 ** (angles / d_model))
    angles = np.expand_dims(angles, axis=0)  # dim angles = (1, d_model)
    length = np.expand_dims(np.arange(seq_len), axis=1)  # dim length = (length, 1)
    pos_angles = np.dot(length, angles)  # dim pos_angles = (length, d_model)
    pos_angles[0::2] = np.sin(pos_angles[0::2])
    pos_angles[1::2] = np.cos(pos_angles[1::2])
    return pos_angles


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
