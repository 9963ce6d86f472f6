# Source: hyunwoongko/transformer (models/layers/layer_norm.py, models/layers/position_wise_feed_forward.py,
#   models/blocks/encoder_layer.py).
# Adapted: names and signatures of the contract; LayerNorm's gamma and beta become weight and bias
#   and its forward is the source's later one (var with unbiased=False, eps inside the square root),
#   with the contract's default eps=1e-5 (the source's is 1e-12); the layer's norm1/dropout1 and
#   norm2/dropout2 become sublayer[0] and sublayer[1], each computing the source's
#   norm(x + dropout(f(x))); linear1/linear2 become w_1/w_2; the mask is passed to self-attention.
# Given (the release's code): MultiHeadAttention.
# Mistake kept: the unbiased std plus eps (the source's 2019 LayerNorm); one edit of correct_hyunwoongko.py.
import math

import torch
from torch import nn


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
    def __init__(self, d_model, eps=1e-5):
        super(LayerNorm, self).__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        # '-1' means last dimension.

        out = (x - mean) / (std + self.eps)
        out = self.weight * out + self.bias
        return out


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super(PositionwiseFeedForward, self).__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = self.w_1(x)
        x = self.relu(x)
        x = self.dropout(x)
        x = self.w_2(x)
        return x


class SublayerConnection(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super(SublayerConnection, self).__init__()
        self.norm = LayerNorm(d_model=d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, sublayer):
        _x = x
        x = sublayer(x)
        # add and norm
        x = self.dropout(x)
        x = self.norm(x + _x)
        return x


class EncoderLayer(nn.Module):
    def __init__(self, d_model=512, n_heads=8, d_ff=2048, dropout=0.1):
        super(EncoderLayer, self).__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model=d_model, d_ff=d_ff, dropout=dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout), SublayerConnection(d_model, dropout)])

    def forward(self, x, mask=None):
        # 1. compute self attention, 2. add and norm
        _x = x
        x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])

        # 3. positionwise feed forward network, 4. add and norm
        x = self.sublayer[1](x, self.feed_forward)
        return x
