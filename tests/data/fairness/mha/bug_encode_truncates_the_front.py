# Source of the mistake: keras-team/keras, keras/src/utils/sequence_utils.py (pad_sequences,
#   whose truncating defaults to "pre": long sequences lose their first tokens).
# The rest: as correct_tf_tutorial.py; pad_sequences is written out in NumPy, called with
#   padding="post" and dtype int64, truncating left at its default.
# Mistake kept: rows longer than max_length keep their LAST max_length ids.
import string

import numpy as np
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


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="post", truncating="pre", value=0):
    """keras.utils.pad_sequences, NumPy only."""
    num_samples = len(sequences)
    if maxlen is None:
        maxlen = max(len(s) for s in sequences)
    x = np.full((num_samples, maxlen), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue  # empty list/array was found
        if truncating == "pre":
            trunc = s[-maxlen:]
        elif truncating == "post":
            trunc = s[:maxlen]
        # check `trunc` has expected shape
        trunc = np.asarray(trunc, dtype=dtype)
        if padding == "post":
            x[idx, : len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc) :] = trunc
    return x


def encode(texts, stoi, max_length=None):
    sequences = [[stoi.get(token, stoi["<unk>"]) for token in tokenize(text)] for text in texts]
    return torch.from_numpy(pad_sequences(sequences, maxlen=max_length, dtype="int64", padding="post", value=stoi["<pad>"]))


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.lut = nn.Embedding(vocab_size, d_model)

    def forward(self, x):
        x = self.lut(x)  # (batch_size, input_seq_len, d_model)
        x *= torch.sqrt(torch.tensor(self.d_model, dtype=torch.float32))
        return x


def get_angles(pos, i, d_model):
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
    return pos * angle_rates


def positional_encoding(position, d_model):
    angle_rads = get_angles(np.arange(position)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model)
    # apply sin to even indices in the array; 2i
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    # apply cos to odd indices in the array; 2i+1
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    pos_encoding = angle_rads[np.newaxis, ...]
    return torch.tensor(pos_encoding, dtype=torch.float32)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        self.register_buffer("pe", positional_encoding(max_length, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        seq_len = x.shape[1]
        x = x + self.pe[:, :seq_len, :]
        return self.dropout(x)


def split_heads(x, num_heads):
    """Split the last dimension into (num_heads, depth).
    Transpose the result such that the shape is (batch_size, num_heads, seq_len, depth)
    """
    batch_size = x.shape[0]
    x = x.reshape(batch_size, -1, num_heads, x.shape[-1] // num_heads)
    return x.permute(0, 2, 1, 3)


def combine_heads(scaled_attention):
    batch_size, num_heads, _, depth = scaled_attention.shape
    scaled_attention = scaled_attention.permute(0, 2, 1, 3)  # (batch_size, seq_len_q, num_heads, depth)
    return scaled_attention.reshape(batch_size, -1, num_heads * depth)  # (batch_size, seq_len_q, d_model)


def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):
    """Calculate the attention weights.
    q, k, v must have matching leading dimensions.
    The mask has different shapes depending on its type(padding or look ahead)
    but it must be broadcastable for addition.
    """
    matmul_qk = q @ k.transpose(-2, -1)  # (..., seq_len_q, seq_len_k)

    # scale matmul_qk
    dk = torch.tensor(k.shape[-1], dtype=q.dtype)
    scaled_attention_logits = matmul_qk / torch.sqrt(dk)

    # add the mask to the scaled tensor.
    if mask is not None:
        scaled_attention_logits = scaled_attention_logits + ((mask == 0) * -1e9)

    # softmax is normalized on the last axis (seq_len_k) so that the scores
    # add up to 1.
    attention_weights = torch.softmax(scaled_attention_logits, dim=-1)  # (..., seq_len_q, seq_len_k)

    weights = attention_weights if dropout is None else dropout(attention_weights)
    output = weights @ v  # (..., seq_len_q, depth_v)

    return output, attention_weights


def make_padding_mask(token_ids, pad_id=0):
    seq = (token_ids != pad_id)
    # add extra dimensions to add the padding
    # to the attention logits.
    return seq[:, None, None, :]  # (batch_size, 1, 1, seq_len)


def make_causal_mask(size):
    mask = torch.tril(torch.ones((size, size)))  # band_part(ones, -1, 0)
    return mask[None, None]  # (1, 1, seq_len, seq_len)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        self.num_heads = n_heads
        self.d_model = d_model

        if d_model % self.num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")

        self.depth = d_model // self.num_heads

        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)

        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None):
        q = self.Wq(q)  # (batch_size, seq_len, d_model)
        k = self.Wk(k)  # (batch_size, seq_len, d_model)
        v = self.Wv(v)  # (batch_size, seq_len, d_model)

        q = split_heads(q, self.num_heads)  # (batch_size, num_heads, seq_len_q, depth)
        k = split_heads(k, self.num_heads)  # (batch_size, num_heads, seq_len_k, depth)
        v = split_heads(v, self.num_heads)  # (batch_size, num_heads, seq_len_v, depth)

        # scaled_attention.shape == (batch_size, num_heads, seq_len_q, depth)
        # attention_weights.shape == (batch_size, num_heads, seq_len_q, seq_len_k)
        scaled_attention, attention_weights = scaled_dot_product_attention(q, k, v, mask, self.dropout)

        concat_attention = combine_heads(scaled_attention)  # (batch_size, seq_len_q, d_model)

        output = self.Wo(concat_attention)  # (batch_size, seq_len_q, d_model)

        return output, attention_weights


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows))
    for h, head in enumerate(attention):
        ax = fig.add_subplot(n_rows, n_cols, h + 1)
        ax.matshow(head.numpy(), vmin=0, vmax=1)
        ax.set_xticks(range(len(sentence)))
        ax.set_yticks(range(len(translation)))
        ax.set_xticklabels(sentence, rotation=90)
        ax.set_yticklabels(translation)
        ax.set_xlabel(f'Head {h + 1}')
    fig.tight_layout()
    return fig
