# Source: d2l-ai/d2l-en, chapter_attention-mechanisms-and-transformers/transformer.md
#   (PositionWiseFFN: dense1, relu, dense2; AddNorm: `self.ln(self.dropout(Y) + X)`;
#   TransformerEncoderBlock: Y = addnorm1(X, attention(X, X, X, valid_lens));
#   return addnorm2(Y, ffn(Y))).
# Adapted: dense1/dense2 (nn.LazyLinear) become w_1/w_2, nn.Linear with their input sizes;
#   AddNorm(X, Y), which takes the sublayer's output, becomes SublayerConnection(x, sublayer),
#   which calls the sublayer: ln(dropout(sublayer(x)) + x), ln named norm; addnorm1/addnorm2
#   become sublayer[0]/sublayer[1], attention becomes self_attn and ffn feed_forward;
#   valid_lens becomes the contract's (batch, 1, 1, seq) padding mask.
# From the reference (no counterpart: d2l uses nn.LayerNorm and its own d2l.MultiHeadAttention):
#   MultiHeadAttention, and LayerNorm as a subclass of nn.LayerNorm.
# Mistake kept: PositionWiseFFN has no dropout: the contract drops its hidden layer in training.
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, num_hiddens=512, num_heads=8, dropout=0.1):
        super().__init__()
        if num_hiddens % num_heads:
            raise ValueError("num_heads must divide num_hiddens")
        self.num_heads = num_heads
        self.Wq = nn.Linear(num_hiddens, num_hiddens)
        self.Wk = nn.Linear(num_hiddens, num_hiddens)
        self.Wv = nn.Linear(num_hiddens, num_hiddens)
        self.Wo = nn.Linear(num_hiddens, num_hiddens)
        self.dropout = nn.Dropout(dropout)

    def transpose_qkv(self, X):
        """Transposition for parallel computation of multiple attention heads."""
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        X = X.permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        """Reverse the operation of transpose_qkv."""
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    def forward(self, queries, keys, values, mask=None):
        queries = self.transpose_qkv(self.Wq(queries))
        keys = self.transpose_qkv(self.Wk(keys))
        values = self.transpose_qkv(self.Wv(values))
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        if mask is not None:
            blocked = (mask == 0).expand(-1, self.num_heads, scores.shape[1], -1).reshape(scores.shape)
            scores = scores.masked_fill(blocked, -1e6)
        attention_weights = nn.functional.softmax(scores, dim=-1)
        output = torch.bmm(self.dropout(attention_weights), values)
        batch = output.shape[0] // self.num_heads
        return self.Wo(self.transpose_output(output)), attention_weights.reshape(batch, self.num_heads, *scores.shape[1:])


class LayerNorm(nn.LayerNorm):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps=eps)


class PositionwiseFeedForward(nn.Module):
    """The positionwise feed-forward network."""

    def __init__(self, ffn_num_input, ffn_num_hiddens, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.w_2 = nn.Linear(ffn_num_hiddens, ffn_num_input)

    def forward(self, X):
        return self.w_2(self.relu(self.w_1(X)))


class SublayerConnection(nn.Module):
    """The residual connection followed by layer normalization."""

    def __init__(self, norm_shape, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.norm = LayerNorm(norm_shape)

    def forward(self, X, sublayer):
        return self.norm(self.dropout(sublayer(X)) + X)


class EncoderLayer(nn.Module):
    """The Transformer encoder block."""

    def __init__(self, num_hiddens=512, num_heads=8, ffn_num_hiddens=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(num_hiddens, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(num_hiddens, ffn_num_hiddens, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(num_hiddens, dropout), SublayerConnection(num_hiddens, dropout)])

    def forward(self, X, mask=None):
        Y = self.sublayer[0](X, lambda Z: self.self_attn(Z, Z, Z, mask)[0])
        return self.sublayer[1](Y, self.feed_forward)
