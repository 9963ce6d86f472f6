"""Students for the notebook's checks: the reference with edits, run as a notebook's cells run, and the
visible data its self-check bundle carries."""

from functools import cache

from autograder import assignments
from autograder.author.visible import visible_data

SPLIT = "x = x.reshape(batch, seq, n_heads, d_model // n_heads)  # (batch, seq, n_heads, d_key)\n    return x.transpose(1, 2)"
SPLIT_WITHOUT_TRANSPOSE = "return x.reshape(batch, n_heads, seq, d_model // n_heads)"


@cache
def data(assignment):
    return visible_data(assignment)


def without_carry(assignment) -> dict:
    """The visible data of an assignment that turns error carried forward off."""
    return {**data(assignment), "carry_forward": False}


def student(assignment, old: str, new: str, *more: str) -> dict:
    """The reference with edits (old, new, old, new, ...), run as a notebook's cells run: its functions share
    one namespace."""
    namespace: dict = {}
    source = assignment.reference_path.read_text()
    edits = (old, new, *more)
    for before, after in zip(edits[::2], edits[1::2]):
        assert source.count(before) == 1
        source = source.replace(before, after)
    exec(compile(source, "student", "exec"), namespace)
    return namespace


def numpy_student(old: str, new: str, *more: str) -> dict:
    """attention_numpy's reference with edits, as ``student`` makes it."""
    return student(assignments.get("attention_numpy"), old, new, *more)
