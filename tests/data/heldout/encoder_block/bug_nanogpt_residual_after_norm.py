# Encoder layer in the style of nanoGPT's model.py, moved to post-norm the wrong way: the
# residual is added after the norm, norm(dropout(f(x))) + x, instead of norm(x + dropout(f(x))).
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    """LayerNorm with its weight and bias, eps as given."""

    def __init__(self, ndim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim))
        self.eps = eps

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, self.eps)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_embd=512, n_head=8, dropout=0.1):
        super().__init__()
        assert n_embd % n_head == 0
        self.Wq = nn.Linear(n_embd, n_embd)
        self.Wk = nn.Linear(n_embd, n_embd)
        self.Wv = nn.Linear(n_embd, n_embd)
        self.Wo = nn.Linear(n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, query, key, value, mask=None):
        B, T, C = query.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        S = key.size(1)
        hs = C // self.n_head
        q = self.Wq(query).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = self.Wk(key).view(B, S, self.n_head, hs).transpose(1, 2)  # (B, nh, S, hs)
        v = self.Wv(value).view(B, S, self.n_head, hs).transpose(1, 2)  # (B, nh, S, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, S)
        if mask is not None:
            att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = self.dropout(att) @ v  # (B, nh, T, S) x (B, nh, S, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.Wo(y), att


class PositionwiseFeedForward(nn.Module):
    def __init__(self, n_embd, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(n_embd, d_ff)  # nanoGPT's c_fc
        self.relu = nn.ReLU()
        self.w_2 = nn.Linear(d_ff, n_embd)  # nanoGPT's c_proj
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.w_1(x)
        x = self.relu(x)
        x = self.dropout(x)
        x = self.w_2(x)
        return x


class SublayerConnection(nn.Module):
    def __init__(self, n_embd, dropout=0.1):
        super().__init__()
        self.norm = LayerNorm(n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return self.norm(self.dropout(sublayer(x))) + x


class EncoderLayer(nn.Module):
    def __init__(self, n_embd=512, n_head=8, d_ff=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(n_embd, n_head, dropout)
        self.feed_forward = PositionwiseFeedForward(n_embd, d_ff, dropout)
        self.sublayer = nn.ModuleList(SublayerConnection(n_embd, dropout) for _ in range(2))

    def forward(self, x, mask=None):
        def attn(t):
            return self.self_attn(t, t, t, mask)[0]

        x = self.sublayer[0](x, attn)
        x = self.sublayer[1](x, self.feed_forward)
        return x


if __name__ == "__main__":
    block = EncoderLayer(64, 4, 256).eval()
    print(block(torch.randn(2, 10, 64)).shape)
