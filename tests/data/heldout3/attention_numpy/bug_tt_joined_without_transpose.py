# Source: PTSown0222/TensorTonic-Solutions (transformers-multi-head-attention, transformers-attention,
#   transformers-positional-encoding).
# Adapted: names and signatures of the contract; the batched multi-head attention takes one sequence
#   x (n, d_model) and projects it with W_q, W_k, W_v (the source takes Q, K, V separately, with a
#   batch axis): heads by reshape (n, n_heads, d_k) and transpose (1, 0, 2), joined back the same way
#   and multiplied by W_o; the PyTorch scaled_dot_product_attention becomes qkv_attention in NumPy with
#   its `scale` flag; basic_self_attention is the same attention with x as queries, keys and values,
#   unscaled.
# From the reference (no counterpart in the source): nothing.
# Mistake kept: heads joined without the transpose (a slip of the family: batched heads without the transpose); one edit of correct_tensortonic.py.
import numpy as np


def softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def basic_self_attention(x):
    score = x @ x.T
    attn_prob = softmax(score, axis=-1)
    return attn_prob @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    Q, K, V = x @ W_q, x @ W_k, x @ W_v
    d_k = K.shape[-1]
    score = Q @ K.T
    attn_score = score / np.sqrt(d_k) if scale else score
    attn_prob = softmax(attn_score, axis=-1)
    output = attn_prob @ V
    return output


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    seq_len, d_model = x.shape
    d_k = d_model // n_heads

    Q_proj = x @ W_q  # Shape: (seq_len, d_model)
    K_proj = x @ W_k
    V_proj = x @ W_v

    Q_split = Q_proj.reshape(seq_len, n_heads, d_k).transpose(1, 0, 2)
    K_split = K_proj.reshape(seq_len, n_heads, d_k).transpose(1, 0, 2)
    V_split = V_proj.reshape(seq_len, n_heads, d_k).transpose(1, 0, 2)

    K_transposed = K_split.transpose(0, 2, 1)  # Shape: (n_heads, d_k, seq_len)
    attn_score = (Q_split @ K_transposed) / np.sqrt(d_k)
    attn_prob = softmax(attn_score)
    context = attn_prob @ V_split
    context_concat = context.reshape(seq_len, d_model)
    output = context_concat @ W_o
    return output


def positional_encoding(seq_len, d_model):
    pos_indices = np.arange(seq_len).reshape(-1, 1)  # (seq_length,1)
    pe = np.zeros((seq_len, d_model))

    div_term = np.power(10000, np.arange(0, d_model, 2) / d_model)

    pe[:, 0::2] = np.sin(pos_indices / div_term)
    pe[:, 1::2] = np.cos(pos_indices / div_term)

    return pe
