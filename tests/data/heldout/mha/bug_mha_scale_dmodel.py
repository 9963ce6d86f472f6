"""
Homework 3: multi-head attention.

Run `python src/attention_hw.py` for a small demo.
"""
from __future__ import annotations

import math
import string

import torch
import torch.nn as nn
import torch.nn.functional as F
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


# ---------------------------------------------------------------- text ----

def tokenize(text: str) -> list[str]:
    stripped = "".join(c for c in text if c not in string.punctuation)
    return stripped.lower().split()


def build_vocab(texts: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text in texts:
        for tok in tokenize(text):
            counts[tok] = counts.get(tok, 0) + 1
    vocab = {"<pad>": 0, "<unk>": 1}
    for tok in sorted(counts):
        vocab[tok] = len(vocab)
    return vocab


def encode(texts: list[str], stoi: dict[str, int], max_length: int | None = None) -> torch.Tensor:
    ids = [torch.tensor([stoi.get(t, stoi["<unk>"]) for t in tokenize(s)], dtype=torch.long)
           for s in texts]
    L = max_length if max_length is not None else max((len(x) for x in ids), default=0)
    rows = [F.pad(x[:L], (0, L - len(x[:L])), value=stoi["<pad>"]) for x in ids]
    if not rows:
        return torch.empty(0, L, dtype=torch.long)
    return torch.stack(rows)


# -------------------------------------------------------------- layers ----

class Embeddings(nn.Module):
    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return math.sqrt(self.d_model) * self.lut(x)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_length: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        freqs = torch.pow(10000.0, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        ang = torch.arange(max_length, dtype=torch.float64)[:, None] * freqs[None, :]
        pe = torch.zeros(max_length, d_model, dtype=torch.float64)
        pe[:, ::2], pe[:, 1::2] = ang.sin(), ang.cos()
        self.register_buffer("pe", pe.float()[None, :, :])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(x + self.pe[:, : x.shape[1]])


# ----------------------------------------------------------- attention ----

def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    b, s, d = x.shape
    return x.view(b, s, n_heads, d // n_heads).transpose(1, 2).contiguous()


def combine_heads(x: torch.Tensor) -> torch.Tensor:
    b, h, s, dk = x.shape
    return x.transpose(1, 2).contiguous().view(b, s, h * dk)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    scores = query.matmul(key.transpose(-2, -1))
    scores = scores / math.sqrt(key.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    probs = F.softmax(scores, dim=-1)
    out = (dropout(probs) if dropout is not None else probs).matmul(value)
    return out, probs


class MultiHeadAttention(nn.Module):
    """Self/cross attention; the attention itself is written inline in forward."""

    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be divisible by n_heads")
        self.n_heads = n_heads
        self.d_key = d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        bsz, q_len, _ = query.shape
        k_len = key.shape[1]
        Q = self.Wq(query).view(bsz, q_len, self.n_heads, self.d_key).transpose(1, 2)
        K = self.Wk(key).view(bsz, k_len, self.n_heads, self.d_key).transpose(1, 2)
        V = self.Wv(value).view(bsz, k_len, self.n_heads, self.d_key).transpose(1, 2)
        logits = Q.matmul(K.transpose(2, 3)) / math.sqrt(query.shape[-1])
        if mask is not None:
            logits = logits.masked_fill(mask == 0, float("-inf"))
        attn_probs = logits.softmax(dim=-1)
        ctx = self.dropout(attn_probs).matmul(V)                   # (b, h, q, d_key)
        ctx = ctx.transpose(1, 2).contiguous().view(bsz, q_len, -1)
        return self.Wo(ctx), attn_probs


# --------------------------------------------------------------- masks ----

def make_padding_mask(token_ids: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    return token_ids.ne(pad_id)[:, None, None, :]


def make_causal_mask(size: int) -> torch.Tensor:
    i = torch.arange(size)
    return (i[:, None] >= i[None, :]).view(1, 1, size, size)


# ---------------------------------------------------------------- plot ----

def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    att = attention.detach().cpu().reshape(-1, len(translation), len(sentence))
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4 * n_cols, 3.5 * n_rows), squeeze=False)
    for h, ax in enumerate(axes.flat):
        if h >= n_heads:
            ax.set_visible(False)
            continue
        ax.pcolormesh(att[h].numpy(), cmap="viridis", edgecolors="w", linewidth=0.5)
        ax.set_xticks([x + 0.5 for x in range(len(sentence))], labels=sentence, rotation=90)
        ax.set_yticks([y + 0.5 for y in range(len(translation))], labels=translation)
        ax.set_ylim(len(translation), 0)
        ax.set_title(f"head {h}")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    texts = ["The cat sat on the mat.", "Dogs bark!"]
    stoi = build_vocab(texts)
    ids = encode(texts, stoi)
    x = PositionalEncoding(16)(Embeddings(len(stoi), 16)(ids))
    out, probs = MultiHeadAttention(16, 4)(x, x, x, make_padding_mask(ids))
    display_attention(tokenize(texts[0]), tokenize(texts[0]), probs[0], 4, 2, 2).savefig("attention.png")
    print(out.shape)
