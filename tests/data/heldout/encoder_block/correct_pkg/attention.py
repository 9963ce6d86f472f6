import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """Multi-head attention with einsum; the heads stay an axis of their own."""

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("n_heads must divide d_model")
        self.h = n_heads
        self.Wq, self.Wk, self.Wv, self.Wo = (nn.Linear(d_model, d_model) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        b, _, d = query.shape
        q = self.Wq(query).unflatten(-1, (self.h, -1))  # (b, q_len, h, d_k)
        k = self.Wk(key).unflatten(-1, (self.h, -1))  # (b, k_len, h, d_k)
        v = self.Wv(value).unflatten(-1, (self.h, -1))  # (b, k_len, h, d_k)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / (d // self.h) ** 0.5
        if mask is not None:
            scores = torch.where(mask.bool(), scores, torch.tensor(float("-inf"), device=scores.device))
        probs = scores.softmax(-1)
        out = torch.einsum("bhqk,bkhd->bqhd", self.dropout(probs), v).flatten(-2)  # (b, q_len, d)
        return self.Wo(out), probs
