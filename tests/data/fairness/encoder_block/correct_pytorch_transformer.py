# Source: pytorch/pytorch, torch/nn/modules/transformer.py (TransformerEncoderLayer with
#   norm_first=False: `x = self.norm1(x + self._sa_block(x, ...))`,
#   `x = self.norm2(x + self._ff_block(x))`, _sa_block ending in dropout1, _ff_block as
#   linear2(dropout(activation(linear1(x)))) then dropout2, layer_norm_eps=1e-5).
# Adapted: linear1/dropout/linear2 become PositionwiseFeedForward's w_1/dropout/w_2;
#   norm1 + dropout1 and norm2 + dropout2 become sublayer[0] and sublayer[1]; the
#   norm_first branch is kept (False by default) and uses the same sublayers; the padding
#   mask is the contract's (batch, 1, 1, seq) True-for-tokens mask, passed to the given
#   MultiHeadAttention rather than nn.MultiheadAttention's key_padding_mask (True for padding).
# From the reference (no counterpart: torch uses its own modules): MultiHeadAttention, and
#   LayerNorm written as torch's nn.LayerNorm computes it, with F.layer_norm.
# Mistake kept: none.
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

        def split_heads(x):
            return x.reshape(batch, -1, self.n_heads, self.d_key).transpose(1, 2)

        Q, K, V = split_heads(self.Wq(query)), split_heads(self.Wk(key)), split_heads(self.Wv(value))
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_key)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        attn_probs = scores.softmax(dim=-1)
        heads = self.dropout(attn_probs) @ V
        return self.Wo(heads.transpose(1, 2).reshape(batch, -1, self.n_heads * self.d_key)), attn_probs


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.normalized_shape = (normalized_shape,)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, dim_feedforward=2048, dropout=0.1, activation=F.relu):
        super().__init__()
        # Implementation of Feedforward model
        self.w_1 = nn.Linear(d_model, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.w_2 = nn.Linear(dim_feedforward, d_model)
        self.activation = activation

    def forward(self, x):
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


class SublayerConnection(nn.Module):
    def __init__(self, d_model, dropout=0.1, layer_norm_eps=1e-5):
        super().__init__()
        self.norm = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return self.norm(x + self.dropout(sublayer(x)))


class EncoderLayer(nn.Module):
    def __init__(self, d_model=512, nhead=8, dim_feedforward=2048, dropout=0.1, norm_first=False):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, dim_feedforward, dropout)
        self.norm_first = norm_first
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])

    def forward(self, src, src_mask=None):
        x = src
        if self.norm_first:
            first, second = self.sublayer
            x = x + first.dropout(self._sa_block(first.norm(x), src_mask))
            x = x + second.dropout(self._ff_block(second.norm(x)))
        else:
            x = self.sublayer[0](x, lambda t: self._sa_block(t, src_mask))
            x = self.sublayer[1](x, self._ff_block)
        return x

    # self-attention block
    def _sa_block(self, x, attn_mask):
        return self.self_attn(x, x, x, mask=attn_mask)[0]

    # feed forward block
    def _ff_block(self, x):
        return self.feed_forward(x)
