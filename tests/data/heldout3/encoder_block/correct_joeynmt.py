# Source: joeynmt/joeynmt, joeynmt/transformer_layers.py (PositionwiseFeedForward,
#   TransformerEncoderLayer with layer_norm="post").
# Adapted: names and signatures of the contract; the feed-forward block's nn.Sequential
#   (Linear, ReLU, Dropout, Linear, Dropout) keeps its first three layers as w_1, ReLU and dropout and
#   ends with w_2 (no second dropout), and its residual and layer norm move into SublayerConnection;
#   the source's nn.LayerNorm(size, eps=1e-6) becomes LayerNorm, a subclass of nn.LayerNorm with the
#   contract's signature and default eps=1e-5; `x = self.dropout(x) + self.alpha * residual` then
#   layer_norm becomes SublayerConnection (alpha is 1.0 there by default).
# Given (the release's code): MultiHeadAttention.
# Mistake kept: none.
import math

import torch
from torch import Tensor, nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.d_key = d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        batch = query.size(0)

        def split_heads(x):  # (batch, seq, d_model) -> (batch, n_heads, seq, d_key)
            return x.reshape(batch, -1, self.n_heads, self.d_key).transpose(1, 2)

        Q, K, V = split_heads(self.Wq(query)), split_heads(self.Wk(key)), split_heads(self.Wv(value))
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_key)  # (batch, n_heads, q_len, k_len)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        attn_probs = scores.softmax(dim=-1)  # (batch, n_heads, q_len, k_len)
        heads = self.dropout(attn_probs) @ V  # (batch, n_heads, q_len, d_key)
        joined = heads.transpose(1, 2).reshape(batch, -1, self.n_heads * self.d_key)  # (batch, q_len, d_model)
        return self.Wo(joined), attn_probs


class LayerNorm(nn.LayerNorm):
    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__(d_model, eps=eps)


class PositionwiseFeedForward(nn.Module):
    """
    Position-wise Feed-forward layer
    Projects to ff_size and then back down to input_size.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class SublayerConnection(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor, sublayer) -> Tensor:
        residual = x
        x = self.dropout(sublayer(x)) + residual
        return self.norm(x)


class EncoderLayer(nn.Module):
    """
    One Transformer encoder layer has a Multi-head attention layer plus a position-wise
    feed-forward layer.
    """

    def __init__(self, d_model: int = 512, n_heads: int = 8, d_ff: int = 2048, dropout: float = 0.1) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout=dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout), SublayerConnection(d_model, dropout)])

    def forward(self, x: Tensor, mask: Tensor = None) -> Tensor:
        x = self.sublayer[0](x, lambda h: self.self_attn(h, h, h, mask)[0])
        out = self.sublayer[1](x, self.feed_forward)
        return out
