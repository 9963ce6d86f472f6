"""Does a check in the notebook say which exercise to fix when the one checked calls another that fails?

MultiHeadAttention calls scaled_dot_product_attention: while that one fails its own
check, the layer's check runs again with the reference standing in for it (error
carried forward, answered from the reference's calls recorded on the check's inputs)
and reports the better run, saying so. Where that run is no better (or the assignment
turns carrying off), the layer's check says first to fix the called exercise, names the
called exercise's known mistakes as that exercise's, and names none of the layer's own
(a look-alike of the called exercise's slip would send the student to the wrong cell).
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


def test_a_called_exercises_mistake_is_said_to_be_its(mha, capsys):
    """Is an unscaled scaled_dot_product_attention named, in the layer's check, as that exercise's mistake?"""
    namespace = student(mha, SCORES, "scores = query @ key.transpose(-2, -1)")
    SelfCheck(without_carry(mha)).check(namespace["MultiHeadAttention"])
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
    SelfCheck(without_carry(mha)).check(namespace["MultiHeadAttention"])
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
    from autograder import assignments

    numpy_assignment = assignments.get("attention_numpy")
    namespace = student(
        numpy_assignment,
        "shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest entry of each slice becomes 0",
        "shifted = x - np.max(x, axis=0, keepdims=True)",
    )
    SelfCheck(without_carry(numpy_assignment)).check(namespace["multi_head_attention"])
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


SPLIT = "x = x.reshape(batch, seq, n_heads, d_model // n_heads)  # (batch, seq, n_heads, d_key)\n    return x.transpose(1, 2)"
SPLIT_WITHOUT_TRANSPOSE = "return x.reshape(batch, n_heads, seq, d_model // n_heads)"


def test_a_caller_is_checked_with_the_reference_standing_in(mha, capsys):
    """With split_heads wrong and the layer right, does the layer's check pass with the reference's split_heads,
    say so, and leave the notebook's own split_heads in place, failing its own check?"""
    namespace = student(mha, SPLIT, SPLIT_WITHOUT_TRANSPOSE)
    own = namespace["split_heads"]
    selfcheck = SelfCheck(data(mha))
    selfcheck.check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert printed.startswith(
        "MultiHeadAttention checked with the reference's split_heads, since yours fails its own checks.\n"
        "The demos that use MultiHeadAttention run your own split_heads: they wait until it passes its own checks.\n"
        "MultiHeadAttention: 7 of 7 visible checks pass"
    )
    assert namespace["split_heads"] is own
    selfcheck.check(own)
    assert "split_heads: 0 of 1 visible checks pass" in capsys.readouterr().out
    assert selfcheck.needs(namespace["MultiHeadAttention"]) is False  # a demo runs the student's own code


def test_a_carried_caller_names_its_own_mistake(mha, capsys):
    """With scaled_dot_product_attention unscaled and the layer dropping its output again, is the layer checked
    with the reference's attention, and its own mistake named as its own?"""
    namespace = student(
        mha,
        SCORES,
        "scores = query @ key.transpose(-2, -1)",
        "return self.Wo(combine_heads(A)), attn_probs",
        "return nn.functional.dropout(self.Wo(combine_heads(A)), self.dropout.p, self.training), attn_probs",
    )
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert printed.startswith(
        "MultiHeadAttention checked with the reference's scaled_dot_product_attention, since yours fails its own "
        "checks.\nThe demos that use MultiHeadAttention run your own scaled_dot_product_attention: they wait until it "
        "passes its own checks.\nMultiHeadAttention: 6 of 7 visible checks pass"
    )
    assert "This looks like a known mistake: The layer's output goes through dropout again" in printed
    assert "The scores are not scaled" not in printed


