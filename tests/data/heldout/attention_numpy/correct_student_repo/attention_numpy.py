import numpy as np


def _logsumexp(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    """softmax via log-softmax: exp(x - logsumexp(x)). Stable for huge inputs."""
    x = np.asarray(x, dtype=np.float64)
    return np.exp(x - _logsumexp(x, axis))


def basic_self_attention(x):
    w = softmax(np.einsum("id,jd->ij", x, x), axis=-1)
    return np.einsum("ij,jd->id", w, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = np.einsum("nd,dk->nk", x, W_q)
    k = np.einsum("nd,dk->nk", x, W_k)
    v = np.einsum("nd,dv->nv", x, W_v)
    s = np.einsum("ik,jk->ij", q, k)
    if scale:
        s = s / np.sqrt(q.shape[-1])
    return np.einsum("ij,jv->iv", softmax(s, axis=-1), v)


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(d_model // 2):
            denom = 10000 ** (2 * i / d_model)
            pe[pos, 2 * i] = np.sin(pos / denom)
            pe[pos, 2 * i + 1] = np.cos(pos / denom)
    return pe


def _split(t, n_heads):
    n, d_model = t.shape
    return t.reshape(n, n_heads, d_model // n_heads)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    n, d_model = x.shape
    d_k = d_model // n_heads
    q, k, v = (_split(x @ W, n_heads) for W in (W_q, W_k, W_v))   # (n, h, d_k)
    scores = np.einsum("nhd,mhd->hnm", q, k) / np.sqrt(d_k)
    weights = softmax(scores, axis=-1)
    heads = np.einsum("hnm,mhd->nhd", weights, v)                   # (n, h, d_k)
    return heads.reshape(n, d_model) @ W_o


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 12))
    Ws = [rng.normal(size=(12, 12)) for _ in range(4)]
    print("mha:", multi_head_attention(x, *Ws, 3).shape)
    print("pe[1]:", positional_encoding(3, 6)[1])
