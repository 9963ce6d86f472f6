# Source of the mistake: karpathy/nanoGPT, model.py (CausalSelfAttention.forward(x):
#   q, k, v all come from the one input x, `self.c_attn(x).split(self.n_embd, dim=2)`).
# The rest: as correct_nanogpt.py.
# Mistake kept: keys and values are projected from the query argument (self-attention
#   only); key and value are ignored.
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure
from torch.nn import functional as F


def tokenize(text):
    return text.lower().translate(str.maketrans('', '', string.punctuation)).split()


def build_vocab(texts):
    # get all the unique words that occur in this text
    words = sorted(list(set(w for t in texts for w in tokenize(t))))
    # create a mapping from words to integers
    stoi = {w: i + 2 for i, w in enumerate(words)}
    stoi['<pad>'] = 0
    stoi['<unk>'] = 1
    return stoi


def encode(texts, stoi, max_length=None):
    enc = lambda s: [stoi.get(w, stoi['<unk>']) for w in tokenize(s)]  # encoder: take a string, output a list of integers
    rows = [enc(t) for t in texts]
    T = max_length if max_length is not None else max(len(r) for r in rows)
    ids = torch.full((len(rows), T), stoi['<pad>'], dtype=torch.long)
    for b, r in enumerate(rows):
        r = r[:T]
        ids[b, :len(r)] = torch.tensor(r, dtype=torch.long)
    return ids


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.n_embd = d_model
        self.lut = nn.Embedding(vocab_size, d_model)  # wte

    def forward(self, idx):
        tok_emb = self.lut(idx)  # token embeddings of shape (b, t, n_embd)
        return tok_emb * math.sqrt(self.n_embd)


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
    B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)  # (B, nh, T, hs)


def combine_heads(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).contiguous().view(B, T, nh * hs)  # re-assemble all head outputs side by side


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    # manual implementation of attention
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if mask is not None:
        att = att.masked_fill(mask == 0, float('-inf'))
    att = F.softmax(att, dim=-1)
    y = (att if dropout is None else dropout(att)) @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
    return y, att


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    # causal mask to ensure that attention is only applied to the left in the input sequence
    return torch.tril(torch.ones(size, size)).view(1, 1, size, size)


class MultiHeadAttention(nn.Module):

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"n_embd={d_model} is not a multiple of n_head={n_heads}")
        # key, query, value projections for all heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        # output projection
        self.Wo = nn.Linear(d_model, d_model)
        # regularization
        self.dropout = nn.Dropout(dropout)
        self.n_head = n_heads
        self.n_embd = d_model

    def forward(self, query, key, value, mask=None):
        B, T, C = query.size()  # batch size, sequence length, embedding dimensionality (n_embd)

        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        q = self.Wq(query).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = self.Wk(query).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = self.Wv(query).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)

        # manual implementation of attention
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is not None:
            att = att.masked_fill(mask == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = self.dropout(att) @ v  # (B, nh, T, S) x (B, nh, S, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side

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
