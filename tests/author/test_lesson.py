"""Does each demo cell of a lesson wait for exactly the exercises it needs?

A demo cell's ``# needs:`` line makes it wait, all or nothing, until those exercises
pass their checks; a later cell that reads a name the waiting cell would have made
must wait too, or it stops Run All with a NameError.
"""

import ast

import pytest

from autograder.author.lesson import LessonCell, _defined, _reads, with_needs


def needs_of(mha, *sources: str) -> list[str]:
    """The "# needs:" line of each demo cell (or "" where it has none), the cells given in order."""
    cells = with_needs(mha, [LessonCell("code", source) for source in sources])
    return [cell.text.split("\n", 1)[0] if cell.text.startswith("# needs:") else "" for cell in cells]


def test_every_name_of_a_waiting_cell_carries_the_whole_cells_needs(mha):
    """Does a name bound without any exercise, in a cell that waits, make its readers wait too?"""
    made = 'sentences = ["a b"]\nids = encode(sentences, build_vocab(sentences))'
    assert needs_of(mha, made, "print(sentences)") == ["# needs: build_vocab, encode", "# needs: build_vocab, encode"]


def test_a_cell_that_binds_a_name_anew_before_reading_it_does_not_wait(mha):
    """Is a name rebound at the top of a cell, then read, still free of what an earlier cell made it with?"""
    assert needs_of(mha, "ids = encode(['a'], {})", "ids = [1, 2]\nprint(ids)")[1] == ""


def test_a_later_cell_takes_the_needs_of_the_cell_that_last_bound_a_name(mha):
    """When a second cell binds a name again, do its readers wait for that cell's exercises only?"""
    first, second = "x = tokenize('a')", "x = encode(['a'], {})"
    assert needs_of(mha, first, second, "print(x)")[2] == "# needs: encode"


@pytest.mark.parametrize(
    "source",
    [
        "def first(ids):\n    return ids[0]",
        "def first(*ids, **stoi):\n    return ids, stoi",
        "first = lambda ids: ids[0]",
        "lengths = [len(ids) for ids in [[1], [2, 3]]]",
        "lengths = {ids: 1 for ids in range(3)}",
        "def first():\n    ids = [1]\n    return ids[0]",
        "def outer():\n    ids = 3\n    def inner():\n        return ids\n    return inner()",
        "class Batch:\n    ids = 3\n    size = ids + 1",
        "class Batch:\n    def __init__(self, ids):\n        self.ids = ids",
        "for ids in range(3):\n    print(ids)",
        "try:\n    pass\nexcept ValueError as ids:\n    print(ids)",
    ],
    ids=[
        "a parameter",
        "*args and **kwargs",
        "a lambda's argument",
        "a comprehension's variable",
        "a dict comprehension's variable",
        "a function's local",
        "an enclosing function's local",
        "a class body's own name",
        "a method's parameter",
        "a loop's own variable",
        "an exception's name",
    ],
)
def test_names_local_to_a_scope_are_not_reads_of_globals(mha, source):
    """Does a name that only shadows the global ``ids`` leave the cell free of what made ``ids``?"""
    assert needs_of(mha, "ids = encode(['a'], {})", source)[1] == ""


@pytest.mark.parametrize(
    "source",
    [
        "def first():\n    return ids[0]",
        "first = lambda: ids[0]",
        "lengths = [len(row) for row in ids]",
        "class Batch:\n    def size(self):\n        return len(ids)",
        "class Batch:\n    size = len(ids)",
        "def first(rows=ids):\n    return rows[0]",
        "def outer():\n    def inner():\n        return ids\n    return inner()",
    ],
    ids=[
        "a function's body",
        "a lambda's body",
        "a comprehension's iterable",
        "a method's body",
        "a class body",
        "a default argument",
        "a nested function",
    ],
)
def test_a_global_read_from_any_scope_is_a_read(mha, source):
    """Does code that reads the global ``ids`` from inside a function, lambda, comprehension or class wait?"""
    assert needs_of(mha, "ids = encode(['a'], {})", source)[1] == "# needs: encode"


def test_what_a_statement_binds_leaves_out_its_functions_locals():
    """Does a definition bind its own name only, not the names its body assigns?"""
    statement = ast.parse(
        "def train(model):\n    global steps\n    scores, loss = model(), 0\n    steps = 1\n    return [s for s in scores]"
    ).body[0]
    assert _defined(statement) == {"train", "steps"}
    assert _reads(statement) == set()
