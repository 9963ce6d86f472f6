# The instructor's reference for the assignment `encoder_block`: the one place each exercise's
# code lives. Each top-level definition holding a "### BEGIN SOLUTION" region is one exercise;
# the rest (the imports and MultiHeadAttention) is given to students as it is.
# `python -m autograder build encoder_block` writes the stubs, the master notebook and the release.
"""One layer of the Transformer's encoder in PyTorch: layer norm, the position-wise
feed-forward network, the residual connection with its norm, and the layer itself.

Shapes: batch is the number of sequences, seq the number of tokens, d_model the width of
a token's vector, d_ff the width of the feed-forward network's hidden layer and n_heads
the number of attention heads.
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """Given, not an exercise (it is the `mha` assignment's Exercise 11, solved).

    Projects queries, keys and values with Wq, Wk, Wv, attends in n_heads heads of
    d_k = d_model // n_heads features each (``self.d_key``), joins the heads and projects with Wo.
    ``self.dropout`` acts on the attention weights.

    Shapes:
        query: (batch, q_len, d_model); key, value: (batch, k_len, d_model)
        mask: None, or broadcastable to (batch, n_heads, q_len, k_len); where it is
            False (or 0) the key is blocked. A padding mask is (batch, 1, 1, k_len).
        returns output (batch, q_len, d_model), attn_probs (batch, n_heads, q_len, k_len)
    """

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
    """Normalise each token's vector over its own features, then scale and shift it.

        LayerNorm(x) = weight * (x - mean) / sqrt(var + eps) + bias

    mean and var are taken over the last axis only (the d_model features of one token):
    each token is normalised on its own, never with other tokens or sequences. var is the
    biased variance, the mean of (x - mean)^2, dividing by d_model (``unbiased=False``;
    nn.LayerNorm does the same), and eps goes inside the square root.

    Args:
        d_model: the number of features of a token.
        eps: added to the variance, so that a token whose features are all equal does
            not divide by 0.

    Attributes:
        weight: nn.Parameter of shape (d_model,), starting at 1: the learned scale.
        bias: nn.Parameter of shape (d_model,), starting at 0: the learned shift.
        eps: the eps given.

    Shapes:
        x: (..., d_model) -> (..., d_model)
    """

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        ### BEGIN SOLUTION
        self.weight = nn.Parameter(torch.ones(d_model))  # (d_model,)
        self.bias = nn.Parameter(torch.zeros(d_model))  # (d_model,)
        self.eps = eps
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        var = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias  # (..., d_model)
        ### END SOLUTION


class PositionwiseFeedForward(nn.Module):
    """Two linear layers with a ReLU between them, applied to every token on its own.

        FFN(x) = w_2(dropout(relu(w_1(x))))

    1. w_1 widens each token from d_model to d_ff features (2048 for d_model = 512 in
       the paper),
    2. ReLU keeps the positive ones, max(0, h),
    3. ``self.dropout`` acts on that hidden layer (in training only),
    4. w_2 brings each token back to d_model features.

    Args:
        d_model: the width of a token's vector.
        d_ff: the width of the hidden layer.
        dropout: the probability of dropout on the hidden layer.

    Attributes:
        w_1: nn.Linear(d_model, d_ff), with bias.
        w_2: nn.Linear(d_ff, d_model), with bias.
        dropout: nn.Dropout(dropout).

    Shapes:
        x: (batch, seq, d_model) -> hidden (batch, seq, d_ff) -> (batch, seq, d_model)
    """

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        ### BEGIN SOLUTION
        self.w_1 = nn.Linear(d_model, d_ff)  # widens: weight (d_ff, d_model)
        self.w_2 = nn.Linear(d_ff, d_model)  # narrows back: weight (d_model, d_ff)
        self.dropout = nn.Dropout(p=dropout)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        hidden = self.dropout(torch.relu(self.w_1(x)))  # (batch, seq, d_ff)
        return self.w_2(hidden)  # (batch, seq, d_model)
        ### END SOLUTION


class SublayerConnection(nn.Module):
    """The residual connection around a sublayer, followed by layer norm: "Add & Norm".

        forward(x, sublayer) = norm(x + dropout(sublayer(x)))

    The sublayer's output goes through ``self.dropout``, is added to the sublayer's own
    input x (the residual), and the sum is normalised. This is post-norm, as in the
    paper. (Many implementations normalise first, x + dropout(sublayer(norm(x))): that
    is pre-norm, and not what this exercise asks for.)

    Args:
        d_model: the width of a token's vector.
        dropout: the probability of dropout on the sublayer's output.

    Attributes:
        norm: LayerNorm(d_model), your Exercise 1.
        dropout: nn.Dropout(dropout).

    Shapes:
        x: (batch, seq, d_model)
        sublayer: a function (a module, or a lambda) from (batch, seq, d_model) to
            (batch, seq, d_model)
        returns (batch, seq, d_model)
    """

    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        ### BEGIN SOLUTION
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(p=dropout)
        ### END SOLUTION

    def forward(self, x, sublayer):
        ### BEGIN SOLUTION
        return self.norm(x + self.dropout(sublayer(x)))  # (batch, seq, d_model)
        ### END SOLUTION


class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then the feed-forward network, each inside a SublayerConnection.

    1. x = sublayer[0](x, attend), where attend(y) is the output of
       self_attn(y, y, y, mask): self-attention, queries, keys and values all come from
       the same tokens. self_attn returns (output, attn_probs): attend keeps the output.
    2. return sublayer[1](x, feed_forward)

    Args:
        d_model: the width of a token's vector; n_heads must divide it.
        n_heads: the number of attention heads.
        d_ff: the width of the feed-forward network's hidden layer.
        dropout: the probability of every dropout in the layer.

    Attributes:
        self_attn: MultiHeadAttention(d_model, n_heads, dropout), given above.
        feed_forward: PositionwiseFeedForward(d_model, d_ff, dropout).
        sublayer: nn.ModuleList of two separate SublayerConnection(d_model, dropout),
            each with a norm of its own: [0] around the attention, [1] around the
            feed-forward network.

    Shapes:
        x: (batch, seq, d_model)
        mask: None, or (batch, 1, 1, seq): True for a real token, False for padding
        returns (batch, seq, d_model)
    """

    def __init__(self, d_model=512, n_heads=8, d_ff=2048, dropout=0.1):
        super().__init__()
        ### BEGIN SOLUTION
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])
        ### END SOLUTION

    def forward(self, x, mask=None):
        ### BEGIN SOLUTION
        x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])  # (batch, seq, d_model)
        return self.sublayer[1](x, self.feed_forward)  # (batch, seq, d_model)
        ### END SOLUTION