def test_a_call_the_reference_never_makes_is_not_answered(mha, capsys):
    """Where the layer passes its attention other arguments than the reference's layer does (no mask), does the
    notebook's check say that the reference cannot stand in there, and why?"""
    namespace = student(
        mha,
        SCORES,
        "scores = query @ key.transpose(-2, -1)",
        "scaled_dot_product_attention(Q, K, V, mask, self.dropout)",
        "scaled_dot_product_attention(Q, K, V, None, self.dropout)",
    )
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert "6 of 7 visible checks pass" in printed
    assert (
        "your code calls scaled_dot_product_attention with arguments the reference's code never passes it on this "
        "check's inputs" in printed
    )


def test_a_module_caller_is_checked_with_the_reference_module(capsys):
    """With SublayerConnection pre-norm, is EncoderLayer checked with the reference's SublayerConnection, the
    sublayers it passes (functions of its own) run by its own code?"""
    from autograder import assignments

    encoder_block = assignments.get("encoder_block")
    namespace = student(
        encoder_block,
        "return self.norm(x + self.dropout(sublayer(x)))",
        "return x + self.dropout(sublayer(self.norm(x)))",
    )
    SelfCheck(data(encoder_block)).check(namespace["EncoderLayer"])
    printed = capsys.readouterr().out
    assert printed.startswith(
        "EncoderLayer checked with the reference's SublayerConnection, since yours fails its own checks.\n"
        "The demos that use EncoderLayer run your own SublayerConnection: they wait until it passes its own checks.\n"
        "EncoderLayer: 4 of 4 visible checks pass"
    )


def test_a_kept_stand_in_answers_nothing_later(mha, capsys):
    """Does a stand-in that the layer keeps in a global refuse to answer once the layer's checks are over?"""
    import torch

    from autograder.public.plain_trees import CarryError

    namespace = student(
        mha,
        SPLIT,
        SPLIT_WITHOUT_TRANSPOSE,
        'PAD = "<pad>"',
        'KEPT = []\nPAD = "<pad>"',
        "Q = split_heads(self.Wq(query), self.n_heads)",
        "KEPT.append(split_heads)\n        Q = split_heads(self.Wq(query), self.n_heads)",
    )
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    assert "7 of 7 visible checks pass" in capsys.readouterr().out
    stand_in = namespace["KEPT"][-1]
    assert stand_in is not namespace["split_heads"]
    with pytest.raises(CarryError, match="does not answer now"):
        stand_in(torch.zeros(1, 2, 4), 2)


def test_the_release_notebook_carries_errors_forward(mha, capsys):
    """Does the self-check bundle shipped in the release notebook check the layer with the reference's
    split_heads, answering from the calls it carries, when the notebook's split_heads is wrong?"""
    import json

    from autograder.author import bundle, release

    mha.module("probes")  # registers the probes the checks name
    notebook = json.loads((mha.release_dir / mha.notebook_name).read_text())
    shipped = json.loads(bundle.files_of_cell(release.bundle_cell(notebook))["visible.json"])
    assert shipped["carry_forward"] is True and shipped["kinds"]["MultiHeadAttention"] == "module"
    namespace = student(mha, SPLIT, SPLIT_WITHOUT_TRANSPOSE)
    SelfCheck(shipped).check(namespace["MultiHeadAttention"])
    assert capsys.readouterr().out.startswith(
        "MultiHeadAttention checked with the reference's split_heads, since yours fails its own checks.\n"
        "The demos that use MultiHeadAttention run your own split_heads: they wait until it passes its own checks.\n"
        "MultiHeadAttention: 7 of 7 visible checks pass"
    )


def numpy_student(old: str, new: str, *more: str) -> dict:
    from autograder import assignments

    return student(assignments.get("attention_numpy"), old, new, *more)


