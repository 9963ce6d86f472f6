"""Is the reference read as blocks, its solution regions cleared into stubs that raise naming their exercise?"""

from types import SimpleNamespace

import nbformat
import numpy as np
import pytest

from autograder.assignments import BEGIN_SOLUTION
from autograder.author.blocks import (
    CODE_STUB,
    END_SOLUTION,
    GENERATED_NOTE,
    _blocks_of,
    add_stub_raises,
    clear_solutions,
    given_code,
    given_code_names,
    read_blocks,
    solution_lines,
    strip_markers,
    stub_module,
)
from autograder.errors import KitError


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


# ------------------------------------------------------------------ the blocks of a reference, read directly

REFERENCE = '''\
# A comment above the module's docstring.
"""A small reference."""

import math

SCALE = 2  # a constant students get


# The helper's comment belongs to it.
def helper(x):
    values = [v * SCALE for v in x]
    return values


@staticmethod
def double(x):
    """Twice x."""
    ### BEGIN SOLUTION
    y = x * 2  # the doubling itself
    return y
    ### END SOLUTION


class Layer:
    def __init__(self, n):
        ### BEGIN SOLUTION
        self.n = n
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        values = [v * SCALE for v in x]  # as the helper does
        return [value + self.n for value in values]
        ### END SOLUTION
'''


@pytest.fixture
def small(tmp_path):
    """An assignment made of REFERENCE alone, its graded names in file order."""
    path = tmp_path / "reference.py"
    path.write_text(REFERENCE)
    return SimpleNamespace(name="small", reference_path=path, graded=("double", "Layer"))


def test_blocks_keep_their_comments_and_decorators_and_mark_the_exercises(small):
    """Does each top-level block start at its comments or decorators and end after its indented closing comments?"""
    docstring, blocks = read_blocks(small)
    assert docstring == '"""A small reference."""'
    assert [(b.name, b.is_exercise) for b in blocks] == [
        (None, False),
        (None, False),
        ("helper", False),
        ("double", True),
        ("Layer", True),
    ]
    helper, double = blocks[2], blocks[3]
    assert helper.source.startswith("# The helper's comment belongs to it.\ndef helper")
    assert double.source.startswith("@staticmethod\n") and double.source.endswith("    ### END SOLUTION\n")
    lines = REFERENCE.splitlines(keepends=True)
    assert "".join(lines[double.start : double.end]) == double.source


def test_exercises_out_of_the_contracts_order_are_refused(small):
    """Are exercises that differ from the graded names (or their order) refused, naming both lists and the fix?"""
    with pytest.raises(KitError) as refused:
        read_blocks(SimpleNamespace(reference_path=small.reference_path, graded=("Layer", "double")))
    message = str(refused.value)
    assert "the exercises are ['double', 'Layer'], but the contract lists ['Layer', 'double']" in message
    assert "in the contract's order" in message


def test_a_region_becomes_the_stub_that_raises_except_in_init():
    """Is each solution region replaced by `# YOUR CODE HERE` and a raise naming the exercise, __init__ by the comment only?"""
    source = next(b.source for b in _blocks_of(REFERENCE) if b.name == "Layer")
    cleared = clear_solutions(source, "Exercise 2 (Layer): do it.")
    assert cleared == (
        "class Layer:\n"
        "    def __init__(self, n):\n"
        f"        {CODE_STUB}\n"
        "\n"
        "    def forward(self, x):\n"
        f"        {CODE_STUB}\n"
        "        raise NotImplementedError('Exercise 2 (Layer): do it.')\n"
    )


def test_the_masters_raise_follows_the_region_where_it_cannot_run():
    """Does the master keep the solution and put the stub's raise after its return, so the reference runs?"""
    source = next(b.source for b in _blocks_of(REFERENCE) if b.name == "double")
    added = add_stub_raises(source, "Exercise 1 (double): do it.")
    assert added.endswith(
        "    return y\n    ### END SOLUTION\n    raise NotImplementedError('Exercise 1 (double): do it.')\n"
    )
    namespace = {}
    exec(added.replace("@staticmethod\n", ""), namespace)
    assert namespace["double"](3) == 6


def test_a_region_that_does_not_end_with_its_return_is_refused():
    """Is a region whose last line is not its return refused (the raise after it would run in the reference)?"""
    source = "def f(x):\n    ### BEGIN SOLUTION\n    y = x\n    ### END SOLUTION\n    return y\n"
    with pytest.raises(KitError, match="the solution region of f must end with its return statement"):
        add_stub_raises(source, "Exercise 1 (f): do it.")


@pytest.mark.parametrize(
    "source, problem",
    [
        (f"    {BEGIN_SOLUTION}\n    {BEGIN_SOLUTION}\n    {END_SOLUTION}\n", "nested ### BEGIN SOLUTION at line 3"),
        (f"    x = 1\n    {END_SOLUTION}\n", "### END SOLUTION without a begin at line 3"),
        (f"    {BEGIN_SOLUTION}\n    x = 1\n", "### BEGIN SOLUTION without an end"),
    ],
    ids=["nested", "an end alone", "a begin alone"],
)
def test_unbalanced_markers_are_refused_with_their_line(source, problem):
    """Are nested or unmatched solution markers refused, saying which and where, rather than cleared wrongly?"""
    with pytest.raises(KitError, match=problem):
        clear_solutions("def f():\n" + source, "m")


def test_the_stub_module_starts_at_the_docstring_under_its_note(small):
    """Does assignments/<name>.py say it is generated, drop the instructor's comments above the docstring, and clear each exercise?"""
    stubs = stub_module(small)
    assert stubs.startswith(f'# {GENERATED_NOTE.format(name="small")}\n"""A small reference."""\n')
    assert "A comment above the module's docstring" not in stubs
    assert "y = x * 2" not in stubs and "self.n = n" not in stubs
    assert "raise NotImplementedError('Exercise 1 (double): " in stubs
    assert "raise NotImplementedError('Exercise 2 (Layer): " in stubs
    assert "    values = [v * SCALE for v in x]\n    return values\n" in stubs  # given code stays


def test_given_code_is_everything_outside_the_exercises(small):
    """Are the imports, constants and helpers (with their comments) the given code, and the helper a given name?"""
    assert given_code(small) == (
        "import math\n\nSCALE = 2  # a constant students get\n\n\n"
        "# The helper's comment belongs to it.\ndef helper(x):\n    values = [v * SCALE for v in x]\n    return values"
    )
    assert given_code_names(small) == ["helper"]


def test_solution_lines_are_the_long_lines_only_regions_hold(small):
    """Are the secret lines those of a region, comments cut off, at least 12 characters, and never a line given outside?"""
    # "y = x * 2" and "self.n = n" are shorter; the helper holds "values = [v * SCALE for v in x]" too
    assert solution_lines(small) == {"return [value + self.n for value in values]"}


def test_markers_are_stripped_from_a_sample():
    """Does a sample's exercise keep its code without the solution markers?"""
    source = next(b.source for b in _blocks_of(REFERENCE) if b.name == "double")
    stripped = strip_markers(source)
    assert BEGIN_SOLUTION not in stripped and END_SOLUTION not in stripped
    assert "    y = x * 2  # the doubling itself\n    return y" in stripped
