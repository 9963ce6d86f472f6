"""My encoder layer, split into modules."""

from .attention import MultiHeadAttention
from .blocks import EncoderLayer, PositionwiseFeedForward, SublayerConnection
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "LayerNorm", "PositionwiseFeedForward", "SublayerConnection", "EncoderLayer"]
