# The instructor's reference for the assignment `mha`: the one place each exercise's code lives.
# Each top-level definition holding a "### BEGIN SOLUTION" region is one exercise, named after
# a graded name of the contract. `python -m autograder build mha` writes the student stubs
# (assignments/mha.py), the nbgrader master notebook (source/mha/mha.ipynb) and the release.
"""Multi-head attention in PyTorch, from words to attention maps.

Shapes: batch is the number of sequences, seq (q_len, k_len) the number of tokens,
d_model the width of a token's vector, n_heads the number of heads and
d_k = d_model // n_heads the width of one head.
"""

import math
import string

import torch
from matplotlib.figure import Figure
from torch import nn

PAD = "<pad>"  # id 0: fills short sequences up to the batch's length
UNK = "<unk>"  # id 1: stands for any word the vocabulary has never seen


def tokenize(text):
    """Split a sentence into lowercase words without punctuation.

    Lowercase the text, delete every character of ``string.punctuation``, then split
    on whitespace; no token is empty.

    Args:
        text: a sentence, e.g. ``"Hello, what is a basic split?"``.

    Returns:
        list[str]: the words, e.g. ``["hello", "what", "is", "a", "basic", "split"]``.
    """
    ### BEGIN SOLUTION
    without_punctuation = text.lower().translate(str.maketrans("", "", string.punctuation))
    return without_punctuation.split()
    ### END SOLUTION


def build_vocab(texts):
    """Give every word of a corpus an integer id.

    ``"<pad>"`` gets 0 and ``"<unk>"`` gets 1; the unique tokens of all texts
    (after ``tokenize``), sorted, get 2, 3, 4, ... in that order.

    Args:
        texts: list[str], the sentences of the corpus.

    Returns:
        dict[str, int]: ``stoi``, from token to id.
    """
    ### BEGIN SOLUTION
    words = sorted({token for text in texts for token in tokenize(text)})
    stoi = {PAD: 0, UNK: 1}
    for word in words:
        stoi[word] = len(stoi)
    return stoi
    ### END SOLUTION


def encode(texts, stoi, max_length=None):
    """Turn a batch of sentences into one tensor of token ids.

    Each text is tokenized and each token replaced by its id, ``stoi["<unk>"]`` for
    a token not in ``stoi``. L is ``max_length``, or the length of the longest text
    when ``max_length`` is None: each row is cut to L ids, then padded on the right
    with ``stoi["<pad>"]`` up to L.

    Args:
        texts: list[str], batch sentences.
        stoi: dict[str, int], as made by ``build_vocab``.
        max_length: int or None.

    Returns:
        LongTensor of shape (batch, L).
    """
    ### BEGIN SOLUTION
    ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]
    length = max_length if max_length is not None else max(len(row) for row in ids)
    rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]
    return torch.tensor(rows, dtype=torch.long)  # (batch, L)
    ### END SOLUTION


class Embeddings(nn.Module):
    """Look each token id up in a learned table and scale the vector by sqrt(d_model).

    forward(x) = lut(x) * sqrt(d_model), the scale of the Transformer paper.

    Attributes:
        lut: nn.Embedding(vocab_size, d_model), the look-up table.

    Shapes:
        x: LongTensor (batch, seq) -> (batch, seq, d_model)
    """

    def __init__(self, vocab_size, d_model):
        super().__init__()
        ### BEGIN SOLUTION
        self.lut = nn.Embedding(vocab_size, d_model)  # (vocab_size, d_model) table
        self.d_model = d_model
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        return self.lut(x) * math.sqrt(self.d_model)  # (batch, seq, d_model)
        ### END SOLUTION


