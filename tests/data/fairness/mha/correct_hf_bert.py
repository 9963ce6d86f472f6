# Source: huggingface/transformers, src/transformers/models/bert/modeling_bert.py
#   (BertSelfAttention: transpose_for_scores with view + permute(0, 2, 1, 3),
#   `attention_scores / math.sqrt(self.attention_head_size)`, the additive extended
#   attention mask `(1.0 - mask) * torch.finfo(dtype).min` of get_extended_attention_mask,
#   nn.functional.softmax(dim=-1), context_layer.permute(0, 2, 1, 3).contiguous().view(...);
#   BertSelfOutput's dense layer) and BertEmbeddings' word_embeddings lookup.
# Adapted: query/key/value/dense become Wq/Wk/Wv/Wo; the extended mask is made inside the
#   attention function from the contract's 0/1 mask; BERT returns the probabilities after
#   its dropout, here they are returned before it (the contract's return value); the
#   constructor's ValueError for hidden_size not a multiple of num_attention_heads stays;
#   BertSelfOutput's dropout, LayerNorm and residual are not part of the contract's layer.
# From the reference (no counterpart: BERT uses WordPiece and learned positions, no scale):
#   tokenize, build_vocab, encode, Embeddings' sqrt(d_model), PositionalEncoding,
#   make_padding_mask's shape, make_causal_mask, display_attention.
# Mistake kept: none.
import math
import string

import torch
from matplotlib.figure import Figure
from torch import nn


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
        self.lut = nn.Embedding(vocab_size, d_model)  # word_embeddings
        self.d_model = d_model

    def forward(self, input_ids):
        inputs_embeds = self.lut(input_ids)
        return inputs_embeds * math.sqrt(self.d_model)


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


def split_heads(x, num_attention_heads):
    attention_head_size = x.size(-1) // num_attention_heads
    new_x_shape = x.size()[:-1] + (num_attention_heads, attention_head_size)
    x = x.view(new_x_shape)
    return x.permute(0, 2, 1, 3)


def combine_heads(context_layer):
    context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
    new_context_layer_shape = context_layer.size()[:-2] + (context_layer.size(-2) * context_layer.size(-1),)
    return context_layer.view(new_context_layer_shape)


def scaled_dot_product_attention(query_layer, key_layer, value_layer, mask=None, dropout=None):
    # Take the dot product between "query" and "key" to get the raw attention scores.
    attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
    attention_scores = attention_scores / math.sqrt(query_layer.size(-1))
    if mask is not None:
        # Apply the attention mask (precomputed for all layers in BertModel forward() function)
        extended_attention_mask = (1.0 - (mask != 0).to(attention_scores.dtype)) * torch.finfo(attention_scores.dtype).min
        attention_scores = attention_scores + extended_attention_mask

    # Normalize the attention scores to probabilities.
    attention_probs = nn.functional.softmax(attention_scores, dim=-1)

    # This is actually dropping out entire tokens to attend to, which might
    # seem a bit unusual, but is taken from the original Transformer paper.
    dropped = attention_probs if dropout is None else dropout(attention_probs)
    context_layer = torch.matmul(dropped, value_layer)
    return context_layer, attention_probs


def make_padding_mask(token_ids, pad_id=0):
    attention_mask = (token_ids != pad_id).long()
    return attention_mask[:, None, None, :]


def make_causal_mask(size):
    seq_ids = torch.arange(size)
    causal_mask = seq_ids[None, None, :].repeat(1, size, 1) <= seq_ids[None, :, None]
    return causal_mask[:, None, :, :]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(
                f"The hidden size ({d_model}) is not a multiple of the number of attention "
                f"heads ({n_heads})"
            )

        self.num_attention_heads = n_heads
        self.attention_head_size = int(d_model / n_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size

        self.Wq = nn.Linear(d_model, self.all_head_size)
        self.Wk = nn.Linear(d_model, self.all_head_size)
        self.Wv = nn.Linear(d_model, self.all_head_size)
        self.Wo = nn.Linear(d_model, d_model)

        self.dropout = nn.Dropout(dropout)

    def forward(self, hidden_states, key, value, mask=None):
        mixed_query_layer = self.Wq(hidden_states)
        key_layer = split_heads(self.Wk(key), self.num_attention_heads)
        value_layer = split_heads(self.Wv(value), self.num_attention_heads)
        query_layer = split_heads(mixed_query_layer, self.num_attention_heads)

        context_layer, attention_probs = scaled_dot_product_attention(query_layer, key_layer, value_layer, mask, self.dropout)
        context_layer = combine_heads(context_layer)

        return self.Wo(context_layer), attention_probs


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
