# Source: Sebastian Raschka, "Understanding and Coding the Self-Attention Mechanism of Large
#   Language Models From Scratch" (sebastianraschka.com/blog/2023/self-attention-from-scratch.html:
#   omega = queries @ keys.T, attention_weights = softmax(omega / d_k**0.5), context = weights @ values;
#   multi-head with the projection matrices stacked per head, multihead_W_query = (h, d_q, d),
#   and torch.bmm over the heads).
# Adapted to NumPy: the stacked per-head matrices are the contract's W_q/W_k/W_v reshaped
#   to (d_model, n_heads, d_k) (column h*d_k + j is head h's column j), and torch.bmm is
#   np.einsum over the head axis; softmax is written out with the log-sum-exp shift; the
#   heads are concatenated and projected with W_o as the contract asks.
# From the reference (no counterpart): positional_encoding (here with np.outer), basic_self_attention.
# Mistake kept: none.
import numpy as np


def positional_encoding(seq_len, d_model):
    angles = np.outer(np.arange(seq_len), 1.0 / 10000 ** (np.arange(0, d_model, 2) / d_model))
    pe = np.empty((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - lse)


def basic_self_attention(x):
    omega = x @ x.T
    return softmax(omega, axis=-1) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    queries, keys, values = x @ W_q, x @ W_k, x @ W_v
    d_k = keys.shape[-1]
    omega = queries @ keys.T
    attention_weights = softmax(omega / d_k ** 0.5 if scale else omega, axis=-1)
    return attention_weights @ values


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = W_q.shape[1] // n_heads
    multihead_W_query = W_q.reshape(d_model, n_heads, d_k)
    multihead_W_key = W_k.reshape(d_model, n_heads, d_k)
    multihead_W_value = W_v.reshape(d_model, n_heads, d_k)
    queries = np.einsum("nd,dhk->hnk", x, multihead_W_query)  # (h, n, d_k)
    keys = np.einsum("nd,dhk->hnk", x, multihead_W_key)
    values = np.einsum("nd,dhk->hnk", x, multihead_W_value)
    omega = np.einsum("hqk,hsk->hqs", queries, keys)  # (h, n, n)
    attention_weights = softmax(omega / d_k ** 0.5, axis=-1)
    context = np.einsum("hqs,hsk->qhk", attention_weights, values)  # (n, h, d_k)
    return context.reshape(x.shape[0], n_heads * d_k) @ W_o
