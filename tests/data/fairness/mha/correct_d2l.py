# Source: d2l-ai/d2l-en, chapter_attention-mechanisms-and-transformers
#   (attention-scoring-functions.md: masked_softmax, DotProductAttention;
#    multihead-attention.md: MultiHeadAttention, transpose_qkv, transpose_output;
#    self-attention-and-positional-encoding.md: PositionalEncoding; show_heatmaps)
#   and chapter_recurrent-neural-networks/text-sequence.md (tokenize, Vocab) and
#   machine-translation-and-dataset.md (truncate_pad).
# Adapted: masked_softmax takes the contract's boolean mask instead of valid_lens and fills
#   blocked scores with -1e6 as d2l's _sequence_mask does; DotProductAttention's torch.bmm
#   runs on the leading dims folded into one (bmm wants 3-D); the heads are folded into
#   the batch (transpose_qkv / transpose_output) and the mask is repeated per head the way
#   d2l repeats valid_lens; self.dropout is applied to the (batch*heads, q, k) weights as in
#   d2l; the positional table is kept in a buffer named pe (d2l keeps self.P); the
#   constructor checks that n_heads divides d_model (d2l does not); show_heatmaps keeps
#   plt.subplots(sharex=True, sharey=True, squeeze=False), imshow and one colorbar for all
#   axes, with the token labels and vmin/vmax the contract asks for.
# Mistake kept: none.
import collections
import math

import torch
from matplotlib import pyplot as plt
from torch import nn


def tokenize(text):
    """Split text lines into word tokens (d2l's tokenize with token='word')."""
    import string

    text = text.replace('\u202f', ' ').replace('\xa0', ' ').lower()
    text = ''.join(char for char in text if char not in string.punctuation)
    return text.split()


class Vocab:
    """Vocabulary for text."""

    def __init__(self, tokens=[], reserved_tokens=[]):
        if tokens and isinstance(tokens[0], list):
            tokens = [token for line in tokens for token in line]
        counter = collections.Counter(tokens)
        self.token_freqs = sorted(counter.items(), key=lambda x: x[1], reverse=True)
        # The list of unique tokens: reserved ones first, then the words sorted
        self.idx_to_token = list(reserved_tokens) + sorted(set(token for token, freq in self.token_freqs))
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}


def build_vocab(texts):
    return Vocab([tokenize(text) for text in texts], reserved_tokens=['<pad>', '<unk>']).token_to_idx


def truncate_pad(line, num_steps, padding_token):
    """Truncate or pad sequences."""
    if len(line) > num_steps:
        return line[:num_steps]  # Truncate
    return line + [padding_token] * (num_steps - len(line))  # Pad


def encode(texts, stoi, max_length=None):
    lines = [[stoi.get(token, stoi['<unk>']) for token in tokenize(text)] for text in texts]
    num_steps = max_length if max_length is not None else max(len(line) for line in lines)
    return torch.tensor([truncate_pad(line, num_steps, stoi['<pad>']) for line in lines])


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.num_hiddens = d_model
        self.lut = nn.Embedding(vocab_size, d_model)

    def forward(self, X):
        # Since positional encoding values are between -1 and 1, the embedding
        # values are multiplied by the square root of the embedding dimension
        # to rescale before they are summed up
        return self.lut(X) * math.sqrt(self.num_hiddens)