@pytest.mark.parametrize(
    "old, new, name, own",
    [
        (
            "return softmax(scores, axis=-1) @ v  # (n, d_v)",
            "return softmax(scores, axis=0) @ v",
            "qkv_attention",
            "The softmax of the scores runs down the columns (axis=0)",
        ),
        (
            "return weights @ x  # (n, d)",
            "return weights.T @ x",
            "basic_self_attention",
            "The softmax runs down the columns: each ROW",
        ),
        (
            "heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))",
            "heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns], scale=False))",
            "multi_head_attention",
            "The heads' scores are not scaled",
        ),
    ],
    ids=["qkv softmax(axis=0)", "weights.T @ x", "scale=False passed"],
)
def test_a_passing_callee_called_otherwise_is_not_blamed(capsys, old, new, name, own):
    """With every exercise it calls passing its checks, is the caller's own mistake named, as its own, and no
    mistake of what it calls said to be in that exercise?"""
    from autograder import assignments

    namespace = numpy_student(old, new)
    SelfCheck(data(assignments.get("attention_numpy"))).check(namespace[name])
    printed = capsys.readouterr().out
    assert f"This looks like a known mistake: {own}" in printed
    assert f", which {name} calls)" not in printed and "This is what a known mistake" not in printed


INLINE_ATTENTION = (
    "scores = Q @ K.transpose(-2, -1)\n"
    "        if mask is not None:\n"
    '            scores = scores.masked_fill(mask == 0, float("-inf"))\n'
    "        attn_probs = scores.softmax(dim=-1)\n"
    "        A = self.dropout(attn_probs) @ V"
)


def test_a_callee_the_caller_does_not_call_is_a_hint_only(mha, capsys):
    """With the layer's attention written inline, unscaled, and a right scaled_dot_product_attention beside it, is
    the attention's mistake given as a hint to look where the layer does that step itself, and named nowhere?"""
    namespace = student(
        mha, "A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)", INLINE_ATTENTION
    )
    selfcheck = SelfCheck(data(mha))
    selfcheck.check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert "(in scaled_dot_product_attention, which MultiHeadAttention calls)" not in printed
    assert (
        "This is what a known mistake of scaled_dot_product_attention gives, yet MultiHeadAttention does not call "
        "scaled_dot_product_attention: look where it does that step itself. That mistake: The scores are not scaled"
    ) in printed


def test_an_inline_split_under_a_passing_split_heads_is_not_blamed_on_it(mha, capsys):
    """With split_heads right and the layer reshaping straight to (batch, n_heads, seq, d_key) itself, is no mistake
    said to be in split_heads?"""
    straight = "{}.reshape({}.size(0), self.n_heads, {}.size(1), -1)"
    namespace = student(
        mha,
        "Q = split_heads(self.Wq(query), self.n_heads)",
        "Q = " + straight.format("self.Wq(query)", "query", "query"),
        "K = split_heads(self.Wk(key), self.n_heads)",
        "K = " + straight.format("self.Wk(key)", "key", "key"),
        "V = split_heads(self.Wv(value), self.n_heads)",
        "V = " + straight.format("self.Wv(value)", "value", "value"),
    )
    SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    printed = capsys.readouterr().out
    assert "FAIL" in printed and "(in split_heads, which MultiHeadAttention calls)" not in printed


@pytest.mark.parametrize(
    "dim, named, not_named",
    [
        ("-2", "The softmax runs over the queries", "runs over dim=1"),
        ("1", "The softmax runs over dim=1", "without dim"),
    ],
)
def test_two_mistakes_alike_on_one_check_are_told_apart_by_another(mha, capsys, dim, named, not_named):
    """softmax(dim=-2) and softmax(dim=1) give the same weights on 3-D scores, and dim=1 and no dim on 4-D ones: is
    only the mistake that explains every failing check named, on each of them?"""
    namespace = student(mha, "attn_probs = scores.softmax(dim=-1)", f"attn_probs = scores.softmax(dim={dim})")
    SelfCheck(data(mha)).check(namespace["scaled_dot_product_attention"])
    printed = capsys.readouterr().out
    assert printed.count(named) == printed.count("[FAIL]") > 1 and not_named not in printed


