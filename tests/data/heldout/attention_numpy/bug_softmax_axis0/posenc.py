import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            a = pos / (10000 ** (i / d_model))
            pe[pos, i], pe[pos, i + 1] = np.sin(a), np.cos(a)
    return pe
