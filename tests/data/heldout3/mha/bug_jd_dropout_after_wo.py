# Source: jadore801120/attention-is-all-you-need-pytorch (transformer/Modules.py
#   ScaledDotProductAttention, transformer/SubLayers.py MultiHeadAttention, transformer/Models.py
#   PositionalEncoding, get_pad_mask, get_subsequent_mask).
# Adapted: names and signatures of the contract; ScaledDotProductAttention becomes a function whose
#   temperature is sqrt(d_k) of the queries given, and `k.transpose(2, 3)` becomes
#   `k.transpose(-2, -1)` (3-D inputs work); the weights are returned before dropout; w_qs, w_ks, w_vs,
#   fc become Wq, Wk, Wv, Wo with bias; the layer returns (Wo(heads), attn) without the source's
#   residual and layer norm, and the mask is not unsqueezed (the contract's masks are already 4-D);
#   the numpy sinusoid table is kept, registered as `pe`, with dropout after the sum; the masks get
#   the contract's 4-D bool shapes.
# From the reference (no counterpart in the source): tokenize, build_vocab, encode, Embeddings,
#   display_attention.
# Mistake kept: a second dropout after Wo (the source's own line (q = self.dropout(self.fc(q)))); one edit of correct_jadore.py.
import math
import string

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
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
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        # Not a parameter
        self.register_buffer("pe", self._get_sinusoid_encoding_table(max_length, d_model))

    def _get_sinusoid_encoding_table(self, n_position, d_hid):
        """Sinusoid position encoding table"""

        def get_position_angle_vec(position):
            return [position / np.power(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid)]

        sinusoid_table = np.array([get_position_angle_vec(pos_i) for pos_i in range(n_position)])
        sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
        sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1

        return torch.FloatTensor(sinusoid_table).unsqueeze(0)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)].clone().detach())


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    temperature = q.size(-1) ** 0.5
    attn = torch.matmul(q / temperature, k.transpose(-2, -1))

    if mask is not None:
        attn = attn.masked_fill(mask == 0, -1e9)

    attn = F.softmax(attn, dim=-1)
    output = torch.matmul(attn if dropout is None else dropout(attn), v)

    return output, attn


def split_heads(x, n_heads):
    sz_b, len_x, d_model = x.size()
    # Separate different heads: b x lq x n x dv, then b x n x lq x dv
    return x.view(sz_b, len_x, n_heads, d_model // n_heads).transpose(1, 2)


def combine_heads(x):
    sz_b, n_head, len_x, d_v = x.size()
    # Transpose to move the head dimension back: b x lq x n x dv; combine the last two dimensions
    return x.transpose(1, 2).contiguous().view(sz_b, len_x, -1)


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id).unsqueeze(-2).unsqueeze(1)


def make_causal_mask(size):
    return (1 - torch.triu(torch.ones((1, 1, size, size)), diagonal=1)).bool()


class MultiHeadAttention(nn.Module):
    """Multi-Head Attention module"""

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{d_model} is not a multiple of {n_heads}")
        self.n_head = n_heads
        self.d_k = d_model // n_heads

        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)

        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None):
        d_k, n_head = self.d_k, self.n_head
        sz_b, len_q, len_k, len_v = q.size(0), q.size(1), k.size(1), v.size(1)

        # Pass through the pre-attention projection: b x lq x (n*dv)
        # Separate different heads: b x lq x n x dv
        q = self.Wq(q).view(sz_b, len_q, n_head, d_k)
        k = self.Wk(k).view(sz_b, len_k, n_head, d_k)
        v = self.Wv(v).view(sz_b, len_v, n_head, d_k)

        # Transpose for attention dot product: b x n x lq x dv
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

        q, attn = scaled_dot_product_attention(q, k, v, mask=mask, dropout=self.dropout)

        # Transpose to move the head dimension back: b x lq x n x dv
        # Combine the last two dimensions to concatenate all the heads together: b x lq x (n*dv)
        q = q.transpose(1, 2).contiguous().view(sz_b, len_q, -1)
        q = self.dropout(self.Wo(q))
        return q, attn


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
