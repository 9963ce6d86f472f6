"""Attention assignment."""
from .attention_lab import (
    tokenize, build_vocab, encode,
    Embeddings, PositionalEncoding,
    split_heads, combine_heads, scaled_dot_product_attention,
    MultiHeadAttention, make_padding_mask, make_causal_mask, display_attention,
)
