# Source: joeynmt/joeynmt, joeynmt/transformer_layers.py (MultiHeadedAttention, PositionalEncoding)
#   and joeynmt/embeddings.py (Embeddings, scaled by sqrt(embedding_dim)).
# Adapted: names and signatures of the contract; forward(k, v, q, mask) takes the contract's order
#   (query, key, value, mask) and returns (output, attention) with the weights before dropout;
#   k_layer, v_layer, q_layer, output_layer become Wk, Wv, Wq, Wo; the attention is the function
#   scaled_dot_product_attention (q scaled first, as in the source; `k.transpose(2, 3)` becomes
#   `k.transpose(-2, -1)`), called by the layer; the mask is not unsqueezed (the contract's masks are
#   already 4-D) and `~mask` becomes `mask == 0`, which is right for 0/1 masks too; the assert becomes
#   a ValueError; the positional table gets dropout after the sum.
# From the reference (no counterpart in the source): tokenize, build_vocab, encode, split_heads,
#   combine_heads, make_padding_mask, make_causal_mask, display_attention.
# Mistake kept: an extra head axis added to the 4-D mask (the source's own ~mask.unsqueeze(1)); one edit of correct_joeynmt.py.
import math
import string

import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

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
        self.embedding_dim = d_model
        self.lut = nn.Embedding(vocab_size, self.embedding_dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.lut(x) * math.sqrt(self.embedding_dim)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int = 0, dropout: float = 0.1, max_length: int = 5000) -> None:
        if d_model % 2 != 0:
            raise ValueError(f"Cannot use sin/cos positional encoding with odd dim (got dim={d_model})")
        pe = torch.zeros(max_length, d_model)
        position = torch.arange(0, max_length).unsqueeze(1)
        div_term = torch.exp((torch.arange(0, d_model, 2, dtype=torch.float) * -(math.log(10000.0) / d_model)))
        pe[:, 0::2] = torch.sin(position.float() * div_term)
        pe[:, 1::2] = torch.cos(position.float() * div_term)
        pe = pe.unsqueeze(0)  # shape: (1, max_len, size)
        super().__init__()
        self.register_buffer("pe", pe)
        self.dim = d_model
        self.dropout = nn.Dropout(dropout)

    def forward(self, emb: Tensor) -> Tensor:
        # Add position encodings
        return self.dropout(emb + self.pe[:, : emb.size(1)])


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    # compute scores
    q = q / math.sqrt(q.size(-1))
    # batch x num_heads x query_len x key_len
    scores = torch.matmul(q, k.transpose(-2, -1))
    # apply the mask (if we have one)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    # apply attention dropout and compute context vectors.
    attention = torch.softmax(scores, dim=-1)
    dropped = attention if dropout is None else dropout(attention)
    return torch.matmul(dropped, v), attention


def split_heads(x, n_heads):
    batch, seq, d_model = x.shape
    return x.reshape(batch, seq, n_heads, d_model // n_heads).transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.shape
    return x.transpose(1, 2).reshape(batch, seq, n_heads * d_key)


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]


class MultiHeadAttention(nn.Module):
    """
    Multi-Head Attention module from "Attention is All You Need"
    """

    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be divisible by n_heads")

        self.head_size = head_size = d_model // n_heads
        self.model_size = d_model
        self.num_heads = n_heads

        self.Wk = nn.Linear(d_model, n_heads * head_size)
        self.Wv = nn.Linear(d_model, n_heads * head_size)
        self.Wq = nn.Linear(d_model, n_heads * head_size)

        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, mask=None):
        batch_size = key.size(0)
        num_heads = self.num_heads

        # project the queries (q), keys (k), and values (v)
        k = self.Wk(key)
        v = self.Wv(value)
        q = self.Wq(query)

        # reshape q, k, v for our computation to [batch_size, num_heads, ..]
        k = k.view(batch_size, -1, num_heads, self.head_size).transpose(1, 2)
        v = v.view(batch_size, -1, num_heads, self.head_size).transpose(1, 2)
        q = q.view(batch_size, -1, num_heads, self.head_size).transpose(1, 2)

        context, attention = scaled_dot_product_attention(q, k, v, None if mask is None else mask.unsqueeze(1), self.dropout)

        # get context vector (select values with attention) and reshape back to [B, M, D]
        context = context.transpose(1, 2).contiguous().view(batch_size, -1, num_heads * self.head_size)

        output = self.Wo(context)
        return output, attention


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
