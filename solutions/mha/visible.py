"""The visible checks, which students run in their notebook: small inputs, other seeds and shapes than the hidden ones."""

import numpy as np

from autograder.grade.authoring import Visible, counting, keep_mask, layers, normal

from . import probes

SENTENCES = ["I wonder what will come next!", "This is a basic example paragraph.", "Hello, what is a basic split?"]
STOI = {
    "<pad>": 0,
    "<unk>": 1,
    "a": 2,
    "basic": 3,
    "come": 4,
    "example": 5,
    "hello": 6,
    "i": 7,
    "is": 8,
    "next": 9,
    "paragraph": 10,
    "split": 11,
    "this": 12,
    "what": 13,
    "will": 14,
    "wonder": 15,
}
# 11 tokens: more than matplotlib's automatic ticks label one by one.
LONG_SENTENCE = ["i", "wonder", "what", "will", "come", "next", "in", "this", "basic", "example", "paragraph"]
TWO_HEADS = {  # display_attention's inputs for two checks: one figure, read twice
    "sentence": ["hello", "world", "again"],
    "translation": ["hallo", "welt"],
    "attention": np.full((2, 2, 3), 1 / 3, dtype=np.float32),
    "n_heads": 2,
    "n_rows": 1,
    "n_cols": 2,
}


def mha_inputs(seed, batch, seq, d_model, n_heads, k_len=None, **extra):
    """Self-attention inputs; cross-attention (keys and values of their own) when k_len is given."""
    x = normal(seed + 10, batch, seq, d_model)
    key_value = x if k_len is None else normal(seed + 12, batch, k_len, d_model)
    return {
        "d_model": d_model,
        "n_heads": n_heads,
        "weights": layers(seed, probes.WEIGHTS, d_model),
        "query": x,
        "key": key_value,
        "value": key_value if k_len is None else normal(seed + 13, batch, k_len, d_model),
        "grad_output": normal(seed + 11, batch, seq, d_model),
        **extra,
    }


def attention_inputs(seed, lead, q_len, k_len, d_k, **extra):
    """Inputs of shape (*lead, q_len or k_len, d_k): lead is (batch,) or (batch, heads)."""
    return {
        "query": normal(seed, *lead, q_len, d_k),
        "key": normal(seed + 1, *lead, k_len, d_k),
        "value": normal(seed + 2, *lead, k_len, d_k),
        "grad_output": normal(seed + 3, *lead, q_len, d_k),
        **extra,
    }


def padding_mask(lengths, k_len):
    """(batch, 1, 1, k_len), True on the first lengths[b] keys of sequence b."""
    return (np.arange(k_len)[None, :] < np.array(lengths)[:, None])[:, None, None, :]


