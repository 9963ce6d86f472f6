# Source: hyunwoongko/transformer (models/layers/scale_dot_product_attention.py,
#   models/layers/multi_head_attention.py, models/embedding/positional_encoding.py,
#   models/embedding/token_embeddings.py, models/model/transformer.py make_src_mask / make_trg_mask).
# Adapted: names and signatures of the contract; ScaleDotProductAttention becomes the function
#   scaled_dot_product_attention (its `batch_size, head, length, d_tensor = k.size()` reads d_tensor
#   from the last axis only, and `k.transpose(2, 3)` becomes `k.transpose(-2, -1)`, so that 3-D inputs
#   work; dropout on the weights, which the source leaves to the caller); MultiHeadAttention's
#   split/concat become split_heads/combine_heads; w_q, w_k, w_v, w_concat become Wq, Wk, Wv, Wo; the
#   constructor checks divisibility; the positional table is a buffer (1, max_len, d_model) added in
#   forward (the source returns the slice for the caller to add); TokenEmbedding (nn.Embedding with
#   padding_idx=1) becomes Embeddings with lut, scaled by sqrt(d_model); the masks get the contract's
#   4-D bool shapes.
# From the reference (no counterpart in the source): tokenize, build_vocab, encode, display_attention.
# Mistake kept: nn.Softmax() without dim (the source's 2019 version (self.softmax = nn.Softmax())); one edit of correct_hyunwoongko.py.
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
    def __init__(self, vocab_size, d_model):
        super(Embeddings, self).__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    """
    compute sinusoid encoding.
    """

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        encoding = torch.zeros(max_length, d_model)

        pos = torch.arange(0, max_length)
        pos = pos.float().unsqueeze(dim=1)

        _2i = torch.arange(0, d_model, step=2).float()

        encoding[:, 0::2] = torch.sin(pos / 10000 ** (_2i / d_model))
        encoding[:, 1::2] = torch.cos(pos / 10000 ** (_2i / d_model))
        self.register_buffer("pe", encoding.unsqueeze(0))

    def forward(self, x):
        batch_size, seq_len, _ = x.size()
        return self.dropout(x + self.pe[:, :seq_len, :])


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    # input is 4 dimension tensor
    # [batch_size, head, length, d_tensor]
    d_tensor = k.size(-1)

    # 1. dot product Query with Key^T to compute similarity
    k_t = k.transpose(-2, -1)
    score = (q @ k_t) / math.sqrt(d_tensor)

    # 2. apply masking (opt)
    if mask is not None:
        score = score.masked_fill(mask == 0, -10000)

    # 3. pass them softmax to make [0, 1] range
    score = nn.Softmax()(score)

    # 4. multiply with Value
    weights = score if dropout is None else dropout(score)
    v = weights @ v
    return v, score


def split_heads(tensor, n_heads):
    batch_size, length, d_model = tensor.size()
    d_tensor = d_model // n_heads
    tensor = tensor.view(batch_size, length, n_heads, d_tensor).transpose(1, 2)
    return tensor


def combine_heads(tensor):
    batch_size, head, length, d_tensor = tensor.size()
    d_model = head * d_tensor
    tensor = tensor.transpose(1, 2).contiguous().view(batch_size, length, d_model)
    return tensor


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id).unsqueeze(1).unsqueeze(2)


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size)).type(torch.bool).unsqueeze(0).unsqueeze(1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super(MultiHeadAttention, self).__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be divisible by n_heads")
        self.n_head = n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, q, k, v, mask=None):
        # 1. dot product with weight matrices
        q, k, v = self.Wq(q), self.Wk(k), self.Wv(v)

        # 2. split tensor by number of heads
        q, k, v = split_heads(q, self.n_head), split_heads(k, self.n_head), split_heads(v, self.n_head)

        # 3. do scale dot product to compute similarity
        out, attention = scaled_dot_product_attention(q, k, v, mask=mask, dropout=self.dropout)

        # 4. concat and pass to linear layer
        out = combine_heads(out)
        out = self.Wo(out)
        return out, attention


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
