# Source of the mistake: bentrevett/pytorch-seq2seq, "6 - Attention is All You Need.ipynb"
#   (display_attention: `cax = ax.matshow(_attention, cmap='bone')`, no vmin/vmax).
# The rest: as correct_bentrevett.py.
# Mistake kept: each head's colours are scaled to its own min and max, so the same shade
#   means different weights in different heads (the contract asks for vmin=0, vmax=1).
import string

import matplotlib.pyplot as plt
import matplotlib.ticker as ticker
import torch
import torch.nn as nn


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
    batch = []
    for sentence in texts:
        tokens = tokenize(sentence)
        src_indexes = [stoi.get(token, stoi["<unk>"]) for token in tokens]
        batch.append(src_indexes)
    length = max_length if max_length is not None else max(len(row) for row in batch)
    rows = [row[:length] + [stoi["<pad>"]] * (length - len(row[:length])) for row in batch]
    return torch.LongTensor(rows)


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.scale = torch.sqrt(torch.FloatTensor([d_model]))

    def forward(self, src):
        return self.lut(src) * self.scale.to(src.device)


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


def split_heads(Q, n_heads):
    batch_size, _, hid_dim = Q.shape
    head_dim = hid_dim // n_heads
    return Q.view(batch_size, -1, n_heads, head_dim).permute(0, 2, 1, 3)


def combine_heads(x):
    batch_size, n_heads, _, head_dim = x.shape
    x = x.permute(0, 2, 1, 3).contiguous()
    # x = [batch size, query len, n heads, head dim]
    return x.view(batch_size, -1, n_heads * head_dim)


def scaled_dot_product_attention(Q, K, V, mask=None, dropout=None):
    scale = torch.sqrt(torch.tensor([Q.shape[-1]], dtype=Q.dtype, device=Q.device))
    energy = torch.matmul(Q, K.transpose(-2, -1)) / scale
    # energy = [batch size, n heads, query len, key len]
    if mask is not None:
        energy = energy.masked_fill(mask == 0, -1e10)
    attention = torch.softmax(energy, dim=-1)
    # attention = [batch size, n heads, query len, key len]
    x = torch.matmul(attention if dropout is None else dropout(attention), V)
    return x, attention


def make_padding_mask(token_ids, pad_id=0):
    # src_mask = [batch size, 1, 1, src len]
    return (token_ids != pad_id).unsqueeze(1).unsqueeze(2)


def make_causal_mask(size):
    trg_sub_mask = torch.tril(torch.ones((size, size))).bool()
    # trg_sub_mask = [trg len, trg len]
    return trg_sub_mask.unsqueeze(0).unsqueeze(1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        hid_dim = d_model
        assert hid_dim % n_heads == 0

        self.hid_dim = hid_dim
        self.n_heads = n_heads
        self.head_dim = hid_dim // n_heads

        self.Wq = nn.Linear(hid_dim, hid_dim)
        self.Wk = nn.Linear(hid_dim, hid_dim)
        self.Wv = nn.Linear(hid_dim, hid_dim)

        self.Wo = nn.Linear(hid_dim, hid_dim)

        self.dropout = nn.Dropout(dropout)

        self.scale = torch.sqrt(torch.FloatTensor([self.head_dim]))

    def forward(self, query, key, value, mask=None):
        batch_size = query.shape[0]

        # query = [batch size, query len, hid dim]
        Q = self.Wq(query)
        K = self.Wk(key)
        V = self.Wv(value)

        Q = Q.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        K = K.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        V = V.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)

        energy = torch.matmul(Q, K.permute(0, 1, 3, 2)) / self.scale.to(Q.device)

        if mask is not None:
            energy = energy.masked_fill(mask == 0, -1e10)

        attention = torch.softmax(energy, dim=-1)

        x = torch.matmul(self.dropout(attention), V)
        x = x.permute(0, 2, 1, 3).contiguous()
        x = x.view(batch_size, -1, self.hid_dim)
        x = self.Wo(x)

        return x, attention


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    assert n_rows * n_cols >= n_heads

    fig = plt.figure(figsize=(15, 25))

    for i in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, i + 1)

        _attention = attention.reshape(n_heads, len(translation), len(sentence))[i].cpu().detach().numpy()

        cax = ax.matshow(_attention, cmap='bone')  # noqa: F841

        ax.tick_params(labelsize=12)
        ax.set_xticklabels([''] + [t.lower() for t in sentence], rotation=45)
        ax.set_yticklabels([''] + translation)

        ax.xaxis.set_major_locator(ticker.MultipleLocator(1))
        ax.yaxis.set_major_locator(ticker.MultipleLocator(1))

    plt.close(fig)
    return fig
