# # Multi-head attention (homework)
# I wrote the positional table and the softmax by hand to understand them.


import math
import string

import torch
import torch.nn as nn
import matplotlib.pyplot as plt

PUNCTUATION = set(string.punctuation)
PAD, UNK = "<pad>", "<unk>"


def tokenize(text):
    no_punct = "".join(ch for ch in text.lower() if ch not in PUNCTUATION)
    return no_punct.split()


def build_vocab(texts):
    all_tokens = []
    for text in texts:
        for tok in tokenize(text):
            if tok not in all_tokens:
                all_tokens.append(tok)
    all_tokens.sort()
    stoi = {PAD: 0, UNK: 1}
    next_id = 2
    for tok in all_tokens:
        stoi[tok] = next_id
        next_id += 1
    return stoi


def encode(texts, stoi, max_length=None):
    token_lists = [tokenize(t) for t in texts]
    if max_length is None:
        max_length = 0
        for toks in token_lists:
            max_length = max(max_length, len(toks))
    batch = []
    for toks in token_lists:
        row = []
        for tok in toks[:max_length]:
            row.append(stoi[tok] if tok in stoi else stoi[UNK])
        while len(row) < max_length:
            row.append(stoi[PAD])
        batch.append(row)
    return torch.LongTensor(batch).reshape(len(texts), max_length)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * self.d_model ** 0.5


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        rows = []
        for pos in range(max_length):
            row = [0.0] * d_model
            for i in range(0, d_model, 2):
                angle = pos / (10000 ** (i / d_model))
                row[i] = math.sin(angle)
                row[i + 1] = math.cos(angle)
            rows.append(row)
        self.register_buffer("pe", torch.tensor(rows, dtype=torch.float32).unsqueeze(0))

    def forward(self, x):
        seq_len = x.size(1)
        x = x + self.pe[:, :seq_len]
        return self.dropout(x)


def split_heads(x, n_heads):
    batch_size, seq_len, d_model = x.shape
    d_key = d_model // n_heads
    x = x.reshape(batch_size, seq_len, n_heads, d_key)
    return x.permute(0, 2, 1, 3)


def combine_heads(x):
    batch_size, n_heads, seq_len, d_key = x.shape
    x = x.permute(0, 2, 1, 3)
    return x.reshape(batch_size, seq_len, n_heads * d_key)


def stable_softmax(scores, dim=-1):
    shifted = scores - scores.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
    attn_probs = stable_softmax(scores, dim=-1)
    p = attn_probs
    if dropout is not None:
        p = dropout(p)
    return torch.matmul(p, value), attn_probs


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads:
            raise ValueError("n_heads must divide d_model")
        self.n_heads = n_heads
        self.d_key = d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        Q = split_heads(self.Wq(query), self.n_heads)
        K = split_heads(self.Wk(key), self.n_heads)
        V = split_heads(self.Wv(value), self.n_heads)
        A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)
        return self.Wo(combine_heads(A)), attn_probs


def make_padding_mask(token_ids, pad_id=0):
    return token_ids != pad_id


def make_causal_mask(size):
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        mask[i, : i + 1] = True
    return mask[None, None, :, :]


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu()
    if attention.dim() == 4:
        attention = attention.squeeze(0)
    fig = plt.figure(figsize=(4 * n_cols, 4 * n_rows))
    for h in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, h + 1)
        mesh = ax.pcolormesh(attention[h].numpy(), cmap="magma", vmin=0.0, vmax=1.0)
        fig.colorbar(mesh, ax=ax)
        ax.set_xticks([j + 0.5 for j in range(len(sentence))])
        ax.set_xticklabels(sentence, rotation=60)
        ax.set_yticks([j + 0.5 for j in range(len(translation))])
        ax.set_yticklabels(translation)
        ax.invert_yaxis()  # first query on top, like matshow
        ax.set_title("head %d" % (h + 1))
    return fig
