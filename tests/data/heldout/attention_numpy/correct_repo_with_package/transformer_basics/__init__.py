from .functions import (
    softmax,
    basic_self_attention,
    qkv_attention,
    positional_encoding,
    multi_head_attention,
)
