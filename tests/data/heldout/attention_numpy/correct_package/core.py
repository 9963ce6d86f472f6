import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    z = x - x.max(axis=axis, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=axis, keepdims=True)
    return z


def attend(q, k, v, scale=True):
    s = np.matmul(q, k.T)
    if scale:
        s = s * (1.0 / np.sqrt(q.shape[1]))
    return np.matmul(softmax(s), v)
