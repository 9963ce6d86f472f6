# Encoder layer modelled on how torch.nn.TransformerEncoderLayer is written (post-norm,
# norm_first=False): an _sa_block and an _ff_block, an activation attribute, F.layer_norm,
# and attention computed on (batch * heads, seq, d_k) with bmm and an additive float mask,
# the way F.multi_head_attention_forward does. Written by hand for the homework's contract.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.head_dim = d_model, n_heads, d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        bsz, tgt_len, _ = query.shape
        src_len = key.shape[1]
        q = self.Wq(query).reshape(bsz, tgt_len, self.num_heads, self.head_dim).permute(0, 2, 1, 3)
        k = self.Wk(key).reshape(bsz, src_len, self.num_heads, self.head_dim).permute(0, 2, 1, 3)
        v = self.Wv(value).reshape(bsz, src_len, self.num_heads, self.head_dim).permute(0, 2, 1, 3)
        q = q.reshape(bsz * self.num_heads, tgt_len, self.head_dim) * (1.0 / math.sqrt(self.head_dim))
        k = k.reshape(bsz * self.num_heads, src_len, self.head_dim)
        v = v.reshape(bsz * self.num_heads, src_len, self.head_dim)
        attn_output_weights = torch.bmm(q, k.transpose(1, 2))  # (bsz * heads, tgt_len, src_len)
        if mask is not None:
            blocked = ~mask.bool().expand(bsz, self.num_heads, tgt_len, src_len)
            additive = torch.zeros(blocked.shape, dtype=q.dtype, device=q.device).masked_fill(blocked, float("-inf"))
            attn_output_weights = attn_output_weights + additive.reshape(bsz * self.num_heads, tgt_len, src_len)
        attn_output_weights = F.softmax(attn_output_weights, dim=-1)
        attn_output = torch.bmm(self.dropout(attn_output_weights), v)  # (bsz * heads, tgt_len, head_dim)
        attn_output = attn_output.reshape(bsz, self.num_heads, tgt_len, self.head_dim).transpose(1, 2)
        attn_output = self.Wo(attn_output.reshape(bsz, tgt_len, self.embed_dim))
        return attn_output, attn_output_weights.reshape(bsz, self.num_heads, tgt_len, src_len)


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.normalized_shape = (normalized_shape,)
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(self.normalized_shape))
        self.bias = nn.Parameter(torch.empty(self.normalized_shape))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1, activation=F.relu):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.activation = activation

    def forward(self, x):
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


class SublayerConnection(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        x = x + self.dropout(sublayer(x))
        return self.norm(x)


class EncoderLayer(nn.Module):
    def __init__(self, d_model=512, n_heads=8, d_ff=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout), SublayerConnection(d_model, dropout)])

    def forward(self, src, src_mask=None):
        x = src
        x = self.sublayer[0](x, lambda t: self._sa_block(t, src_mask))
        x = self.sublayer[0](x, self._ff_block)
        return x

    # self-attention block
    def _sa_block(self, x, attn_mask):
        return self.self_attn(x, x, x, mask=attn_mask)[0]

    # feed forward block
    def _ff_block(self, x):
        return self.feed_forward(x)
