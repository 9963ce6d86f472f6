"""Transformer building blocks: attention.

Heads are handled with chunk/stack and cat/unbind instead of reshapes.
"""
import math
import re
import string

import torch
import torch.nn as nn
import matplotlib.pyplot as plt

_punct_re = re.compile("[%s]" % re.escape(string.punctuation))


def tokenize(text):
    """'Hello, World!' -> ['hello', 'world']"""
    text = _punct_re.sub("", text.lower())
    return [tok for tok in re.split(r"\s+", text) if tok]


def build_vocab(texts):
    tokens = set()
    for t in texts:
        tokens.update(tokenize(t))
    stoi = {"<pad>": 0, "<unk>": 1}
    for tok in sorted(tokens):
        stoi[tok] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    unk_id, pad_id = stoi["<unk>"], stoi["<pad>"]
    rows = [[stoi.get(tok, unk_id) for tok in tokenize(text)] for text in texts]
    if max_length is not None:
        rows = [r[:max_length] for r in rows]
        width = max_length
    else:
        width = max([len(r) for r in rows] or [0])
    rows = [r + [pad_id] * (width - len(r)) for r in rows]
    return torch.as_tensor(rows, dtype=torch.long).reshape(len(rows), width)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.scale = d_model ** 0.5

    def forward(self, x):
        return self.scale * self.lut(x)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_length, dtype=torch.float32)
        inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
        angles = torch.outer(position, inv_freq)                       # (max_length, d_model/2)
        # interleave: sin for even features, cos for odd features
        table = torch.stack((angles.sin(), angles.cos()), dim=-1).flatten(-2)
        self.register_buffer("pe", table.unsqueeze(0))

    def forward(self, x):
        n = x.size(1)
        return self.dropout(x + self.pe[:, :n])


def split_heads(x, n_heads):
    # cut the feature axis into n_heads consecutive chunks and stack them on a new head axis
    return torch.stack(x.chunk(n_heads, dim=-1), dim=1)


def combine_heads(x):
    # concatenate the heads back along the feature axis
    return torch.cat(x.unbind(dim=1), dim=-1)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = (query @ key.transpose(-2, -1)) * d_k ** -0.5
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    attn_probs = torch.softmax(scores, dim=-1)
    p = dropout(attn_probs) if dropout is not None else attn_probs
    return p @ value, attn_probs


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{n_heads} heads do not divide d_model={d_model}")
        self.n_heads = n_heads
        for name in ("Wq", "Wk", "Wv", "Wo"):
            setattr(self, name, nn.Linear(d_model, d_model, bias=True))
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.Wq(query), self.n_heads)
        k = split_heads(self.Wk(key), self.n_heads)
        v = split_heads(self.Wv(value), self.n_heads)
        context, attn_probs = scaled_dot_product_attention(q, k, v, mask, self.dropout)
        return self.Wo(combine_heads(context)), attn_probs


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.triu(torch.ones(size, size, dtype=torch.bool))[None, None]


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().to("cpu")
    while attention.dim() > 3:
        attention = attention[0]
    fig = plt.figure(figsize=(3 * n_cols, 3 * n_rows))
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        ax.imshow(attention[head].numpy(), cmap="Blues", aspect="auto")
        ax.set_xticks(list(range(len(sentence))))
        ax.set_xticklabels(sentence, rotation=45, ha="right")
        ax.set_yticks(list(range(len(translation))))
        ax.set_yticklabels(translation)
    fig.tight_layout()
    return fig
