# Source: aladdinpersson/Machine-Learning-Collection, ML/Pytorch/more_advanced/transformer_from_scratch/
#   transformer_from_scratch.py (TransformerBlock: norm1, norm2, feed_forward as
#   nn.Sequential(Linear, ReLU, Linear), one dropout;
#   `x = self.dropout(self.norm1(attention + query))`,
#   `out = self.dropout(self.norm2(forward + x))`).
# Adapted: the block becomes the contract's EncoderLayer with self-attention (value, key and
#   query all x); norm1/norm2 with the dropout become sublayer[0]/sublayer[1], each a
#   SublayerConnection computing dropout(norm(x + sublayer(x))) as the source does; the
#   Sequential becomes PositionwiseFeedForward with w_1/w_2, given a dropout on its hidden
#   layer (the source has none there) so that one mistake is kept; forward_expansion *
#   embed_size becomes d_ff.
# From the reference (no counterpart: the source's SelfAttention differs in contract):
#   MultiHeadAttention, and LayerNorm as a subclass of nn.LayerNorm.
# Mistake kept: the dropout after the norm, dropout(norm(x + sublayer(x))), where the
#   contract drops the sublayer's output before the sum.
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_size=512, heads=8, dropout=0.1):
        super().__init__()
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads
        assert self.head_dim * heads == embed_size, "Embedding size needs to be divisible by heads"
        self.Wv = nn.Linear(embed_size, embed_size)
        self.Wk = nn.Linear(embed_size, embed_size)
        self.Wq = nn.Linear(embed_size, embed_size)
        self.Wo = nn.Linear(embed_size, embed_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        N = query.shape[0]
        value_len, key_len, query_len = value.shape[1], key.shape[1], query.shape[1]
        values = self.Wv(value).reshape(N, value_len, self.heads, self.head_dim)
        keys = self.Wk(key).reshape(N, key_len, self.heads, self.head_dim)
        queries = self.Wq(query).reshape(N, query_len, self.heads, self.head_dim)
        energy = torch.einsum("nqhd,nkhd->nhqk", [queries, keys])
        if mask is not None:
            energy = energy.masked_fill(mask == 0, float("-1e20"))
        attention = torch.softmax(energy / (self.head_dim ** (1 / 2)), dim=3)
        out = torch.einsum("nhql,nlhd->nqhd", [self.dropout(attention), values]).reshape(
            N, query_len, self.heads * self.head_dim
        )
        return self.Wo(out), attention


class LayerNorm(nn.LayerNorm):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps=eps)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, embed_size, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(embed_size, d_ff)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.w_2 = nn.Linear(d_ff, embed_size)

    def forward(self, x):
        return self.w_2(self.dropout(self.relu(self.w_1(x))))


class SublayerConnection(nn.Module):
    def __init__(self, embed_size, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(embed_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        # Add skip connection, run through normalization and finally dropout
        return self.dropout(self.norm(sublayer(x) + x))


class EncoderLayer(nn.Module):
    def __init__(self, embed_size=512, heads=8, d_ff=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(embed_size, heads, dropout)
        self.feed_forward = PositionwiseFeedForward(embed_size, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(embed_size, dropout) for _ in range(2)])

    def forward(self, x, mask=None):
        x = self.sublayer[0](x, lambda q: self.self_attn(q, q, q, mask)[0])
        return self.sublayer[1](x, self.feed_forward)
