import matplotlib.pyplot as plt
import numpy as np


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    weights = np.asarray(attention.detach().cpu())
    weights = weights.reshape(-1, weights.shape[-2], weights.shape[-1])  # drop a batch dim of 1
    fig = plt.figure(figsize=(15, 20))
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        ax.matshow(weights[head], cmap="bone")
        ax.set_xticks(range(len(sentence)))
        ax.set_yticks(range(len(translation)))
        ax.set_xticklabels(sentence, rotation=90)
        ax.set_yticklabels(translation)
    return fig
