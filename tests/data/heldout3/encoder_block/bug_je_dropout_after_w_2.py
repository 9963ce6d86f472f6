# Source: jadore801120/attention-is-all-you-need-pytorch (transformer/SubLayers.py
#   PositionwiseFeedForward and MultiHeadAttention's residual and layer norm, transformer/Layers.py
#   EncoderLayer).
# Adapted: names and signatures of the contract; the source's nn.LayerNorm(d_model, eps=1e-6)
#   becomes LayerNorm, a subclass of nn.LayerNorm with the contract's signature and default
#   eps=1e-5; the residual, dropout and layer norm that the source does inside MultiHeadAttention and
#   PositionwiseFeedForward move into SublayerConnection, norm(x + dropout(f(x))), so that the
#   feed-forward network is w_2(dropout(relu(w_1(x)))) alone; EncoderLayer calls them through
#   sublayer[0] and sublayer[1].
# Given (the release's code): MultiHeadAttention.
# Mistake kept: dropout after w_2 (the source's own lines); one edit of correct_jadore.py.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


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
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps=eps)


class PositionwiseFeedForward(nn.Module):
    """A two-feed-forward-layer module"""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)  # position-wise
        self.w_2 = nn.Linear(d_ff, d_model)  # position-wise
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.dropout(self.w_2(F.relu(self.w_1(x))))
        return x


class SublayerConnection(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        residual = x
        x = self.dropout(sublayer(x))
        x = x + residual
        x = self.norm(x)
        return x


class EncoderLayer(nn.Module):
    """Compose with two layers"""

    def __init__(self, d_model=512, n_heads=8, d_ff=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout=dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])

    def forward(self, enc_input, mask=None):
        enc_output = self.sublayer[0](enc_input, lambda x: self.self_attn(x, x, x, mask=mask)[0])
        enc_output = self.sublayer[1](enc_output, self.feed_forward)
        return enc_output
