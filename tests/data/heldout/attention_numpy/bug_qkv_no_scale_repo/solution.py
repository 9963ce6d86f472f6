import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    z = x - np.max(x, axis=axis, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=axis, keepdims=True)


def attention(q, k, v):
    """Scaled dot-product attention: softmax(q k^T) v"""
    weights = softmax(q @ k.T, axis=-1)
    return weights @ v


def basic_self_attention(x):
    return attention(x, x, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    return attention(x @ W_q, x @ W_k, x @ W_v)


def positional_encoding(seq_len, d_model):
    table = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for col in range(d_model):
            if col % 2 == 0:
                table[pos, col] = np.sin(pos / 10000 ** (col / d_model))
            else:
                table[pos, col] = np.cos(pos / 10000 ** ((col - 1) / d_model))
    return table


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    d_k = W_q.shape[1] // n_heads
    outputs = []
    for h in range(n_heads):
        sl = slice(h * d_k, (h + 1) * d_k)
        outputs.append(attention(x @ W_q[:, sl], x @ W_k[:, sl], x @ W_v[:, sl]))
    return np.concatenate(outputs, axis=-1) @ W_o


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 8))
    print(basic_self_attention(x))
