# Source: pbloem/former, former/modules.py (SelfAttention: tokeys/toqueries/tovalues,
#   heads folded into the batch with `transpose(1, 2).contiguous().view(b * h, t, s)`,
#   queries and keys each divided by s ** (1/4) "instead of dividing the dot products by
#   sqrt(e)", torch.bmm, F.softmax(dot, dim=2) on the 3-D (b*h, t, t) tensor,
#   `out.transpose(1, 2).contiguous().view(b, t, s * h)`, unifyheads) and former/util
#   mask_ (masking with float('-inf')).
# Adapted: tokeys/toqueries/tovalues/unifyheads become Wk/Wq/Wv/Wo with bias (the file uses
#   bias=False for the projections); keys and values may be longer than the queries; the
#   contract's mask replaces mask_'s causal-only triu_indices; the free attention
#   function folds every leading axis into the batch so that its softmax(dim=2) stays on
#   the keys; the weights are unfolded before the dropout (former has no attention dropout)
#   and returned; the constructor's `assert emb % heads == 0` stays.
# From the reference (no counterpart in former): tokenize, build_vocab, encode,
#   Embeddings' scale, PositionalEncoding, make_padding_mask, make_causal_mask,
#   display_attention.
# Mistake kept: none.
import math
import string

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from torch import nn


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    words = sorted({token for text in texts for token in tokenize(text)})
    stoi = {"<pad>": 0, "<unk>": 1}
    for word in words:
        stoi[word] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    ids = [[stoi.get(token, stoi["<unk>"]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi["<pad>"]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)  # token_embedding
        self.emb = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.emb)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_length, dtype=torch.float64).unsqueeze(1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
        angle = position / 10000 ** (two_i / d_model)
        pe = torch.zeros(max_length, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle)
        self.register_buffer("pe", pe.unsqueeze(0).float())

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


def split_heads(x, h):
    b, t, e = x.size()
    s = e // h
    return x.view(b, t, h, s).transpose(1, 2)


def combine_heads(out):
    b, h, t, s = out.size()
    # swap h, t back, unify heads
    return out.transpose(1, 2).contiguous().view(b, t, s * h)


def scaled_dot_product_attention(queries, keys, values, mask=None, dropout=None):
    lead, t, s = queries.shape[:-2], queries.size(-2), queries.size(-1)
    tk = keys.size(-2)
    # fold heads into the batch dimension
    keys = keys.reshape(-1, tk, s)
    queries = queries.reshape(-1, t, s)
    values = values.reshape(-1, tk, values.size(-1))

    # Instead of dividing the dot products by sqrt(s), we scale the keys and values.
    # This should be more memory efficient
    queries = queries / (s ** (1 / 4))
    keys = keys / (s ** (1 / 4))

    # get dot product of queries and keys, and scale
    dot = torch.bmm(queries, keys.transpose(1, 2))
    assert dot.size() == (queries.size(0), t, tk)

    if mask is not None:  # mask out the blocked keys
        blocked = (mask == 0).expand(*lead, t, tk).reshape(-1, t, tk)
        dot = dot.masked_fill(blocked, float('-inf'))

    dot = F.softmax(dot, dim=2)
    # - dot now has row-wise self-attention probabilities
    dot = dot.view(*lead, t, tk)
    dropped = dot if dropout is None else dropout(dot)

    # apply the self attention to the values
    out = torch.bmm(dropped.reshape(-1, t, tk), values)
    return out.view(*lead, t, values.size(-1)), dot


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]


class MultiHeadAttention(nn.Module):
    """
    Canonical implementation of multi-head self attention.
    """

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        emb, heads = d_model, n_heads
        assert emb % heads == 0, f'Embedding dimension ({emb}) should be divisible by nr. of heads ({heads})'

        self.emb = emb
        self.heads = heads

        s = emb // heads  # noqa: F841
        # - We will break the embedding into `heads` chunks and feed each to a different attention head

        self.Wk = nn.Linear(emb, emb)
        self.Wq = nn.Linear(emb, emb)
        self.Wv = nn.Linear(emb, emb)

        self.Wo = nn.Linear(emb, emb)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        h = self.heads

        keys = split_heads(self.Wk(key), h)
        queries = split_heads(self.Wq(query), h)
        values = split_heads(self.Wv(value), h)

        out, dot = scaled_dot_product_attention(queries, keys, values, mask, self.dropout)

        # swap h, t back, unify heads
        return self.Wo(combine_heads(out)), dot


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        ax.matshow(attention[head].numpy(), cmap="bone", vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
        ax.set_title(f"head {head}")
    return fig
