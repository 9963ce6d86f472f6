"""The visible checks, which students run in their notebook: small inputs, other seeds and shapes than the hidden ones."""
import numpy as np

from autograder.grade.inputs import keep_mask, layers, normal
from . import probes
from autograder.author.visible import Visible

SENTENCES = ["I wonder what will come next!", "This is a basic example paragraph.", "Hello, what is a basic split?"]
STOI = {"<pad>": 0, "<unk>": 1, "a": 2, "basic": 3, "come": 4, "example": 5, "hello": 6, "i": 7, "is": 8,
        "next": 9, "paragraph": 10, "split": 11, "this": 12, "what": 13, "will": 14, "wonder": 15}


def mha_inputs(seed, batch, seq, d_model, n_heads, **extra):
    x = normal(seed + 10, batch, seq, d_model)
    return {"d_model": d_model, "n_heads": n_heads, "weights": layers(seed, probes.WEIGHTS, d_model), "query": x, "key": x, "value": x,
            "grad_output": normal(seed + 11, batch, seq, d_model), **extra}


def attention_inputs(seed, batch, q_len, k_len, d_k, **extra):
    return {"query": normal(seed, batch, q_len, d_k), "key": normal(seed + 1, batch, k_len, d_k),
            "value": normal(seed + 2, batch, k_len, d_k), "grad_output": normal(seed + 3, batch, q_len, d_k), **extra}


VISIBLE = [
    Visible("tokenize", "splits the contract's example", probes.tokenize, {"text": "Hello, what is a basic split?"}),
    Visible("tokenize", "lowercases and drops '!'", probes.tokenize, {"text": "I wonder what will come NEXT!"}),
    Visible("build_vocab", "numbers the words of the three example sentences", probes.build_vocab, {"texts": SENTENCES}),
    Visible("encode", "encodes the three sentences", probes.encode, {"texts": SENTENCES, "stoi": STOI, "max_length": None}),
    Visible("encode", "pads, cuts and marks unknown words with max_length=5", probes.encode,
            {"texts": ["what is next, dear reader?", "hello"], "stoi": STOI, "max_length": 5}),
    Visible("Embeddings", "looks up and scales (vocabulary 10, d_model 4)", probes.embeddings,
            {"vocab_size": 10, "d_model": 4, "lut": normal(1001, 10, 4), "x": np.array([[1, 5, 9], [0, 2, 2]]),
             "grad_out": normal(1002, 2, 3, 4)}, keys=("out",)),
    Visible("PositionalEncoding", "builds the table for d_model 4 and adds it", probes.positional_encoding,
            {"d_model": 4, "max_length": 6, "x": normal(1003, 1, 5, 4)}, keys=("table", "out")),
    Visible("split_heads", "splits (2, 3, 6) into 3 heads", probes.split_heads, {"x": normal(1004, 2, 3, 6), "n_heads": 3}),
    Visible("combine_heads", "joins 2 heads of width 3", probes.combine_heads, {"x": normal(1005, 2, 2, 3, 3)}),
    Visible("scaled_dot_product_attention", "attends from 3 queries to 4 keys", probes.attention,
            attention_inputs(1006, 1, 3, 4, 2), keys=("output", "attn_probs")),
    Visible("scaled_dot_product_attention", "blocks the future with a causal mask", probes.attention,
            attention_inputs(1007, 1, 3, 3, 2, mask=np.tril(np.ones((3, 3), dtype=bool))[None]), keys=("output", "attn_probs")),
    Visible("make_padding_mask", "marks two padded tokens", probes.padding_mask, {"token_ids": np.array([[3, 4, 0], [5, 0, 0]]), "pad_id": 0}),
    Visible("make_causal_mask", "builds the mask of size 3", probes.causal_mask, {"size": 3}),
    Visible("MultiHeadAttention", "self-attention, d_model 6, 2 heads", probes.multi_head_attention,
            mha_inputs(1008, 1, 3, 6, 2), keys=("output", "attn_probs")),
    Visible("MultiHeadAttention", "applies self.dropout to the attention weights (train mode)", probes.multi_head_attention,
            mha_inputs(1009, 1, 3, 4, 2, keep=keep_mask(1010, 3, 3), p=0.5), keys=("output",)),
    Visible("display_attention", "draws 2 heads with the tokens on the axes", probes.display_attention,
            {"sentence": ["hello", "world", "again"], "translation": ["hallo", "welt"],
             "attention": np.full((2, 2, 3), 1 / 3, dtype=np.float32), "n_heads": 2, "n_rows": 1, "n_cols": 2}),
    Visible("display_attention", "takes attention weights that carry gradients (as a layer returns them)", probes.display_attention,
            {"sentence": ["a", "b"], "translation": ["a", "b"], "attention": np.full((1, 2, 2), 0.5, dtype=np.float32),
             "n_heads": 1, "n_rows": 1, "n_cols": 1, "requires_grad": True}, keys=("heads", "data")),
]
