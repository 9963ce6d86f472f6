"""attention_numpy solution, split into small modules."""
from .core import softmax
from .attention import basic_self_attention, qkv_attention, multi_head_attention
from .encoding import positional_encoding

__all__ = [
    "softmax",
    "basic_self_attention",
    "qkv_attention",
    "positional_encoding",
    "multi_head_attention",
]
