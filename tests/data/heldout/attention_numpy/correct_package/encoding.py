import numpy as np


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len, dtype=np.float64)
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, d_model, 2, dtype=np.float64) / d_model))
    angles = np.outer(pos, inv_freq)            # (seq_len, d_model // 2)
    pe = np.zeros((seq_len, d_model))
    pe[:, ::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
