# Source: hkproj/pytorch-transformer, model.py (InputEmbeddings, PositionalEncoding,
#   MultiHeadAttentionBlock, causal_mask).
# Adapted: names and signatures of the contract; InputEmbeddings' embedding becomes lut;
#   MultiHeadAttentionBlock's static attention becomes scaled_dot_product_attention, which returns the
#   weights as they were before dropout (the source returns them after); w_q, w_k, w_v, w_o become
#   Wq, Wk, Wv, Wo; the assert on divisibility becomes a ValueError; forward returns
#   (output, attention_scores); causal_mask's (1, size, size) gets the contract's head axis.
# From the reference (no counterpart in the source): tokenize, build_vocab, encode, split_heads,
#   combine_heads (the layer does both inline), make_padding_mask, display_attention.
# Mistake kept: div_term with log10(10000) (a slip of the family: log10); one edit of correct_hkproj.py.
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure

PAD = "<pad>"
UNK = "<unk>"


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    words = sorted({token for text in texts for token in tokenize(text)})
    stoi = {PAD: 0, UNK: 1}
    for word in words:
        stoi[word] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.vocab_size = vocab_size
        self.lut = nn.Embedding(vocab_size, d_model)

    def forward(self, x):
        # (batch, seq_len) --> (batch, seq_len, d_model)
        # Multiply by sqrt(d_model) to scale the embeddings according to the paper
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_length: int = 5000) -> None:
        super().__init__()
        self.d_model = d_model
        self.seq_len = max_length
        self.dropout = nn.Dropout(dropout)
        # Create a matrix of shape (seq_len, d_model)
        pe = torch.zeros(max_length, d_model)
        # Create a vector of shape (seq_len)
        position = torch.arange(0, max_length, dtype=torch.float).unsqueeze(1)  # (seq_len, 1)
        # Create a vector of shape (d_model)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log10(10000.0) / d_model))  # (d_model / 2)
        # Apply sine to even indices
        pe[:, 0::2] = torch.sin(position * div_term)
        # Apply cosine to odd indices
        pe[:, 1::2] = torch.cos(position * div_term)
        # Add a batch dimension to the positional encoding
        pe = pe.unsqueeze(0)  # (1, seq_len, d_model)
        # Register the positional encoding as a buffer
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + (self.pe[:, : x.shape[1], :]).requires_grad_(False)  # (batch, seq_len, d_model)
        return self.dropout(x)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.shape[-1]
    # Just apply the formula from the paper
    # (batch, h, seq_len, d_k) --> (batch, h, seq_len, seq_len)
    attention_scores = (query @ key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        # Write a very low value (indicating -inf) to the positions where mask == 0
        attention_scores.masked_fill_(mask == 0, -1e9)
    attention_scores = attention_scores.softmax(dim=-1)  # (batch, h, seq_len, seq_len) # Apply softmax
    weights = attention_scores
    if dropout is not None:
        weights = dropout(attention_scores)
    # (batch, h, seq_len, seq_len) --> (batch, h, seq_len, d_k)
    return (weights @ value), attention_scores


def split_heads(x, n_heads):
    batch, seq, d_model = x.shape
    return x.reshape(batch, seq, n_heads, d_model // n_heads).transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.shape
    return x.transpose(1, 2).reshape(batch, seq, n_heads * d_key)


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    mask = torch.triu(torch.ones((1, 1, size, size)), diagonal=1).type(torch.int)
    return mask == 0


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1) -> None:
        super().__init__()
        self.d_model = d_model  # Embedding vector size
        self.h = n_heads  # Number of heads
        # Make sure d_model is divisible by h
        if d_model % n_heads != 0:
            raise ValueError("d_model is not divisible by h")

        self.d_k = d_model // n_heads  # Dimension of vector seen by each head
        self.Wq = nn.Linear(d_model, d_model)  # Wq
        self.Wk = nn.Linear(d_model, d_model)  # Wk
        self.Wv = nn.Linear(d_model, d_model)  # Wv
        self.Wo = nn.Linear(d_model, d_model)  # Wo
        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None):
        query = self.Wq(q)  # (batch, seq_len, d_model) --> (batch, seq_len, d_model)
        key = self.Wk(k)  # (batch, seq_len, d_model) --> (batch, seq_len, d_model)
        value = self.Wv(v)  # (batch, seq_len, d_model) --> (batch, seq_len, d_model)

        # (batch, seq_len, d_model) --> (batch, seq_len, h, d_k) --> (batch, h, seq_len, d_k)
        query = query.view(query.shape[0], query.shape[1], self.h, self.d_k).transpose(1, 2)
        key = key.view(key.shape[0], key.shape[1], self.h, self.d_k).transpose(1, 2)
        value = value.view(value.shape[0], value.shape[1], self.h, self.d_k).transpose(1, 2)

        # Calculate attention
        x, self.attention_scores = scaled_dot_product_attention(query, key, value, mask, self.dropout)

        # Combine all the heads together
        # (batch, h, seq_len, d_k) --> (batch, seq_len, h, d_k) --> (batch, seq_len, d_model)
        x = x.transpose(1, 2).contiguous().view(x.shape[0], -1, self.h * self.d_k)

        # Multiply by Wo
        # (batch, seq_len, d_model) --> (batch, seq_len, d_model)
        return self.Wo(x), self.attention_scores


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        image = ax.matshow(attention[head].numpy(), cmap="bone", vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
        ax.set_title(f"head {head}")
    fig.colorbar(image, ax=fig.axes)
    return fig
