"""Is the reference read as blocks, its solution regions cleared into stubs that raise naming their exercise?"""

import nbformat
import numpy as np
import pytest

from autograder.author.blocks import stub_module


def test_release_exercise_cells_are_the_stubs(assignment):
    """Is each exercise cell of the release exactly its definition in assignments/<name>.py?"""
    stub = assignment.stub_path.read_text()
    assert stub == stub_module(assignment)
    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    cells = {cell.id: cell.source for cell in notebook.cells}
    for name in assignment.graded:
        assert cells[name] in stub, f"the release's {name} cell differs from the stub module"
        assert "# YOUR CODE HERE" in cells[name]


def test_every_stub_raises_naming_its_exercise(mha):
    """Does calling each blank stub raise NotImplementedError that names the exercise?"""
    namespace = {}
    exec(compile(mha.stub_path.read_text(), str(mha.stub_path), "exec"), namespace)
    import torch

    calls = {
        "tokenize": lambda f: f("a b"),
        "build_vocab": lambda f: f(["a"]),
        "encode": lambda f: f(["a"], {"<pad>": 0, "<unk>": 1}),
        "Embeddings": lambda f: f(5, 4)(torch.zeros(1, 2, dtype=torch.long)),
        "PositionalEncoding": lambda f: f(4)(torch.zeros(1, 2, 4)),
        "split_heads": lambda f: f(torch.zeros(1, 2, 4), 2),
        "combine_heads": lambda f: f(torch.zeros(1, 2, 2, 2)),
        "scaled_dot_product_attention": lambda f: f(*[torch.zeros(1, 2, 4)] * 3),
        "make_padding_mask": lambda f: f(torch.zeros(1, 2)),
        "make_causal_mask": lambda f: f(3),
        "MultiHeadAttention": lambda f: f(8, 2)(*[torch.zeros(1, 2, 8)] * 3),
        "display_attention": lambda f: f(["a"], ["a"], torch.zeros(1, 1, 1), 1, 1, 1),
    }
    assert set(calls) == set(mha.graded)
    for number, name in enumerate(mha.graded, start=1):
        with pytest.raises(NotImplementedError, match=rf"Exercise {number} \({name}\)") as raised:
            calls[name](namespace[name])
        # printed under the check cell, it says which line of which cell
        assert "replace the `raise NotImplementedError` line in the exercise cell" in str(raised.value)


def test_every_numpy_stub_raises_naming_its_exercise():
    """Does calling each blank NumPy stub raise NotImplementedError that names the exercise?"""
    from autograder import assignments

    numpy_assignment = assignments.get("attention_numpy")
    namespace = {}
    exec(compile(numpy_assignment.stub_path.read_text(), str(numpy_assignment.stub_path), "exec"), namespace)
    x, w = np.ones((2, 4)), np.ones((4, 4))
    calls = {
        "positional_encoding": lambda f: f(3, 4),
        "softmax": lambda f: f(x),
        "basic_self_attention": lambda f: f(x),
        "qkv_attention": lambda f: f(x, w, w, w),
        "multi_head_attention": lambda f: f(x, w, w, w, w, 2),
    }
    assert set(calls) == set(numpy_assignment.graded)
    for number, name in enumerate(numpy_assignment.graded, start=1):
        with pytest.raises(NotImplementedError, match=rf"Exercise {number} \({name}\)"):
            calls[name](namespace[name])


def test_every_encoder_block_stub_raises_naming_its_exercise():
    """Does each blank encoder_block stub raise NotImplementedError naming its exercise, while the given attention runs?"""
    import torch

    from autograder import assignments

    encoder = assignments.get("encoder_block")
    namespace = {}
    exec(compile(encoder.stub_path.read_text(), str(encoder.stub_path), "exec"), namespace)
    x = torch.zeros(1, 2, 4)
    output, attn_probs = namespace["MultiHeadAttention"](4, 2)(x, x, x)  # given code, not an exercise
    assert output.shape == (1, 2, 4) and attn_probs.shape == (1, 2, 2, 2)
    calls = {
        "LayerNorm": lambda f: f(4)(x),
        "PositionwiseFeedForward": lambda f: f(4, 8)(x),
        "SublayerConnection": lambda f: f(4)(x, lambda y: y),
        "EncoderLayer": lambda f: f(4, 2, 8)(x),
    }
    assert set(calls) == set(encoder.graded)
    for number, name in enumerate(encoder.graded, start=1):
        with pytest.raises(NotImplementedError, match=rf"Exercise {number} \({name}\)"):
            calls[name](namespace[name])
