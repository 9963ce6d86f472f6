# Source: phlippe/uvadlc_notebooks, docs/tutorial_notebooks/tutorial6/Transformers_and_MHAttention.ipynb
#   (scaled_dot_product: attn_logits / math.sqrt(d_k), masked_fill(mask == 0, -9e15),
#   F.softmax(dim=-1); expand_mask; MultiheadAttention with reset_parameters and
#   xavier_uniform_; PositionalEncoding with register_buffer('pe', pe, persistent=False)).
# Adapted: the fused qkv_proj (Linear(input_dim, 3*embed_dim), reshaped and chunked per
#   head) becomes Wq/Wk/Wv because the contract passes separate query/key/value; o_proj is
#   Wo; the tutorial has no dropout in its attention or its positional encoding, so
#   self.dropout is added where the contract puts it (on the weights, and after adding the
#   table); the layer returns (o, attention) always (the tutorial's return_attention flag);
#   `assert embed_dim % num_heads == 0` stays; expand_mask is kept for 2-D and 3-D masks.
# From the reference (no counterpart in the tutorial): tokenize, build_vocab, encode,
#   Embeddings, make_padding_mask, make_causal_mask, display_attention.
# Mistake kept: none.
import math
import string

import torch
import torch.nn as nn
import torch.nn.functional as F
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
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        """
        Inputs
            d_model - Hidden dimensionality of the input.
            max_len - Maximum length of a sequence to expect.
        """
        super().__init__()
        max_len = max_length

        # Create matrix of [SeqLen, HiddenDim] representing the positional encoding for max_len inputs
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)

        # register_buffer => Tensor which is not a parameter, but should be part of the modules state.
        # Used for tensors that need to be on the same device as the module.
        # persistent=False tells PyTorch to not add the buffer to the state dict (e.g. when we save the model)
        self.register_buffer('pe', pe, persistent=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return self.dropout(x)


def split_heads(x, num_heads):
    batch_size, seq_length, embed_dim = x.size()
    x = x.reshape(batch_size, seq_length, num_heads, embed_dim // num_heads)
    return x.permute(0, 2, 1, 3)  # [Batch, Head, SeqLen, Dims]


def combine_heads(values):
    batch_size, num_heads, seq_length, head_dim = values.size()
    values = values.permute(0, 2, 1, 3)  # [Batch, SeqLen, Head, Dims]
    return values.reshape(batch_size, seq_length, num_heads * head_dim)


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    d_k = q.size()[-1]
    attn_logits = torch.matmul(q, k.transpose(-2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
    attention = F.softmax(attn_logits, dim=-1)
    values = torch.matmul(attention if dropout is None else dropout(attention), v)
    return values, attention


def expand_mask(mask):
    assert mask.ndim >= 2, "Mask must be at least 2-dimensional with seq_length x seq_length"
    if mask.ndim == 3:
        mask = mask.unsqueeze(1)
    while mask.ndim < 4:
        mask = mask.unsqueeze(0)
    return mask


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]


class MultiHeadAttention(nn.Module):

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        embed_dim, num_heads = d_model, n_heads
        assert embed_dim % num_heads == 0, "Embedding dimension must be 0 modulo number of heads."

        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads

        # Stack all weight matrices 1...h together for efficiency
        # Note that in many implementations you see "bias=False" which is optional
        self.Wq = nn.Linear(embed_dim, embed_dim)
        self.Wk = nn.Linear(embed_dim, embed_dim)
        self.Wv = nn.Linear(embed_dim, embed_dim)
        self.Wo = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)

        self._reset_parameters()

    def _reset_parameters(self):
        # Original Transformer initialization, see PyTorch documentation
        for layer in (self.Wq, self.Wk, self.Wv, self.Wo):
            nn.init.xavier_uniform_(layer.weight)
            layer.bias.data.fill_(0)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = expand_mask(mask)

        # Separate Q, K, V from linear output
        q = split_heads(self.Wq(query), self.num_heads)
        k = split_heads(self.Wk(key), self.num_heads)
        v = split_heads(self.Wv(value), self.num_heads)

        # Determine value outputs
        values, attention = scaled_dot_product_attention(q, k, v, mask=mask, dropout=self.dropout)
        values = combine_heads(values)
        o = self.Wo(values)

        return o, attention


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
