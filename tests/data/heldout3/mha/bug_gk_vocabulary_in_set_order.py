# Source: graykode/nlp-tutorial, 5-1.Transformer/Transformer-Torch.py (the vocabularies,
#   get_sinusoid_encoding_table, get_attn_pad_mask, ScaledDotProductAttention, MultiHeadAttention,
#   showgraph).
# Adapted: names and signatures of the contract; the vocabulary ({w: i for i, w in
#   enumerate(set(...))}) is numbered from the sorted words after '<pad>' and '<unk>'; the sinusoid
#   table is a buffer added to the embeddings with dropout (the source looks it up with
#   nn.Embedding.from_pretrained); the module-level d_k = d_v = 64 stay, but the attention reads d_k
#   from its queries; masks are True where attending is allowed, (batch, 1, 1, seq) (the source's
#   get_attn_pad_mask is True on padding, (batch, len_q, len_k)) and attn_mask is called mask; the layer's W_Q, W_K, W_V and the
#   `nn.Linear(n_heads * d_v, d_model)` built in forward become Wq, Wk, Wv, Wo built once, without the
#   source's residual and LayerNorm; showgraph draws one heatmap per head on a Figure.
# From the reference (no counterpart in the source): tokenize, encode, Embeddings, split_heads,
#   combine_heads, make_causal_mask.
# Mistake kept: the words numbered in set order (the source's own vocabularies (enumerate(set(...)))); one edit of correct_graykode.py.
import math
import string

import numpy as np
import torch
import torch.nn as nn
from matplotlib.figure import Figure

d_model = 512  # Embedding Size
d_k = d_v = 64  # dimension of K(=Q), V
n_heads = 8  # number of heads in Multi-Head Attention

PAD = "<pad>"
UNK = "<unk>"


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


def build_vocab(texts):
    words = list(set(" ".join(" ".join(tokenize(text)) for text in texts).split()))
    vocab = {w: i + 2 for i, w in enumerate(words)}
    return {PAD: 0, UNK: 1, **vocab}


def encode(texts, stoi, max_length=None):
    ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)


def get_sinusoid_encoding_table(n_position, d_model):
    def cal_angle(position, hid_idx):
        return position / np.power(10000, 2 * (hid_idx // 2) / d_model)

    def get_posi_angle_vec(position):
        return [cal_angle(position, hid_j) for hid_j in range(d_model)]

    sinusoid_table = np.array([get_posi_angle_vec(pos_i) for pos_i in range(n_position)])
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1
    return torch.FloatTensor(sinusoid_table)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super(Embeddings, self).__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", get_sinusoid_encoding_table(max_length, d_model).unsqueeze(0))

    def forward(self, enc_outputs):
        return self.dropout(enc_outputs + self.pe[:, : enc_outputs.size(1)])


def scaled_dot_product_attention(Q, K, V, mask=None, dropout=None):
    scores = torch.matmul(Q, K.transpose(-1, -2)) / np.sqrt(Q.size(-1))  # scores : [batch_size x n_heads x len_q(=len_k) x len_k(=len_q)]
    if mask is not None:
        scores.masked_fill_(mask == 0, -1e9)
    attn = nn.Softmax(dim=-1)(scores)
    context = torch.matmul(attn if dropout is None else dropout(attn), V)
    return context, attn


def split_heads(x, n_heads):
    batch, seq, d_model = x.shape
    return x.reshape(batch, seq, n_heads, d_model // n_heads).transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.shape
    return x.transpose(1, 2).reshape(batch, seq, n_heads * d_key)


def make_padding_mask(token_ids, pad_id=0):
    return token_ids.data.ne(pad_id).unsqueeze(1).unsqueeze(1)  # batch_size x 1 x 1 x len_k


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super(MultiHeadAttention, self).__init__()
        if d_model % n_heads != 0:
            raise ValueError("n_heads must divide d_model")
        self.n_heads = n_heads
        self.d_k = self.d_v = d_model // n_heads
        self.Wq = nn.Linear(d_model, self.d_k * n_heads)
        self.Wk = nn.Linear(d_model, self.d_k * n_heads)
        self.Wv = nn.Linear(d_model, self.d_v * n_heads)
        self.Wo = nn.Linear(n_heads * self.d_v, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, Q, K, V, mask=None):
        # q: [batch_size x len_q x d_model], k: [batch_size x len_k x d_model], v: [batch_size x len_k x d_model]
        batch_size = Q.size(0)
        # (B, S, D) -proj-> (B, S, D) -split-> (B, S, H, W) -trans-> (B, H, S, W)
        q_s = self.Wq(Q).view(batch_size, -1, self.n_heads, self.d_k).transpose(1, 2)  # q_s: [batch_size x n_heads x len_q x d_k]
        k_s = self.Wk(K).view(batch_size, -1, self.n_heads, self.d_k).transpose(1, 2)  # k_s: [batch_size x n_heads x len_k x d_k]
        v_s = self.Wv(V).view(batch_size, -1, self.n_heads, self.d_v).transpose(1, 2)  # v_s: [batch_size x n_heads x len_k x d_v]

        # context: [batch_size x n_heads x len_q x d_v], attn: [batch_size x n_heads x len_q(=len_k) x len_k(=len_q)]
        context, attn = scaled_dot_product_attention(q_s, k_s, v_s, mask=mask, dropout=self.dropout)
        context = context.transpose(1, 2).contiguous().view(batch_size, -1, self.n_heads * self.d_v)  # context: [batch_size x len_q x n_heads * d_v]
        output = self.Wo(context)
        return output, attn


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attn = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence)).numpy()
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        image = ax.matshow(attn[head], cmap="bone", vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)), labels=sentence, fontdict={"fontsize": 14}, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation, fontdict={"fontsize": 14})
        ax.set_title(f"head {head}")
    fig.colorbar(image, ax=fig.axes)
    return fig