class PositionalEncoding(nn.Module):
    """Add the sinusoidal position table to token vectors, then apply dropout.

    For position pos and i = 0, 1, ..., d_model/2 - 1:
        pe[0, pos, 2i]   = sin(pos / 10000^(2i / d_model))
        pe[0, pos, 2i+1] = cos(pos / 10000^(2i / d_model))
    The table is a buffer (``register_buffer("pe", ...)``), not a parameter: nothing
    in this module is trained.

    forward(x) = dropout(x + pe[:, :seq])

    Args:
        d_model: even width of the token vectors.
        dropout: probability of dropout.
        max_length: the longest sequence the table covers.

    Shapes:
        pe: (1, max_length, d_model)
        x: (batch, seq, d_model) -> (batch, seq, d_model)
    """

    def __init__(self, d_model, dropout=0.1, max_length=5000):
        super().__init__()
        ### BEGIN SOLUTION
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_length, dtype=torch.float64).unsqueeze(1)  # (max_length, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model / 2,)
        angle = position / 10000 ** (two_i / d_model)  # (max_length, d_model / 2)
        pe = torch.zeros(max_length, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle)
        self.register_buffer("pe", pe.unsqueeze(0).float())  # (1, max_length, d_model)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        return self.dropout(x + self.pe[:, : x.size(1)])  # (batch, seq, d_model)
        ### END SOLUTION


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V.

    1. scores = Q K^T / sqrt(d_k): how well each query matches each key. d_k is the
       width of the queries (their last axis); K^T swaps the last two axes of the key:
       key.transpose(-2, -1), or key.mT (key.T would reverse every axis of a 4-D key).
    2. Where ``mask`` is 0 (or False) the key is blocked: its score becomes -inf,
       so it gets no weight.
    3. attn_probs = softmax(scores) over the keys (the last axis).
    4. output = dropout(attn_probs) V; ``dropout`` is a module or None.

    Args:
        query: (..., q_len, d_k)
        key: (..., k_len, d_k)
        value: (..., k_len, d_v)
        mask: None or a tensor broadcastable to (..., q_len, k_len).
        dropout: None or a module applied to the probabilities.

    Returns:
        output: (..., q_len, d_v)
        attn_probs: (..., q_len, k_len), before dropout; each row sums to 1.
    """
    ### BEGIN SOLUTION
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., q_len, k_len)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    attn_probs = scores.softmax(dim=-1)  # (..., q_len, k_len)
    weights = attn_probs if dropout is None else dropout(attn_probs)
    return weights @ value, attn_probs  # (..., q_len, d_v), (..., q_len, k_len)
    ### END SOLUTION


def split_heads(x, n_heads):
    """Cut every token vector into n_heads slices, one per head.

    Head h gets features h*d_k up to (h+1)*d_k - 1 (the slice [h*d_k:(h+1)*d_k]),
    with d_k = d_model // n_heads.
    Reshape to (batch, seq, n_heads, d_k), then swap the seq and n_heads axes so
    that each head holds a whole sequence.

    Shapes:
        x: (batch, seq, d_model) -> (batch, n_heads, seq, d_k)
    """
    ### BEGIN SOLUTION
    batch, seq, d_model = x.shape
    x = x.reshape(batch, seq, n_heads, d_model // n_heads)  # (batch, seq, n_heads, d_key)
    return x.transpose(1, 2)  # (batch, n_heads, seq, d_key)
    ### END SOLUTION


def combine_heads(x):
    """Join the heads again: the inverse of ``split_heads``.

    Swap the n_heads and seq axes back, then merge the last two axes.

    Shapes:
        x: (batch, n_heads, seq, d_k) -> (batch, seq, n_heads * d_k)
    """
    ### BEGIN SOLUTION
    batch, n_heads, seq, d_key = x.shape
    x = x.transpose(1, 2)  # (batch, seq, n_heads, d_key)
    return x.reshape(batch, seq, n_heads * d_key)  # (batch, seq, d_model)
    ### END SOLUTION


def make_padding_mask(token_ids, pad_id=0):
    """Block attention to padding tokens.

    Shapes:
        token_ids: (batch, seq) -> mask (batch, 1, 1, seq), a bool tensor, True where
        the token is not ``pad_id``; it broadcasts over heads and queries.
    """
    ### BEGIN SOLUTION
    return (token_ids != pad_id)[:, None, None, :]  # (batch, 1, 1, seq)
    ### END SOLUTION


def make_causal_mask(size):
    """Let position i attend to positions 0..i only (no peeking at later tokens).

    Shapes:
        returns a bool tensor (1, 1, size, size), True on and below the diagonal.
    """
    ### BEGIN SOLUTION
    return torch.tril(torch.ones(size, size, dtype=torch.bool))[None, None]  # (1, 1, size, size)
    ### END SOLUTION


class MultiHeadAttention(nn.Module):
    """Project queries, keys and values, attend in n_heads heads at once, join, project.

    1. Q = Wq(query), K = Wk(key), V = Wv(value), each split into heads.
    2. Scaled dot-product attention in every head, with ``self.dropout`` on the
       probabilities.
    3. Combine the heads and apply the output projection Wo.

    Args:
        d_model: width of the token vectors; must be divisible by n_heads, else the
            constructor raises an error that says so.
        n_heads: number of heads.
        dropout: probability of dropout on the attention probabilities.

    Attributes:
        Wq, Wk, Wv, Wo: nn.Linear(d_model, d_model), with bias.
        dropout: nn.Dropout.

    Shapes:
        query: (batch, q_len, d_model); key, value: (batch, k_len, d_model)
        mask: None or broadcastable to (batch, n_heads, q_len, k_len)
        returns output (batch, q_len, d_model), attn_probs (batch, n_heads, q_len, k_len)
    """

    def __init__(self, d_model=512, n_heads=8, dropout=0.1):
        super().__init__()
        ### BEGIN SOLUTION
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.Wq = nn.Linear(d_model, d_model)  # query projection
        self.Wk = nn.Linear(d_model, d_model)  # key projection
        self.Wv = nn.Linear(d_model, d_model)  # value projection
        self.Wo = nn.Linear(d_model, d_model)  # output projection, after the heads are joined
        self.dropout = nn.Dropout(p=dropout)
        ### END SOLUTION

    def forward(self, query, key, value, mask=None):
        ### BEGIN SOLUTION
        Q = split_heads(self.Wq(query), self.n_heads)  # (batch, n_heads, q_len, d_key)
        K = split_heads(self.Wk(key), self.n_heads)  # (batch, n_heads, k_len, d_key)
        V = split_heads(self.Wv(value), self.n_heads)  # (batch, n_heads, k_len, d_key)
        A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)
        return self.Wo(combine_heads(A)), attn_probs  # (batch, q_len, d_model), (batch, n_heads, q_len, k_len)
        ### END SOLUTION


def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
    """Draw one heatmap per head of one sequence's attention, and return the figure.

    1. The figure: ``Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")``
       (imported at the top). ``plt.subplots`` would show the figure twice in a
       notebook; the constrained layout keeps the panels' labels from overlapping.
    2. One axes per head, ``fig.add_subplot(n_rows, n_cols, head + 1)``, titled
       ``"head 0"``, ``"head 1"``, ...
    3. In it, ``ax.matshow(..., cmap="bone", vmin=0, vmax=1)``: the colour map
       "bone" runs from black (weight 0) through grey-blue to white (weight 1), the
       same scale in every head.
    4. Its labels: the columns with ``sentence``, rotated 90 degrees so that long words
       do not overlap; the rows with ``translation``.
    5. One colour bar for the whole figure: ``fig.colorbar(image, ax=fig.axes)``, where
       ``image`` is what ``matshow`` returned.

    ``attention`` may carry gradients: ``attention.detach().cpu()`` before ``.numpy()``.

    Args:
        sentence: the k_len tokens attended to (x axis tick labels).
        translation: the q_len tokens attending (y axis tick labels); for
            self-attention, the same tokens as ``sentence``.
        attention: (n_heads, q_len, k_len), or (1, n_heads, q_len, k_len).
        n_heads, n_rows, n_cols: the heads and the grid they are drawn on.

    Returns:
        matplotlib.figure.Figure with one axes per head (and the colour bar's axes);
        returned, not shown.
    """
    ### BEGIN SOLUTION
    attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))
    fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")
    for head in range(n_heads):
        ax = fig.add_subplot(n_rows, n_cols, head + 1)
        image = ax.matshow(attention[head].numpy(), cmap="bone", vmin=0, vmax=1)  # black 0, white 1
        ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)
        ax.set_yticks(range(len(translation)), labels=translation)
        ax.set_title(f"head {head}")
    fig.colorbar(image, ax=fig.axes, label="attention weight", shrink=0.8)
    return fig
    ### END SOLUTION
