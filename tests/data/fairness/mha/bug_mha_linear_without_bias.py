# Source of the mistake: rasbt/LLMs-from-scratch, ch03 MultiHeadAttention (qkv_bias=False
#   by default, as in GPT-style code; CS336 also asks for bias-free projections).
# The rest: as correct_raschka.py.
# Mistake kept: Wq, Wk and Wv have no bias (Wo keeps one).
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    all_words = sorted(set(token for text in texts for token in tokenize(text)))
    vocab = {token: integer + 2 for integer, token in enumerate(all_words)}
    vocab.update({"<pad>": 0, "<unk>": 1})
    return vocab


def encode(texts, stoi, max_length=None):
    token_ids = [[stoi[s] if s in stoi else stoi["<unk>"] for s in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(ids) for ids in token_ids)
    rows = [ids[:length] + [stoi["<pad>"]] * (length - len(ids[:length])) for ids in token_ids]
    return torch.tensor(rows, dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, in_idx):
        return self.lut(in_idx) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_length, dtype=torch.float64).unsqueeze(1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
        angle = position / 10000 ** (two_i / d_model)
        pe = torch.zeros(max_length, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle)
        self.register_buffer("pe", pe.unsqueeze(0).float())

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


def split_heads(x, num_heads):
    b, num_tokens, d_out = x.shape
    # We implicitly split the matrix by adding a `num_heads` dimension
    # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
    x = x.view(b, num_tokens, num_heads, d_out // num_heads)
    # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
    return x.transpose(1, 2)


def combine_heads(context_vec):
    b, num_heads, num_tokens, head_dim = context_vec.shape
    # Shape: (b, num_tokens, num_heads, head_dim)
    context_vec = context_vec.transpose(1, 2)
    # Combine heads, where self.d_out = self.num_heads * self.head_dim
    return context_vec.contiguous().view(b, num_tokens, num_heads * head_dim)


def scaled_dot_product_attention(queries, keys, values, mask=None, dropout=None):
    # Compute scaled dot-product attention (aka self-attention) with a causal mask
    attn_scores = queries @ keys.transpose(-2, -1)  # Dot product for each head
    if mask is not None:
        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask == 0, -torch.inf)
    attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
    dropped = attn_weights if dropout is None else dropout(attn_weights)
    context_vec = dropped @ values
    return context_vec, attn_weights


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    mask = torch.triu(torch.ones(size, size), diagonal=1)
    return (mask == 0)[None, None]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1, qkv_bias=False):
        super().__init__()
        d_in = d_out = d_model
        num_heads = n_heads
        assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.Wq = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.Wk = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.Wv = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.Wo = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        b, num_tokens, d_in = query.shape

        keys = self.Wk(key)  # Shape: (b, num_tokens, d_out)
        queries = self.Wq(query)
        values = self.Wv(value)

        keys = split_heads(keys, self.num_heads)
        queries = split_heads(queries, self.num_heads)
        values = split_heads(values, self.num_heads)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        if mask is not None:
            # Use the mask to fill attention scores
            attn_scores.masked_fill_(mask == 0, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (self.dropout(attn_weights) @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.Wo(context_vec)  # optional projection

        return context_vec, attn_weights


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        ax.matshow(attention[head].numpy(), cmap="bone", vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
        ax.set_title(f"head {head}")
    return fig
