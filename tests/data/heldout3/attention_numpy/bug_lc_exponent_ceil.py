# Source: RasKrebs/llms4code_code_quality, multihead-attention/gpt-4-turbo/medium.py (softmax,
#   scaled_dot_product_attention, MultiHeadAttention.split_into_heads and forward).
# Adapted: names and signatures of the contract; the class's random weights become the W_q, W_k,
#   W_v, W_o given; split_into_heads works on one sequence (n, d_model) -> (n_heads, n, depth) with
#   np.transpose(x, axes=(1, 0, 2)) (the source passes TensorFlow's `perm=`, which NumPy refuses);
#   the heads' scores use np.matmul with the last two axes swapped (the source's np.dot(query, key.T)
#   works on 2-D arrays only); softmax's axis defaults to -1 (the source's None sums over the whole
#   array) and qkv_attention gets the `scale` flag.
# From the reference (no counterpart in the source): basic_self_attention, positional_encoding.
# Mistake kept: the exponent 2 * ceil(column / 2) / d (a slip of the family: ceil(k/2)); one edit of correct_llms4code.py.
import numpy as np


def softmax(x, axis=-1):
    """Compute softmax values for each sets of scores in x."""
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / e_x.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(query, key, value, scale=True):
    """
    Calculate the attention weights.
    query, key, value must have matching leading dimensions.
    """
    matmul_qk = np.matmul(query, np.swapaxes(key, -1, -2))  # matrix multiplication for the queries and keys
    depth = query.shape[-1]
    logits = matmul_qk / np.sqrt(depth) if scale else matmul_qk
    attention_weights = softmax(logits, axis=-1)
    output = np.matmul(attention_weights, value)
    return output, attention_weights


def basic_self_attention(x):
    weights = softmax(x @ x.T, axis=-1)
    return weights @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    output, _ = scaled_dot_product_attention(np.dot(x, W_q), np.dot(x, W_k), np.dot(x, W_v), scale=scale)
    return output


def split_into_heads(x, num_heads):
    """
    Split the last dimension into (num_heads, depth).
    Transpose the result such that the shape is (num_heads, seq_len, depth)
    """
    depth = x.shape[-1] // num_heads
    x = x.reshape(x.shape[0], num_heads, depth)
    return np.transpose(x, axes=(1, 0, 2))


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    # Linear projections
    q = split_into_heads(np.dot(x, W_q), n_heads)  # (num_heads, seq_len_q, depth)
    k = split_into_heads(np.dot(x, W_k), n_heads)  # (num_heads, seq_len_k, depth)
    v = split_into_heads(np.dot(x, W_v), n_heads)  # (num_heads, seq_len_v, depth)

    scaled_attention, _ = scaled_dot_product_attention(q, k, v)
    scaled_attention = np.transpose(scaled_attention, axes=(1, 0, 2))  # (seq_len_q, num_heads, depth)
    concat_attention = scaled_attention.reshape(x.shape[0], -1)  # (seq_len_q, embedding_size)
    return np.dot(concat_attention, W_o)


def positional_encoding(seq_len, d_model):
    angles = np.arange(seq_len)[:, None] / np.power(10000, (2 * np.ceil(np.arange(d_model)[None, :] / 2)) / d_model)
    angles[:, 0::2] = np.sin(angles[:, 0::2])
    angles[:, 1::2] = np.cos(angles[:, 1::2])
    return angles
