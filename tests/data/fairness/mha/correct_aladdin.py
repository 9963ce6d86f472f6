# Source: aladdinpersson/Machine-Learning-Collection, ML/Pytorch/more_advanced/transformer_from_scratch/
#   transformer_from_scratch.py (SelfAttention: values/keys/queries reshaped to
#   (N, len, heads, head_dim) without a transpose, `torch.einsum("nqhd,nkhd->nhqk", ...)`,
#   `energy.masked_fill(mask == 0, float("-1e20"))`, `torch.softmax(..., dim=3)`,
#   `torch.einsum("nhql,nlhd->nqhd", ...).reshape(N, query_len, heads * head_dim)`, fc_out).
# Adapted: values/keys/queries/fc_out become Wv/Wk/Wq/Wo, each Linear(embed_size, embed_size)
#   as in the repository's later version; the scale is sqrt(head_dim) (the file divides by
#   embed_size ** (1 / 2), which the contract does not allow) and the softmax axis is the
#   last one (dim=3 there, on 4-D energies; the free function below must also take 3-D
#   inputs); the layer applies self.dropout to the weights and returns them;
#   `assert (self.head_dim * heads == embed_size), "Embedding size needs to be divisible by heads"` stays.
# From the reference (no counterpart: the file uses learned positions and no tokenizer):
#   tokenize, build_vocab, encode, Embeddings' scale, PositionalEncoding,
#   make_padding_mask's shape, display_attention.
# Mistake kept: none.
import math
import string

import torch
import torch.nn as nn
from matplotlib.figure import Figure


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    words = sorted({token for text in texts for token in tokenize(text)})
    stoi = {"<pad>": 0, "<unk>": 1}
    for word in words:
        stoi[word] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    ids = [[stoi.get(token, stoi["<unk>"]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi["<pad>"]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embed_size = d_model
        self.lut = nn.Embedding(vocab_size, d_model)  # word_embedding

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.embed_size)


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


def split_heads(x, heads):
    N, length, embed_size = x.shape
    # Split the embedding into self.heads different pieces
    x = x.reshape(N, length, heads, embed_size // heads)  # (N, length, heads, head_dim)
    return torch.einsum("nlhd->nhld", x)


def combine_heads(x):
    N, heads, query_len, head_dim = x.shape
    return torch.einsum("nhqd->nqhd", x).reshape(N, query_len, heads * head_dim)


def scaled_dot_product_attention(queries, keys, values, mask=None, dropout=None):
    head_dim = queries.shape[-1]
    energy = torch.einsum("...qd,...kd->...qk", queries, keys)
    # Mask padded indices so their weights become 0
    if mask is not None:
        energy = energy.masked_fill(mask == 0, float("-1e20"))
    # Normalize energy values similarly to seq2seq + attention
    # so that they sum to 1. Also divide by scaling factor for
    # better stability
    attention = torch.softmax(energy / (head_dim ** (1 / 2)), dim=-1)
    out = torch.einsum("...ql,...ld->...qd", attention if dropout is None else dropout(attention), values)
    return out, attention


def make_padding_mask(token_ids, pad_id=0):
    src_mask = (token_ids != pad_id).unsqueeze(1).unsqueeze(2)
    # (N, 1, 1, src_len)
    return src_mask


def make_causal_mask(size):
    trg_mask = torch.tril(torch.ones((size, size))).expand(1, 1, size, size)
    return trg_mask


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        embed_size, heads = d_model, n_heads
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads

        assert (self.head_dim * heads == embed_size), "Embedding size needs to be divisible by heads"

        self.Wv = nn.Linear(embed_size, embed_size)
        self.Wk = nn.Linear(embed_size, embed_size)
        self.Wq = nn.Linear(embed_size, embed_size)
        self.Wo = nn.Linear(embed_size, embed_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, keys, values, mask=None):
        # Get number of training examples
        N = query.shape[0]

        value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]

        values = self.Wv(values)  # (N, value_len, embed_size)
        keys = self.Wk(keys)  # (N, key_len, embed_size)
        queries = self.Wq(query)  # (N, query_len, embed_size)

        # Split the embedding into self.heads different pieces
        values = values.reshape(N, value_len, self.heads, self.head_dim)
        keys = keys.reshape(N, key_len, self.heads, self.head_dim)
        queries = queries.reshape(N, query_len, self.heads, self.head_dim)

        # Einsum does matrix mult. for query*keys for each training example
        # with every other training example, don't be confused by einsum
        # it's just how I like doing matrix multiplication & bmm

        energy = torch.einsum("nqhd,nkhd->nhqk", [queries, keys])
        # queries shape: (N, query_len, heads, heads_dim),
        # keys shape: (N, key_len, heads, heads_dim)
        # energy: (N, heads, query_len, key_len)

        # Mask padded indices so their weights become 0
        if mask is not None:
            energy = energy.masked_fill(mask == 0, float("-1e20"))

        # Normalize energy values similarly to seq2seq + attention
        # so that they sum to 1. Also divide by scaling factor for
        # better stability
        attention = torch.softmax(energy / (self.head_dim ** (1 / 2)), dim=3)
        # attention shape: (N, heads, query_len, key_len)

        out = torch.einsum("nhql,nlhd->nqhd", [self.dropout(attention), values]).reshape(
            N, query_len, self.heads * self.head_dim
        )
        # attention shape: (N, heads, query_len, key_len)
        # values shape: (N, value_len, heads, heads_dim)
        # out after matrix multiply: (N, query_len, heads, head_dim), then
        # we reshape and flatten the last two dimensions.

        out = self.Wo(out)
        # Linear layer doesn't modify the shape, final shape will be
        # (N, query_len, embed_size)

        return out, attention


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
