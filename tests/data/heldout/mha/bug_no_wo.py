"""Multi-head attention assignment.

Everything is written with torch.einsum so that the index bookkeeping is explicit:
    q = query position, k = key position, d = feature, h = head
"""
import math
import re
import string

import torch
from torch import nn
import matplotlib.pyplot as plt

_PUNCT = re.compile("[" + re.escape(string.punctuation) + "]")
_WS = re.compile(r"\S+")

SPECIALS = ("<pad>", "<unk>")


def tokenize(text):
    cleaned = _PUNCT.sub("", text.lower())
    return _WS.findall(cleaned)


def build_vocab(texts):
    vocab = set()
    for text in texts:
        vocab |= set(tokenize(text))
    itos = list(SPECIALS) + sorted(vocab)
    return {tok: i for i, tok in enumerate(itos)}


def encode(texts, stoi, max_length=None):
    pad, unk = stoi["<pad>"], stoi["<unk>"]
    ids = [[stoi.get(tok, unk) for tok in tokenize(t)] for t in texts]
    L = max_length if max_length is not None else max(map(len, ids), default=0)
    out = torch.full((len(ids), L), pad, dtype=torch.long)
    for row, seq in enumerate(ids):
        seq = seq[:L]
        out[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
    return out


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.lut = nn.Embedding(vocab_size, d_model)

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    """Table computed in float64 for accuracy, stored in the default dtype."""

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_length, dtype=torch.float64).unsqueeze(1)      # (L, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float64)               # (d/2,)
        angles = pos / (10000.0 ** (two_i / d_model))                          # (L, d/2)
        table = torch.empty(max_length, d_model, dtype=torch.float64)
        table[:, 0::2] = torch.sin(angles)
        table[:, 1::2] = torch.cos(angles)
        self.register_buffer("pe", table.unsqueeze(0).to(torch.get_default_dtype()))

    def forward(self, x):
        seq_len = x.shape[1]
        return self.dropout(x + self.pe[:, :seq_len, :])


def split_heads(x, n_heads):
    batch, seq, d_model = x.shape
    d_key = d_model // n_heads
    return x.reshape(batch, seq, n_heads, d_key).transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.shape
    return x.transpose(1, 2).reshape(batch, seq, n_heads * d_key)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", query, key) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    attn_probs = torch.softmax(scores, dim=-1)
    weights = dropout(attn_probs) if dropout is not None else attn_probs
    output = torch.einsum("...qk,...kd->...qd", weights, value)
    return output, attn_probs


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.d_model = d_model
        self.n_heads = n_heads
        # output projection first, then the input projections
        self.Wo = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wq = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.Wq(query), self.n_heads)
        k = split_heads(self.Wk(key), self.n_heads)
        v = split_heads(self.Wv(value), self.n_heads)
        heads, attn_probs = scaled_dot_product_attention(q, k, v, mask=mask, dropout=self.dropout)
        output = combine_heads(heads)
        return output, attn_probs


def make_padding_mask(token_ids, pad_id=0):
    return token_ids.ne(pad_id).unsqueeze(1).unsqueeze(2)


def make_causal_mask(size):
    return torch.ones(size, size).tril().bool().view(1, 1, size, size)


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu()
    if attention.ndim == 4:
        attention = attention[0]
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(3 * n_cols, 3 * n_rows), squeeze=False)
    axes = axes.flatten()
    for h in range(n_heads):
        ax = axes[h]
        ax.imshow(attention[h].numpy(), cmap="viridis")
        ax.set_xticks(range(len(sentence)))
        ax.set_xticklabels(sentence, rotation=90)
        ax.set_yticks(range(len(translation)))
        ax.set_yticklabels(translation)
        ax.set_title(f"head {h}")
    for ax in axes[n_heads:]:
        fig.delaxes(ax)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    sentences = ["I wonder what will come next!", "Hello, what is a basic split?"]
    stoi = build_vocab(sentences)
    ids = encode(sentences, stoi)
    emb = Embeddings(len(stoi), 16)
    pos = PositionalEncoding(16, max_length=20)
    x = pos(emb(ids))
    mha = MultiHeadAttention(16, 4)
    out, probs = mha(x, x, x, make_padding_mask(ids))
    print(out.shape, probs.shape)
    display_attention(tokenize(sentences[0]), tokenize(sentences[0]), probs[0], 4, 2, 2).savefig("heads.png")
