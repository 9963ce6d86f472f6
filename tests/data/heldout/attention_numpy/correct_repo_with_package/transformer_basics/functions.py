import numpy as np

D_BASE = 10000.0


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x_max = np.amax(x, axis=axis, keepdims=True)
    unnorm = np.exp(x - x_max)
    return unnorm / unnorm.sum(axis=axis, keepdims=True)


def basic_self_attention(x):
    return softmax(np.matmul(x, x.T)) @ x


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    Q, K, V = x @ W_q, x @ W_k, x @ W_v
    d_k = Q.shape[-1]
    logits = Q @ K.T / (np.sqrt(d_k) if scale else 1.0)
    return softmax(logits) @ V


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    i2 = np.arange(0, d_model, 2)
    for pos in range(seq_len):
        pe[pos, i2] = np.sin(pos / D_BASE ** (i2 / d_model))
        pe[pos, i2 + 1] = np.cos(pos / D_BASE ** (i2 / d_model))
    return pe


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    # view each weight matrix as (d_model, n_heads, d_k): column h*d_k + j -> [:, h, j]
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    Wq = W_q.reshape(d_model, n_heads, d_k)
    Wk = W_k.reshape(d_model, n_heads, d_k)
    Wv = W_v.reshape(d_model, n_heads, d_k)
    outs = [qkv_attention(x, Wq[:, h, :], Wk[:, h, :], Wv[:, h, :]) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ W_o
