# Source of the mistake: PyTorch's documentation of torch.nn.functional.scaled_dot_product_attention
#   ("Efficient implementation equivalent to the following": attn_bias = torch.zeros(L, S),
#   attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf")) for a boolean mask,
#   attn_bias = attn_mask + attn_bias otherwise).
# The rest: as correct_pytorch_tutorials.py.
# Mistake kept: the documented bias is (L, S) and filled in place, so a (batch, 1, 1, k_len)
#   or (1, 1, L, S) mask cannot be written into it, and a 0/1 integer mask is ADDED to the
#   scores (the documentation's float-mask rule) instead of blocking the zeros.
import math
import string

import torch
from matplotlib.figure import Figure
from torch import Tensor, nn
from torch.nn.utils.rnn import pad_sequence

# Define special symbols and indices
PAD_IDX, UNK_IDX = 0, 1
# Make sure the tokens are in order of their indices to properly insert them in vocab
special_symbols = ['<pad>', '<unk>']


def tokenize(text):
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()


# helper function to yield list of tokens
def yield_tokens(texts):
    for data_sample in texts:
        yield tokenize(data_sample)


def build_vocab(texts):
    tokens = sorted({token for tokens in yield_tokens(texts) for token in tokens})
    itos = special_symbols + tokens
    return {token: index for index, token in enumerate(itos)}


def encode(texts, stoi, max_length=None):
    src_batch = []
    for src_sample in texts:
        ids = [stoi.get(token, stoi['<unk>']) for token in tokenize(src_sample)]
        src_batch.append(torch.tensor(ids[:max_length] if max_length is not None else ids, dtype=torch.long))
    src_batch = pad_sequence(src_batch, batch_first=True, padding_value=stoi['<pad>'])
    if max_length is not None and src_batch.size(1) < max_length:
        filler = torch.full((src_batch.size(0), max_length - src_batch.size(1)), stoi['<pad>'], dtype=torch.long)
        src_batch = torch.cat([src_batch, filler], dim=1)
    return src_batch


# helper Module to convert tensor of input indices into corresponding tensor of token embeddings
class Embeddings(nn.Module):
    def __init__(self, vocab_size: int, d_model: int):
        super(Embeddings, self).__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.emb_size = d_model

    def forward(self, tokens: Tensor):
        return self.lut(tokens.long()) * math.sqrt(self.emb_size)


# helper Module that adds positional encoding to the token embedding to introduce a notion of word order.
class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_length: int = 5000):
        super(PositionalEncoding, self).__init__()
        emb_size, maxlen = d_model, max_length
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(0)

        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pe', pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pe[:, :token_embedding.size(1), :])


def split_heads(x, n_heads):
    batch, seq, d_model = x.shape
    x = x.reshape(batch, seq, n_heads, d_model // n_heads)
    return x.transpose(1, 2)


def combine_heads(x):
    batch, n_heads, seq, d_key = x.shape
    x = x.transpose(1, 2)
    return x.reshape(batch, seq, n_heads * d_key)


# Efficient implementation equivalent to the following:
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None, scale=None) -> torch.Tensor:
    attn_mask = mask
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    L, S = query.size(-2), key.size(-2)
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)

    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias

    attn_weight = query @ key.transpose(-2, -1) * scale_factor

    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    dropped = attn_weight if dropout is None else dropout(attn_weight)
    return dropped @ value, attn_weight


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    # the tutorial's generate_square_subsequent_mask, as a boolean "may attend" mask
    mask = (torch.triu(torch.ones((size, size))) == 1).transpose(0, 1)
    return mask[None, None]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        Q = split_heads(self.Wq(query), self.n_heads)
        K = split_heads(self.Wk(key), self.n_heads)
        V = split_heads(self.Wv(value), self.n_heads)
        A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)
        return self.Wo(combine_heads(A)), attn_probs


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
