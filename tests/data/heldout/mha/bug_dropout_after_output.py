# # The Implemented Transformer: Multi-Head Attention
#
# Following the article step by step: tokenizing, embeddings, positional encoding,
# splitting into heads, scaled dot-product attention, and the full module.


import math
import string

import torch
import torch.nn as nn
from torch import Tensor
import matplotlib.pyplot as plt


# ## 1. From text to tensors


def tokenize(text: str) -> list:
    """lowercase, strip punctuation, split on whitespace"""
    text = text.lower()
    text = text.translate(str.maketrans("", "", string.punctuation))
    return text.split()


def build_vocab(texts: list) -> dict:
    words = set()
    for t in texts:
        words.update(tokenize(t))
    stoi = {"<pad>": 0, "<unk>": 1}
    for idx, word in enumerate(sorted(words)):
        stoi[word] = idx + 2
    return stoi


def encode(texts: list, stoi: dict, max_length: int = None) -> Tensor:
    pad_id = stoi["<pad>"]
    unk_id = stoi["<unk>"]
    indexed = [[stoi.get(w, unk_id) for w in tokenize(t)] for t in texts]
    if max_length is None:
        max_length = max([len(seq) for seq in indexed] + [0])
    rows = []
    for seq in indexed:
        seq = seq[:max_length]
        rows.append(seq + [pad_id] * (max_length - len(seq)))
    return torch.tensor(rows, dtype=torch.long).view(len(texts), max_length)


# ## 2. Embeddings and positional encoding


class Embeddings(nn.Module):
    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)  # look-up table
        self.d_model = d_model

    def forward(self, x: Tensor):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_length: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_length, d_model)
        position = torch.arange(0, max_length).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x: Tensor):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


# ## 3. Splitting into heads and putting them back together


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    batch_size = x.size(0)
    d_key = x.size(-1) // n_heads
    # (batch, seq, d_model) -> (batch, seq, n_heads, d_key) -> (batch, n_heads, seq, d_key)
    return x.view(batch_size, -1, n_heads, d_key).permute(0, 2, 1, 3)


def combine_heads(x: Tensor) -> Tensor:
    batch_size, n_heads, seq_length, d_key = x.size()
    x = x.permute(0, 2, 1, 3).contiguous()
    return x.view(batch_size, seq_length, n_heads * d_key)


# ## 4. Scaled dot-product attention


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    out = torch.matmul(p_attn, value)
    if dropout is not None:
        out = dropout(out)
    return out, p_attn


# ## 5. The module (same as the article: everything done inside forward)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1):
        super().__init__()
        assert d_model % n_heads == 0, "d_model has to be divisible by n_heads"
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_key = d_model // n_heads

        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)

        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor = None):
        batch_size = key.size(0)

        Q = self.Wq(query)
        K = self.Wk(key)
        V = self.Wv(value)

        Q = Q.view(batch_size, -1, self.n_heads, self.d_key).permute(0, 2, 1, 3)
        K = K.view(batch_size, -1, self.n_heads, self.d_key).permute(0, 2, 1, 3)
        V = V.view(batch_size, -1, self.n_heads, self.d_key).permute(0, 2, 1, 3)

        scaled_dot_prod = torch.matmul(Q, K.permute(0, 1, 3, 2)) / math.sqrt(self.d_key)

        if mask is not None:
            scaled_dot_prod = scaled_dot_prod.masked_fill(mask == 0, -1e9)

        attn_probs = torch.softmax(scaled_dot_prod, dim=-1)

        A = torch.matmul(self.dropout(attn_probs), V)

        A = A.permute(0, 2, 1, 3).contiguous()
        A = A.view(batch_size, -1, self.n_heads * self.d_key)

        output = self.Wo(A)
        return output, attn_probs


# ## 6. Masks


def make_padding_mask(token_ids: Tensor, pad_id: int = 0) -> Tensor:
    return (token_ids != pad_id).unsqueeze(1).unsqueeze(2)


def make_causal_mask(size: int) -> Tensor:
    mask = torch.tril(torch.ones(size, size)).bool()
    return mask.unsqueeze(0).unsqueeze(0)


# ## 7. Looking at the heads


def display_attention(sentence: list, translation: list, attention: Tensor,
                      n_heads: int = 8, n_rows: int = 4, n_cols: int = 2):
    assert n_rows * n_cols >= n_heads
    fig = plt.figure(figsize=(15, 20))
    if attention.dim() == 4:  # (1, n_heads, T, S) -> (n_heads, T, S)
        attention = attention[0]
    for i in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, i + 1)
        _attention = attention[i, :, :].cpu().detach().numpy()
        cax = ax.matshow(_attention, cmap="bone")
        fig.colorbar(cax, ax=ax)
        ax.tick_params(labelsize=12)
        ax.set_xticks(range(len(sentence)))
        ax.set_yticks(range(len(translation)))
        ax.set_xticklabels(sentence, rotation=45)
        ax.set_yticklabels(translation)
    return fig
