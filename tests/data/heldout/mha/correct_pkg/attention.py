import math
from typing import Optional, Tuple

import torch
from torch import nn


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    # (batch, seq, d_model) -> (batch, seq, n_heads, d_key) -> (batch, n_heads, seq, d_key)
    return x.unflatten(-1, (n_heads, -1)).transpose(1, 2)


def combine_heads(x: torch.Tensor) -> torch.Tensor:
    # (batch, n_heads, seq, d_key) -> (batch, seq, n_heads, d_key) -> (batch, seq, d_model)
    return x.transpose(1, 2).flatten(start_dim=2)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None) -> Tuple[torch.Tensor, torch.Tensor]:
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = torch.where(mask.bool(), scores, scores.new_tensor(float("-inf")))
    attn_probs = scores.softmax(dim=-1)
    used = attn_probs if dropout is None else dropout(attn_probs)
    return used @ value, attn_probs


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1):
        super().__init__()
        assert d_model % n_heads == 0, f"cannot split d_model={d_model} into {n_heads} heads"
        self.n_heads = n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def _project(self, layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
        return split_heads(layer(x), self.n_heads)

    def forward(self, query, key, value, mask: Optional[torch.Tensor] = None):
        Q = self._project(self.Wq, query)
        K = self._project(self.Wk, key)
        V = self._project(self.Wv, value)
        context, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)
        return self.Wo(combine_heads(context)), attn_probs
