# Source of the mistake: the annotated transformer's "Concat" line without its .contiguous()
#   (harvardnlp/annotated-transformer writes x.transpose(1, 2).contiguous().view(...); the
#   same line without it raises "view size is not compatible with input tensor's size and
#   stride", a question asked again and again on the PyTorch forums).
# The rest: as correct_annotated.py (its layer joins heads inline, with .contiguous()).
# Mistake kept: combine_heads calls .view on the transposed, non-contiguous tensor.
import copy
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


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super(Embeddings, self).__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    "Implement the PE function."

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)

        # Compute the positional encodings once in log space.
        pe = torch.zeros(max_length, d_model)
        position = torch.arange(0, max_length).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


def split_heads(x, n_heads):
    nbatches = x.size(0)
    return x.view(nbatches, -1, n_heads, x.size(-1) // n_heads).transpose(1, 2)


def combine_heads(x):
    nbatches, h, _, d_k = x.shape
    return x.transpose(1, 2).view(nbatches, -1, h * d_k)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    weights = p_attn if dropout is None else dropout(p_attn)
    return torch.matmul(weights, value), p_attn


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, 1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        "Take in model size and number of heads."
        super(MultiHeadAttention, self).__init__()
        assert d_model % n_heads == 0
        # We assume d_v always equals d_k
        self.d_k = d_model // n_heads
        self.h = n_heads
        self.Wq, self.Wk, self.Wv, self.Wo = clones(nn.Linear(d_model, d_model), 4)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        nbatches = query.size(0)

        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip((self.Wq, self.Wk, self.Wv), (query, key, value))
        ]

        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = scaled_dot_product_attention(query, key, value, mask=mask, dropout=self.dropout)

        # 3) "Concat" using a view and apply a final linear.
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        del query
        del key
        del value
        return self.Wo(x), self.attn


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