VISIBLE = [
    Visible("tokenize", "splits the contract's example", probes.tokenize, {"text": "Hello, what is a basic split?"}),
    Visible("tokenize", "lowercases and drops '!'", probes.tokenize, {"text": "I wonder what will come NEXT!"}),
    Visible(
        "tokenize",
        "splits on tabs and repeated spaces, and deletes punctuation inside words too",
        probes.tokenize,
        {"text": "It's  a\twell-known fact:\n snake_case isn't  English!"},
    ),
    Visible(
        "build_vocab", "numbers the words of the three example sentences", probes.build_vocab, {"texts": SENTENCES}
    ),
    Visible(
        "encode", "encodes the three sentences", probes.encode, {"texts": SENTENCES, "stoi": STOI, "max_length": None}
    ),
    Visible(
        "encode",
        "pads, cuts a longer text to its first 5 ids and marks unknown words with max_length=5",
        probes.encode,
        {"texts": ["what will come next, dear reader?", "hello"], "stoi": STOI, "max_length": 5},
    ),
    Visible(
        "Embeddings",
        "looks up, scales and passes gradients back to every row, <pad> and <unk> included (vocabulary 10, d_model 4)",
        probes.embeddings,
        {
            "vocab_size": 10,
            "d_model": 4,
            "lut": normal(1001, 10, 4),
            "x": np.array([[1, 5, 9], [0, 2, 2]]),
            "grad_out": normal(1002, 2, 3, 4),
        },
    ),
    Visible(
        "Embeddings",
        "keeps its table as a registered submodule (self.lut = nn.Embedding(...), not a plain tensor), so that "
        ".to() and the optimizer see it",
        probes.registration,
        {"name": "Embeddings", "args": [10, 4]},
    ),
    Visible(
        "PositionalEncoding",
        "builds the table for d_model 4 and adds it",
        probes.positional_encoding,
        {"d_model": 4, "max_length": 6, "x": normal(1003, 1, 5, 4)},
        keys=("table", "out"),
    ),
    Visible(
        "PositionalEncoding",
        "keeps the table as a buffer, with nothing to train",
        probes.positional_encoding,
        {"d_model": 6, "max_length": 7, "x": normal(1013, 1, 3, 6)},
        keys=("trainable", "buffer"),
    ),
    Visible(
        "PositionalEncoding",
        "leaves the tensor it is given unchanged (x + pe, not x += pe)",
        probes.positional_encoding_input_kept,
        {"d_model": 4, "max_length": 6, "x": normal(1015, 1, 5, 4)},
    ),
    Visible(
        "PositionalEncoding",
        "in train mode, drops some of x + pe and scales the rest by 1 / (1 - p)",
        probes.positional_encoding_train_mode,
        {"d_model": 6, "max_length": 12, "x": normal(1014, 2, 10, 6), "p": 0.5},
    ),
    Visible(
        "PositionalEncoding",
        "registers its table pe (register_buffer, not a plain tensor attribute), so that .to() and state_dict() see it",
        probes.registration,
        {"name": "PositionalEncoding", "args": [6, 0.1, 8]},
    ),
    Visible(
        "split_heads",
        "splits (2, 4, 6) into 3 heads (x holds 0, 1, 2, ...: a value says which token and feature it is)",
        probes.split_heads,
        {"x": counting(2, 4, 6), "n_heads": 3},
    ),
    Visible(
        "combine_heads",
        "joins 2 heads of width 3 (x holds 0, 1, 2, ...: a value says which head, token and feature it is)",
        probes.combine_heads,
        {"x": counting(2, 2, 3, 3)},
    ),
    Visible(
        "scaled_dot_product_attention",
        "attends from 3 queries to 4 keys",
        probes.attention,
        attention_inputs(1006, (1,), 3, 4, 2),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "scaled_dot_product_attention",
        "blocks the future with a causal mask",
        probes.attention,
        attention_inputs(1007, (1,), 3, 3, 2, mask=np.tril(np.ones((3, 3), dtype=bool))[None]),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "scaled_dot_product_attention",
        "attends in 2 heads at once (4-D inputs, d_k 3)",
        probes.attention,
        attention_inputs(1015, (1, 2), 2, 3, 3),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    # A 0/1 integer mask, which the contract allows: ~mask is right for a bool mask only.
    Visible(
        "scaled_dot_product_attention",
        "takes a 0/1 integer mask too (0 blocks the key)",
        probes.attention,
        attention_inputs(1020, (1,), 3, 4, 2, mask=np.array([[[1, 1, 0, 0], [1, 0, 1, 1], [0, 1, 1, 1]]])),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "scaled_dot_product_attention",
        "applies a fixed dropout to the weights and returns them before dropout",
        probes.attention,
        attention_inputs(1016, (1,), 3, 4, 3, keep=keep_mask(1017, 3, 4), p=0.5),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "make_padding_mask",
        "marks two padded tokens",
        probes.padding_mask,
        {"token_ids": np.array([[3, 4, 0], [5, 0, 0]]), "pad_id": 0},
        keys=("mask",),
    ),
    Visible(
        "make_padding_mask",
        "returns a bool tensor, so that masks combine with &",
        probes.padding_mask,
        {"token_ids": np.array([[3, 4, 0], [5, 0, 0]]), "pad_id": 0},
        keys=("dtype",),
    ),
    Visible("make_causal_mask", "builds the mask of size 3", probes.causal_mask, {"size": 3}, keys=("mask",)),
    Visible(
        "make_causal_mask",
        "returns a bool tensor, so that masks combine with &",
        probes.causal_mask,
        {"size": 3},
        keys=("dtype",),
    ),
    Visible(
        "MultiHeadAttention",
        "self-attention, d_model 6, 2 heads",
        probes.multi_head_attention,
        mha_inputs(1008, 1, 3, 6, 2),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "MultiHeadAttention",
        "cross-attention: 2 queries attend to 4 keys and values of their own",
        probes.multi_head_attention,
        mha_inputs(1018, 1, 2, 6, 2, k_len=4),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "MultiHeadAttention",
        "passes a padding mask (batch, 1, 1, k_len) on to every head",
        probes.multi_head_attention,
        mha_inputs(1019, 2, 3, 6, 3, mask=padding_mask([3, 2], 3)),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "MultiHeadAttention",
        "applies self.dropout to the attention weights (train mode) and returns them before dropout",
        probes.multi_head_attention,
        mha_inputs(1009, 1, 3, 4, 2, keep=keep_mask(1010, 3, 3), p=0.5),
        keys=(probes.ROW_SUMS, "output", "attn_probs"),
    ),
    Visible(
        "MultiHeadAttention",
        "builds self.dropout with the probability given (dropout=0.5)",
        probes.dropout_built,
        {"name": "MultiHeadAttention", "args": [4, 2], "p": 0.5},
    ),
    Visible(
        "MultiHeadAttention",
        "refuses d_model 6 with 4 heads",
        probes.multi_head_attention_indivisible,
        {"d_model": 6, "n_heads": 4},
    ),
    Visible(
        "MultiHeadAttention",
        "keeps Wq, Wk, Wv, Wo and dropout as attributes of their own (not in a Python list or dict), so that .to() "
        "and the optimizer see them",
        probes.registration,
        {"name": "MultiHeadAttention", "args": [6, 2]},
    ),
    Visible(
        "display_attention",
        "draws 2 heads with the tokens on the axes, colours from 0 to 1",
        probes.display_attention,
        TWO_HEADS,
        keys=("heads", "data", "x_labels", "y_labels", "limits"),
    ),
    # A figure from pyplot is right, but Jupyter shows it twice (once as pyplot's, once as
    # the cell's value): a note, never a failure, so the demos that draw with it still run.
    # Read from the same call as the check above (a figure costs the grader 10 to 30 ms).
    Visible(
        "display_attention",
        "builds its figure with Figure(...), not pyplot, so that a notebook shows it once",
        probes.display_attention,
        TWO_HEADS,
        keys=("from_pyplot",),
        note="the figure comes from pyplot, so the notebook shows it twice: build it with matplotlib.figure.Figure(...)",
    ),
    Visible(
        "display_attention",
        "labels every cell of a sentence of 11 tokens",
        probes.display_attention,
        {
            "sentence": LONG_SENTENCE,
            "translation": LONG_SENTENCE,
            "attention": np.full((1, 11, 11), 1 / 11, dtype=np.float32),
            "n_heads": 1,
            "n_rows": 1,
            "n_cols": 1,
        },
        keys=("heads", "x_labels", "y_labels"),
    ),
    Visible(
        "display_attention",
        "takes attention weights that carry gradients (as a layer returns them)",
        probes.display_attention,
        {
            "sentence": ["a", "b"],
            "translation": ["a", "b"],
            "attention": np.full((1, 2, 2), 0.5, dtype=np.float32),
            "n_heads": 1,
            "n_rows": 1,
            "n_cols": 1,
            "requires_grad": True,
        },
        keys=("heads", "data"),
    ),
]
