# Source of the mistake: a CS336 assignment 1 solution (cs336_basics, `attn_scores =
#   softmax(attn_scores,d_k)`: the softmax's dimension argument is given d_k).
# The rest: as correct_cs336.py.
# Mistake kept: the softmax runs over dimension d_k (an axis index) instead of the last axis;
#   d_k is usually out of range (an error) or names another axis.
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure


def softmax(x: torch.Tensor, i: int) -> torch.Tensor:
    # two parameters: a tensor and a dimension i
    max_value, _ = torch.max(x, dim=i, keepdim=True)
    new_x = x - max_value
    numerator = torch.exp(new_x)
    denominator = torch.sum(numerator, dim=i, keepdim=True)
    return numerator / denominator


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
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.lut(token_ids) * self.d_model ** 0.5


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


def split_heads(x, n_heads):
    # "... seq (heads d_k) -> ... heads seq d_k"
    *lead, seq, d_model = x.shape
    return x.reshape(*lead, seq, n_heads, d_model // n_heads).transpose(-3, -2)


def combine_heads(x):
    # "... heads seq d_k -> ... seq (heads d_k)"
    *lead, heads, seq, d_k = x.shape
    return x.transpose(-3, -2).reshape(*lead, seq, heads * d_k)


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    out = torch.einsum("...qd,...kd->...qk", q, k) / torch.sqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    if mask is not None:
        mask = mask.bool()
        out = out.masked_fill(~mask, float('-inf'))
    weights = softmax(out, q.shape[-1])
    dropped = weights if dropout is None else dropout(weights)
    return torch.einsum("...qk,...kd->...qd", dropped, v), weights


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = n_heads
        self.d_k = d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        Q = split_heads(self.Wq(query), self.num_heads)
        K = split_heads(self.Wk(key), self.num_heads)
        V = split_heads(self.Wv(value), self.num_heads)
        attn, weights = scaled_dot_product_attention(Q, K, V, mask, self.dropout)
        return self.Wo(combine_heads(attn)), weights


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
