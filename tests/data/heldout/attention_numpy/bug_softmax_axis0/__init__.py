from .ops import softmax, basic_self_attention, qkv_attention, multi_head_attention
from .posenc import positional_encoding
