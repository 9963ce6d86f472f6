# Source: karpathy/ng-video-lecture, gpt.py (Head: key/query/value, `wei = q @ k.transpose(-2,-1) * k.shape[-1]**-0.5`,
#   `wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))`, F.softmax(wei, dim=-1), self.dropout(wei);
#   MultiHeadAttention: a Python loop over the heads, torch.cat([h(x) for h in self.heads], dim=-1), proj)
#   and its character tokenizer (`stoi = { ch:i for i,ch in enumerate(chars) }`, `encode = lambda s: [...]`).
# Adapted: each Head's own key/query/value Linear(n_embd, head_size) is the column slice
#   h*head_size:(h+1)*head_size of the contract's Wq/Wk/Wv (the same numbers in one layer);
#   proj is Wo; the tril buffer becomes the mask argument; the per-head weights are stacked to
#   (batch, n_heads, q_len, k_len) to return them; the lecture's final dropout after proj is
#   dropped (the contract has one dropout, on the weights); characters become words with the
#   two specials first; the constructor checks that n_heads divides d_model.
# From the reference (no counterpart: the lecture learns its positions and scales nothing):
#   Embeddings' scale, PositionalEncoding, make_padding_mask, display_attention.
# Mistake kept: none.
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure
from torch.nn import functional as F


def tokenize(text):
    return text.lower().translate(str.maketrans('', '', string.punctuation)).split()


def build_vocab(texts):
    # here are all the unique words that occur in this text
    words = sorted(list(set(w for t in texts for w in tokenize(t))))
    # create a mapping from words to integers
    stoi = {'<pad>': 0, '<unk>': 1}
    stoi.update({w: i + 2 for i, w in enumerate(words)})
    return stoi


def encode(texts, stoi, max_length=None):
    enc = lambda s: [stoi.get(w, stoi['<unk>']) for w in tokenize(s)]  # encoder: take a string, output a list of integers
    data = [enc(t) for t in texts]
    block_size = max_length if max_length is not None else max(len(d) for d in data)
    return torch.tensor([d[:block_size] + [stoi['<pad>']] * (block_size - len(d[:block_size])) for d in data], dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)  # token_embedding_table
        self.n_embd = d_model

    def forward(self, idx):
        return self.lut(idx) * math.sqrt(self.n_embd)  # (B,T,C)


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
    head_size = x.shape[-1] // n_heads
    return torch.stack([x[..., h * head_size:(h + 1) * head_size] for h in range(n_heads)], dim=1)


def combine_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    # compute attention scores ("affinities")
    wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
    if mask is not None:
        wei = wei.masked_fill(mask == 0, float('-inf'))  # (B, T, T)
    wei = F.softmax(wei, dim=-1)  # (B, T, T)
    # perform the weighted aggregation of the values
    out = (wei if dropout is None else dropout(wei)) @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
    return out, wei


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size))[None, None]


class MultiHeadAttention(nn.Module):
    """ multiple heads of self-attention in parallel """

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("n_embd must be divisible by n_head")
        self.num_heads = n_heads
        self.head_size = d_model // n_heads
        self.Wk = nn.Linear(d_model, d_model)
        self.Wq = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def head(self, h, k, q, v, mask):
        cols = slice(h * self.head_size, (h + 1) * self.head_size)
        k, q, v = k[..., cols], q[..., cols], v[..., cols]  # (B,T,hs)
        # compute attention scores ("affinities")
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        if mask is not None:
            wei = wei.masked_fill(mask[:, 0] == 0, float('-inf'))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T)
        # perform the weighted aggregation of the values
        out = self.dropout(wei) @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        return out, wei

    def forward(self, query, key, value, mask=None):
        k, q, v = self.Wk(key), self.Wq(query), self.Wv(value)
        heads = [self.head(h, k, q, v, mask) for h in range(self.num_heads)]
        out = torch.cat([o for o, _ in heads], dim=-1)
        out = self.Wo(out)
        return out, torch.stack([w for _, w in heads], dim=1)


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
