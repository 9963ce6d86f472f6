# Source: karpathy/nanoGPT, model.py (LayerNorm with an optional bias through F.layer_norm,
#   CausalSelfAttention's (B, nh, T, hs) view/transpose, MLP: c_fc, gelu, c_proj, dropout;
#   Block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))).
# Adapted: an encoder, so no causal mask but the contract's padding mask; c_attn's one
#   (n_embd, 3 * n_embd) projection becomes Wq, Wk, Wv, and c_proj Wo, with the attention
#   dropout on the weights only (resid_dropout removed: the contract's attention has no
#   dropout on its output); LayerNorm takes eps; the Block becomes the contract's
#   EncoderLayer, post-norm: each SublayerConnection computes norm(x + dropout(f(x))) with
#   ln_1 and ln_2 as sublayer[0].norm and sublayer[1].norm; c_fc/c_proj become w_1/w_2.
#   the dropout moves from after c_proj to the hidden layer, so that one mistake is kept.
# Mistake kept: the MLP's GELU (nn.GELU(), exact), where the contract asks for ReLU.
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    """LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False"""

    def __init__(self, ndim, eps=1e-5, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None
        self.eps = eps

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, self.eps)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_embd=512, n_head=8, dropout=0.1):
        super().__init__()
        assert n_embd % n_head == 0
        # key, query, value projections for all heads
        self.Wq = nn.Linear(n_embd, n_embd)
        self.Wk = nn.Linear(n_embd, n_embd)
        self.Wv = nn.Linear(n_embd, n_embd)
        # output projection
        self.Wo = nn.Linear(n_embd, n_embd)
        # regularization
        self.dropout = nn.Dropout(dropout)  # nanoGPT's attn_dropout
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, query, key, value, mask=None):
        B, T, C = query.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        S = key.size(1)
        q = self.Wq(query).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = self.Wk(key).view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        v = self.Wv(value).view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is not None:
            att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = self.dropout(att) @ v  # (B, nh, T, S) x (B, nh, S, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.Wo(y), att


class PositionwiseFeedForward(nn.Module):
    def __init__(self, n_embd, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(n_embd, d_ff)
        self.gelu = nn.GELU()
        self.w_2 = nn.Linear(d_ff, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.w_1(x)
        x = self.gelu(x)
        x = self.dropout(x)
        x = self.w_2(x)
        return x


class SublayerConnection(nn.Module):
    def __init__(self, n_embd, dropout=0.1):
        super().__init__()
        self.norm = LayerNorm(n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return self.norm(x + self.dropout(sublayer(x)))


class EncoderLayer(nn.Module):
    def __init__(self, n_embd=512, n_head=8, d_ff=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(n_embd, n_head, dropout)
        self.feed_forward = PositionwiseFeedForward(n_embd, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(n_embd, dropout) for _ in range(2)])

    def forward(self, x, mask=None):
        x = self.sublayer[0](x, lambda t: self.self_attn(t, t, t, mask)[0])
        x = self.sublayer[1](x, self.feed_forward)
        return x
