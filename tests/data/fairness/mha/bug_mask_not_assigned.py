# Source of the mistake: lucidrains/flamingo-pytorch issue #10 "zeroing out attention not working"
#   (masked_fill used where masked_fill_ was meant: the line had no effect).
# The rest: as correct_mingpt.py.
# Mistake kept: the result of masked_fill is thrown away, so the mask has no effect.
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure
from torch.nn import functional as F

PAD = "<pad>"
UNK = "<unk>"


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    words = sorted({token for text in texts for token in tokenize(text)})
    stoi = {PAD: 0, UNK: 1}
    for word in words:
        stoi[word] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


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


def split_heads(x, n_head):
    B, T, C = x.size()
    return x.view(B, T, n_head, C // n_head).transpose(1, 2)  # (B, nh, T, hs)


def combine_heads(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).contiguous().view(B, T, nh * hs)  # re-assemble all head outputs side by side


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if mask is not None:
        att.masked_fill(mask == 0, float('-inf'))
    att = F.softmax(att, dim=-1)
    y = (att if dropout is None else dropout(att)) @ v
    return y, att


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    # causal mask to ensure that attention is only applied to the left in the input sequence
    return torch.tril(torch.ones(size, size)).view(1, 1, size, size)


class MultiHeadAttention(nn.Module):
    """
    A vanilla multi-head masked self-attention layer with a projection at the end.
    """

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("n_embd must be a multiple of n_head")
        # key, query, value projections for all heads
        self.Wk = nn.Linear(d_model, d_model)
        self.Wq = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        # regularization
        self.dropout = nn.Dropout(dropout)
        # output projection
        self.Wo = nn.Linear(d_model, d_model)
        self.n_head = n_heads

    def forward(self, query, key, value, mask=None):
        B, T, C = query.size()

        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        k = split_heads(self.Wk(key), self.n_head)  # (B, nh, T, hs)
        q = split_heads(self.Wq(query), self.n_head)  # (B, nh, T, hs)
        v = split_heads(self.Wv(value), self.n_head)  # (B, nh, T, hs)

        # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        y, att = scaled_dot_product_attention(q, k, v, mask, self.dropout)  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = combine_heads(y)

        # output projection
        y = self.Wo(y)
        return y, att


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