class PositionalEncoding(nn.Module):
    """Positional encoding."""

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        num_hiddens, max_len = d_model, max_length
        self.dropout = nn.Dropout(dropout)
        # Create a long enough P
        P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        P[:, :, 0::2] = torch.sin(X)
        P[:, :, 1::2] = torch.cos(X)
        self.register_buffer('pe', P)

    def forward(self, X):
        X = X + self.pe[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


def split_heads(X, n_heads):
    """Transposition for parallel computation of multiple attention heads."""
    # Shape of input X: (batch_size, no. of queries or key-value pairs,
    # num_hiddens). Shape of output X: (batch_size, no. of queries or
    # key-value pairs, num_heads, num_hiddens / num_heads)
    X = X.reshape(X.shape[0], X.shape[1], n_heads, -1)
    # Shape of output X: (batch_size, num_heads, no. of queries or key-value
    # pairs, num_hiddens / num_heads)
    return X.permute(0, 2, 1, 3)


def transpose_qkv(X, num_heads):
    X = split_heads(X, num_heads)
    # Shape of output: (batch_size * num_heads, no. of queries or key-value
    # pairs, num_hiddens / num_heads)
    return X.reshape(-1, X.shape[2], X.shape[3])


def combine_heads(X):
    """Reverse the operation of split_heads."""
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


def transpose_output(X, num_heads):
    """Reverse the operation of transpose_qkv."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    return combine_heads(X)


def masked_softmax(X, mask):
    """Perform softmax operation by masking elements on the last axis."""
    # X: 3D tensor, mask: broadcastable to X, True where visible
    if mask is None:
        return nn.functional.softmax(X, dim=-1)
    # On the last axis, replace masked elements with a very large negative
    # value, whose exponentiation outputs 0
    X = X.masked_fill(~mask.bool(), -1e6)
    return nn.functional.softmax(X, dim=-1)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    """Scaled dot product attention (d2l's DotProductAttention.forward)."""
    d = query.shape[-1]
    lead = query.shape[:-2]
    queries = query.reshape(-1, *query.shape[-2:])
    keys = key.reshape(-1, *key.shape[-2:])
    values = value.reshape(-1, *value.shape[-2:])
    # Swap the last two dimensions of keys with keys.transpose(1, 2)
    scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
    scores = scores.reshape(*lead, *scores.shape[-2:])
    attention_weights = masked_softmax(scores, mask)
    weights = attention_weights if dropout is None else dropout(attention_weights)
    out = torch.bmm(weights.reshape(-1, *weights.shape[-2:]), values)
    return out.reshape(*lead, *out.shape[-2:]), attention_weights


def make_padding_mask(token_ids, pad_id=0):
    return (token_ids != pad_id)[:, None, None, :]


def make_causal_mask(size):
    # d2l's dec_valid_lens = torch.arange(1, num_steps + 1): query i sees keys 0..i
    dec_valid_lens = torch.arange(1, size + 1)
    return (torch.arange(size)[None, :] < dec_valid_lens[:, None])[None, None]


class MultiHeadAttention(nn.Module):
    """Multi-head attention."""

    def __init__(self, d_model=512, n_heads=8, dropout=0.1, bias=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError("num_hiddens must be a multiple of num_heads")
        num_hiddens = d_model
        self.num_heads = n_heads
        self.dropout = nn.Dropout(dropout)
        self.Wq = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.Wk = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.Wv = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.Wo = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries, keys, values, mask=None):
        # Shape of queries, keys, or values:
        # (batch_size, no. of queries or key-value pairs, num_hiddens)
        # After transposing, shape of output queries, keys, or values:
        # (batch_size * num_heads, no. of queries or key-value pairs,
        # num_hiddens / num_heads)
        batch_size = queries.shape[0]
        queries = transpose_qkv(self.Wq(queries), self.num_heads)
        keys = transpose_qkv(self.Wk(keys), self.num_heads)
        values = transpose_qkv(self.Wv(values), self.num_heads)

        if mask is not None:
            # On axis 0, copy the first item (scalar or vector) for num_heads
            # times, then copy the next item, and so on
            mask = mask.expand(batch_size, self.num_heads, queries.shape[1], keys.shape[1])
            mask = mask.reshape(-1, queries.shape[1], keys.shape[1])

        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, mask)
        output = torch.bmm(self.dropout(self.attention_weights), values)
        # Shape of output_concat: (batch_size, no. of queries,
        # num_hiddens)
        output_concat = transpose_output(output, self.num_heads)
        attn_probs = self.attention_weights.reshape(batch_size, self.num_heads, *scores.shape[1:])
        return self.Wo(output_concat), attn_probs


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    """Show heatmaps of matrices (d2l's show_heatmaps)."""
    matrices = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4 * n_cols, 4 * n_rows),
                             sharex=True, sharey=True, squeeze=False)
    for i, (ax, matrix) in enumerate(zip(axes.flat, matrices)):
        pcm = ax.imshow(matrix.numpy(), cmap='Reds', vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
        ax.set_title(f'Head {i + 1}')
    fig.colorbar(pcm, ax=axes, shrink=0.6)
    plt.close(fig)
    return fig
