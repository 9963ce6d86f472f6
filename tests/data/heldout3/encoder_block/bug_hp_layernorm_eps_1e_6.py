# Source: hkproj/pytorch-transformer, model.py (LayerNormalization, FeedForwardBlock,
#   ResidualConnection, EncoderBlock).
# Adapted: names and signatures of the contract; LayerNormalization's alpha and bias, one number each
#   in the source, become weight and bias of d_model features, and its `(x - mean) / (std + eps)`
#   becomes the contract's biased variance with eps inside the square root, default eps=1e-5 (the
#   source's is 10**-6); linear_1/linear_2 become w_1/w_2; ResidualConnection normalises after the sum
#   (post-norm, as the contract asks; the source normalises first); EncoderBlock builds its own
#   attention and feed-forward blocks and residual_connections becomes sublayer.
# Given (the release's code): MultiHeadAttention.
# Mistake kept: LayerNorm's default eps=10**-6 (the source's own default); one edit of correct_hkproj.py.
import math

import torch
import torch.nn as nn


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


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 10**-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # alpha is a learnable parameter
        self.bias = nn.Parameter(torch.zeros(d_model))  # bias is a learnable parameter

    def forward(self, x):
        # x: (batch, seq_len, hidden_size)
        # Keep the dimension for broadcasting
        mean = x.mean(dim=-1, keepdim=True)  # (batch, seq_len, 1)
        # Keep the dimension for broadcasting
        var = x.var(dim=-1, keepdim=True, unbiased=False)  # (batch, seq_len, 1)
        # eps is to prevent dividing by zero or when std is very small
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)  # w1 and b1
        self.dropout = nn.Dropout(dropout)
        self.w_2 = nn.Linear(d_ff, d_model)  # w2 and b2

    def forward(self, x):
        # (batch, seq_len, d_model) --> (batch, seq_len, d_ff) --> (batch, seq_len, d_model)
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class SublayerConnection(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.norm = LayerNorm(d_model)

    def forward(self, x, sublayer):
        return self.norm(x + self.dropout(sublayer(x)))


class EncoderLayer(nn.Module):
    def __init__(self, d_model: int = 512, n_heads: int = 8, d_ff: int = 2048, dropout: float = 0.1) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])

    def forward(self, x, src_mask=None):
        x1 = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, src_mask)[0])
        x2 = self.sublayer[1](x1, self.feed_forward)
        return x2
