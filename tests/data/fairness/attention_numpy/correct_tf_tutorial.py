# Source: tensorflow/docs, site/en/tutorials/text/transformer.ipynb (2020-2022 version:
#   get_angles with 2 * (i//2) / np.float32(d_model), positional_encoding that writes sin
#   into angle_rads[:, 0::2] and cos into angle_rads[:, 1::2], scaled_dot_product_attention
#   with matmul_qk / sqrt(dk) and softmax on the last axis, MultiHeadAttention.split_heads
#   as reshape + transpose(perm=[0, 2, 1, 3])).
# Adapted to NumPy: tf.matmul(q, k, transpose_b=True) -> q @ np.swapaxes(k, -1, -2);
#   tf.nn.softmax -> a stable softmax along `axis`; no batch axis and no mask (the contract
#   has neither); Dense layers -> the given matrices; the heads are split with reshape +
#   transpose to (n_heads, n, depth) and attended at once.
# From the reference (no counterpart): basic_self_attention.
# Mistake kept: none.
import numpy as np


def get_angles(pos, i, d_model):
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
    return pos * angle_rates


def positional_encoding(seq_len, d_model):
    angle_rads = get_angles(np.arange(seq_len)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model)
    # apply sin to even indices in the array; 2i
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    # apply cos to odd indices in the array; 2i+1
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def scaled_dot_product_attention(q, k, v, scale=True):
    matmul_qk = q @ np.swapaxes(k, -1, -2)  # (..., seq_len_q, seq_len_k)
    # scale matmul_qk
    dk = np.float64(k.shape[-1])
    scaled_attention_logits = matmul_qk / np.sqrt(dk) if scale else matmul_qk
    # softmax is normalized on the last axis (seq_len_k) so that the scores add up to 1.
    attention_weights = softmax(scaled_attention_logits, axis=-1)  # (..., seq_len_q, seq_len_k)
    return attention_weights @ v  # (..., seq_len_q, depth_v)


def basic_self_attention(x):
    weights = softmax(x @ x.T, axis=-1)
    return weights @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    return scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, scale=scale)


def split_heads(x, num_heads):
    """Split the last dimension into (num_heads, depth) and transpose to (num_heads, seq_len, depth)."""
    x = x.reshape(x.shape[0], num_heads, -1)
    return np.transpose(x, (1, 0, 2))


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    q = split_heads(x @ W_q, n_heads)  # (num_heads, seq_len_q, depth)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    scaled_attention = scaled_dot_product_attention(q, k, v)  # (num_heads, seq_len_q, depth)
    scaled_attention = np.transpose(scaled_attention, (1, 0, 2))  # (seq_len_q, num_heads, depth)
    concat_attention = scaled_attention.reshape(x.shape[0], -1)  # (seq_len_q, d_model)
    return concat_attention @ W_o
