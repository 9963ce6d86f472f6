# mha_submission.py  --  CS-xxx assignment 3
import math
import string

import torch
import torch.nn as nn
import torch.nn.functional as F
import matplotlib.pyplot as plt

TABLE = str.maketrans("", "", string.punctuation)


def tokenize(text):
    return text.lower().translate(TABLE).split()


def build_vocab(texts):
    stoi = {"<pad>": 0, "<unk>": 1}
    for word in sorted(set(sum((tokenize(t) for t in texts), []))):
        stoi[word] = len(stoi)
    return stoi


def encode(texts, stoi, max_length=None):
    seqs = [[stoi.get(w, stoi["<unk>"]) for w in tokenize(t)] for t in texts]
    if max_length is None:
        max_length = max((len(s) for s in seqs), default=0)
    out = torch.full((len(seqs), max_length), stoi["<pad>"], dtype=torch.long)
    for i, s in enumerate(seqs):
        n = min(len(s), max_length)
        if n:
            out[i, :n] = torch.tensor(s[:n])
    return out


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, d_model, 2).float() / d_model))
        pos = torch.arange(max_length).float()
        angles = pos[:, None] * inv_freq[None, :]
        pe = torch.zeros(max_length, d_model)
        pe[:, 0::2] = torch.sin(angles)
        pe[:, 1::2] = torch.cos(angles)
        self.register_buffer("pe", pe[None])

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


def split_heads(x, n_heads):
    batch, seq, d_model = x.size()
    return x.view(batch, seq, n_heads, d_model // n_heads).transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.size()
    return x.transpose(1, 2).contiguous().view(batch, seq, n_heads * d_key)


def _as_batches(t, lead):
    """expand leading dims and flatten them so torch.bmm can be used"""
    return t.expand(*lead, *t.shape[-2:]).reshape(-1, *t.shape[-2:])


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    q_len, d_k = query.shape[-2:]
    k_len, d_v = value.shape[-2:]
    lead = torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    q, k, v = (_as_batches(t, lead) for t in (query, key, value))
    scores = torch.bmm(q, k.transpose(1, 2)).view(*lead, q_len, k_len) / math.sqrt(d_k)
    if mask:
        # additive mask: 0 where allowed, -1e9 where blocked
        scores = scores + (mask == 0).to(scores.dtype) * -1e9
    attn_probs = F.softmax(scores, dim=-1)
    weights = dropout(attn_probs) if dropout is not None else attn_probs
    out = torch.bmm(_as_batches(weights, lead), v).view(*lead, q_len, d_v)
    return out, attn_probs


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be a multiple of n_heads")
        self.d_model, self.n_heads = d_model, n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        Q, K, V = (split_heads(W(x), self.n_heads)
                   for W, x in ((self.Wq, query), (self.Wk, key), (self.Wv, value)))
        heads, attn_probs = scaled_dot_product_attention(Q, K, V, mask=mask, dropout=self.dropout)
        return self.Wo(combine_heads(heads)), attn_probs


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id).unsqueeze(-2).unsqueeze(-2)


def make_causal_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool)).expand(1, 1, size, size)


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu()
    if attention.dim() == 4:
        attention = attention[0]
    fig, axs = plt.subplots(n_rows, n_cols, figsize=(4 * n_cols, 4 * n_rows), squeeze=False)
    for h, ax in enumerate(axs.ravel()):
        if h >= n_heads:
            ax.remove()
            continue
        cax = ax.matshow(attention[h].numpy(), cmap="bone")
        fig.colorbar(cax, ax=ax, shrink=0.7)
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
    return fig


if __name__ == "__main__":
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).eval()
    x = torch.randn(2, 5, 8)
    y, p = mha(x, x, x, make_causal_mask(5))
    print(y.shape, p.shape, p[0, 0])
