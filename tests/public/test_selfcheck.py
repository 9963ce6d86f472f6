"""Does a check in the notebook say which exercise to fix when the one checked calls another that fails?

MultiHeadAttention calls scaled_dot_product_attention: while that one fails its own
check, the layer's check says so first, names the called exercise's known mistakes as
that exercise's, and names none of the layer's own (a look-alike of the called
exercise's slip would send the student to the wrong cell).
"""

from functools import cache

import pytest

from autograder.author.visible import visible_data
from autograder.public.notebook import SelfCheck

SCORES = "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)"
FIRST = "MultiHeadAttention calls scaled_dot_product_attention, which fails its own check: fix that first.\n"


@cache
def data(assignment):
    return visible_data(assignment)


def student(assignment, old: str, new: str) -> dict:
    """The reference with one edit, run as a notebook's cells run: its functions share one namespace."""
    namespace: dict = {}
    source = assignment.reference_path.read_text()
    assert source.count(old) == 1
    exec(compile(source.replace(old, new), "student", "exec"), namespace)
    return namespace


def test_a_called_exercises_mistake_is_said_to_be_its(mha, capsys):
    """Is an unscaled scaled_dot_product_attention named, in the layer's check, as that exercise's mistake?"""
    namespace = student(mha, SCORES, "scores = query @ key.transpose(-2, -1)")
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert printed.startswith(FIRST)
    assert (
        "known mistake (in scaled_dot_product_attention, which MultiHeadAttention calls): The scores are not" in printed
    )
    assert "This looks like a known mistake: " not in printed


def test_the_callers_look_alike_mistake_is_not_named_while_the_called_one_fails(mha, capsys):
    """Does a slip of scaled_dot_product_attention that the layer's outputs share with a mistake of the layer's own
    (scores divided by sqrt(d_model)) leave that mistake unnamed, the layer's check pointing to the called exercise?"""
    namespace = student(mha, SCORES, "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k * query.size(1))")
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert printed.startswith(FIRST)
    assert "sqrt(d_model) (the embedding size)" not in printed


def test_a_caller_whose_calls_pass_reports_as_before(mha, capsys):
    """With every exercise it calls passing, does the layer's check name its own mistake, as its own?"""
    namespace = student(mha, "return self.Wo(combine_heads(A)), attn_probs", "return combine_heads(A), attn_probs")
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert (
        printed.startswith("MultiHeadAttention: ")
        and "This looks like a known mistake: The output projection" in printed
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the slip overflows on purpose
def test_a_numpy_caller_names_every_failing_exercise_it_reaches(capsys):
    """Does multi_head_attention, calling qkv_attention, which calls a failing softmax, name both, in order?"""
    from autograder import assignment as assignments

    numpy_assignment = assignments.get("attention_numpy")
    namespace = student(
        numpy_assignment,
        "shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0",
        "shifted = x - np.max(x, axis=0, keepdims=True)",
    )
    SelfCheck(data(numpy_assignment)).check(namespace["multi_head_attention"])
    printed = capsys.readouterr().out
    assert printed.startswith(
        "multi_head_attention calls softmax and qkv_attention, which fail their own checks: fix them first.\n"
    )


PYPLOT_FIGURE = 'fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")'


def test_a_figure_from_pyplot_passes_with_a_note_and_is_closed(mha, capsys):
    """Does a display_attention that draws with plt.subplots pass, with a note that the notebook shows it twice,
    and leave no pyplot figure open for Jupyter to show under the check cell?"""
    import matplotlib.pyplot as plt

    namespace = student(mha, PYPLOT_FIGURE, 'fig = plt.figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")')
    namespace["plt"] = plt
    before = plt.get_fignums()
    SelfCheck(data(mha)).check(namespace["display_attention"])
    printed = capsys.readouterr().out
    assert plt.get_fignums() == before
    assert "display_attention: 4 of 4 visible checks pass" in printed
    assert "[note] builds its figure with Figure(...)" in printed
    assert "the figure comes from pyplot, so the notebook shows it twice" in printed


def test_a_failing_attempt_leaves_no_pyplot_figure(mha, capsys):
    """Does a display_attention that opens pyplot figures and then raises leave none of them open?"""
    import matplotlib.pyplot as plt

    def display_attention(sentence, translation, attention, n_heads=8, n_rows=4, n_cols=2):
        plt.subplots(n_rows, n_cols)
        raise ValueError("not finished")

    before = plt.get_fignums()
    SelfCheck(data(mha)).check(display_attention)
    assert "FAIL" in capsys.readouterr().out
    assert plt.get_fignums() == before


def test_a_figure_built_with_figure_has_no_note(mha, capsys):
    """Does the reference's display_attention pass without any note?"""
    namespace = student(mha, PYPLOT_FIGURE, PYPLOT_FIGURE + "  # as given")
    SelfCheck(data(mha)).check(namespace["display_attention"])
    printed = capsys.readouterr().out
    assert "4 of 4 visible checks pass" in printed and "[note]" not in printed


def test_a_waiting_demo_says_to_run_it_again(mha, capsys):
    """Does a demo that waits for an exercise say that it must be run again once the exercise passes?"""
    from autograder.author.blocks import exercise_message

    message = exercise_message(mha, "tokenize")

    def tokenize(text):
        raise NotImplementedError(message)

    def build_vocab(texts):
        raise NotImplementedError(message)

    selfcheck = SelfCheck(data(mha))
    assert selfcheck.needs(tokenize) is False
    assert "This cell waits for tokenize: run this cell again once it passes its checks." in capsys.readouterr().out
    assert selfcheck.needs(tokenize, build_vocab) is False
    assert "run this cell again once they pass their checks." in capsys.readouterr().out
