import math

import torch
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.scale = math.sqrt(d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lut(x) * self.scale


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_length: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        positions = torch.arange(max_length).float().unsqueeze(-1)
        denominators = torch.pow(10000.0, torch.arange(0, d_model, 2).float() / d_model)
        pe = torch.zeros(1, max_length, d_model)
        pe[0, :, 0::2] = torch.sin(positions / denominators)
        pe[0, :, 1::2] = torch.cos(positions / denominators)
        self.register_buffer("pe", pe)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(x + self.pe[:, : x.size(1), :])