def test_check_takes_several_exercises_and_refuses_anything_else(capsys):
    """Does check(softmax, basic_self_attention) check both, check(softmax, device=...) refuse saying what it takes,
    and help(check) name this assignment's own exercises?"""
    from autograder import assignments

    namespace = numpy_student("return weights @ x  # (n, d)", "return weights @ x")
    selfcheck = SelfCheck(data(assignments.get("attention_numpy")))
    selfcheck.check(namespace["softmax"], namespace["basic_self_attention"])
    printed = capsys.readouterr().out
    assert (
        "softmax: 4 of 4 visible checks pass" in printed
        and "basic_self_attention: 2 of 2 visible checks pass" in printed
    )
    selfcheck.check(namespace["softmax"], device="cpu")
    assert capsys.readouterr().out == (
        "check() takes only exercises, e.g. check(softmax) or check(softmax, basic_self_attention); not (softmax, device=)\n"
    )
    assert "check(softmax)" in selfcheck.check.__doc__ and "tokenize" not in selfcheck.check.__doc__


SPLIT_STRAIGHT = "return x.reshape(batch, n_heads, seq, d_model // n_heads)"


def test_a_demo_names_the_exercise_to_fix_and_notices_the_fix(mha, capsys):
    """With split_heads wrong under a right layer, does a demo that needs the layer wait naming split_heads as the
    one to fix, and run as soon as split_heads is redefined right, with no need to run the layer's cells again?"""
    namespace = student(mha, SPLIT, SPLIT_WITHOUT_TRANSPOSE)
    selfcheck = SelfCheck(data(mha))
    selfcheck.check(namespace["MultiHeadAttention"])  # passes with the reference's split_heads
    capsys.readouterr()
    assert selfcheck.needs(namespace["MultiHeadAttention"]) is False
    assert capsys.readouterr().out == (
        "This cell waits for MultiHeadAttention, which passes its checks only with the reference's split_heads: "
        "fix split_heads, then run this cell again.\n"
    )
    namespace["split_heads"] = student(mha, SPLIT, SPLIT)["split_heads"]  # the student runs the fixed cell
    assert selfcheck.needs(namespace["MultiHeadAttention"]) is True


def test_a_demo_waits_for_exercises_that_share_a_failing_callee_naming_it(mha, capsys):
    """With tokenize keeping punctuation, do build_vocab and encode (right, both calling it) wait naming tokenize, and
    does an exercise failing even with the reference's callee say so, and that it must pass itself?"""
    namespace = student(mha, "return without_punctuation.split()", "return text.lower().split()")
    selfcheck = SelfCheck(data(mha))
    assert selfcheck.needs(namespace["build_vocab"], namespace["encode"], namespace["tokenize"]) is False
    assert capsys.readouterr().out == (
        "This cell waits for build_vocab and encode, which pass their checks only with the reference's tokenize: "
        "fix tokenize, then run this cell again.\n"
    )
    namespace = student(
        mha,
        SPLIT,
        SPLIT_WITHOUT_TRANSPOSE,
        "return self.Wo(combine_heads(A)), attn_probs",
        "return combine_heads(A), attn_probs",
    )
    assert selfcheck.needs(namespace["MultiHeadAttention"]) is False
    assert capsys.readouterr().out == (
        "This cell waits for MultiHeadAttention, which fails its checks even with the reference's split_heads: "
        "fix split_heads, then run this cell again once MultiHeadAttention passes its checks.\n"
    )


def test_a_demo_says_which_name_an_earlier_cell_has_not_made():
    """Does a demo cell that reads a name no cell has made yet (an earlier demo waited) say so, rather than stop
    Run All with a NameError, and leave the names it makes itself, builtins and known names alone?"""
    from autograder.public.notebook import not_made_yet, unbound_names

    cell = (
        "import math\n"
        "ids = encode(['a b'], stoi)\n"
        "def show(row, width=2):\n    return [itos[i] for i in row][:width]\n"
        "for row in ids.tolist():\n    print(show(row), len(row), math.pi, later)\n"
        "later = 1\n"
        "try:\n    pass\nexcept ValueError as problem:\n    print(problem)\n"
    )
    assert unbound_names(cell, {"encode": object()}) == ["stoi", "itos"]
    assert unbound_names("print(", {}) == []
    assert not_made_yet(["stoi"]) == (
        "This cell needs stoi, which is made by a cell above it that has not run since (it waited, or was skipped): "
        "run the cells above it that define stoi, then this cell again."
    )
