"""attention homework package: import everything the grader needs from the submodules."""
from .text import tokenize, build_vocab, encode
from .layers import Embeddings, PositionalEncoding
from .attention import split_heads, combine_heads, scaled_dot_product_attention, MultiHeadAttention
from .masks import make_padding_mask, make_causal_mask
from .viz import display_attention

__all__ = [
    "tokenize", "build_vocab", "encode",
    "Embeddings", "PositionalEncoding",
    "split_heads", "combine_heads", "scaled_dot_product_attention", "MultiHeadAttention",
    "make_padding_mask", "make_causal_mask",
    "display_attention",
]
