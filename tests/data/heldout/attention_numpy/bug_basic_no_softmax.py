import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x_max = np.max(x, axis=axis, keepdims=True)
    e_x = np.exp(x - x_max)
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def basic_self_attention(x):
    w = np.dot(x, x.T)          # raw weights
    return np.dot(w, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = np.dot(x, W_q)
    k = np.dot(x, W_k)
    v = np.dot(x, W_v)
    w = np.dot(q, k.T)
    if scale:
        w = w / np.sqrt(k.shape[-1])
    return np.dot(softmax(w, axis=-1), v)


def positional_encoding(seq_len, d_model):
    i = np.arange(d_model)
    even = i - (i % 2)                      # 2i for both columns of a pair
    angles = np.arange(seq_len)[:, None] / np.power(10000.0, even / d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = W_q.shape[0]
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        heads.append(qkv_attention(x, W_q[:, c], W_k[:, c], W_v[:, c]))
    return np.concatenate(heads, axis=1).dot(W_o)


if __name__ == "__main__":
    x = np.array([[1, 2, 1, 2], [3, 4, 3, 4]], dtype=float)
    print(basic_self_attention(x))
