"""Do the notebook's check() and needs() say what to run, what to fix and what a demo waits for, and never
raise into the notebook?"""

import pytest

from autograder import assignments
from autograder.public import notebook
from autograder.public.notebook import SelfCheck, needed_names, not_made_yet, setup_notebook, unbound_names

from .students import SPLIT, SPLIT_WITHOUT_TRANSPOSE, data, numpy_student, student, without_carry


@pytest.mark.slow
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


def test_check_takes_several_exercises_and_refuses_anything_else(capsys):
    """Does check(softmax, basic_self_attention) check both, check(softmax, device=...) refuse saying what it takes,
    and help(check) name this assignment's own exercises?"""

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


@pytest.mark.slow
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


def test_a_demo_waiting_on_a_failing_callee_without_carrying_says_both_fail(mha, capsys):
    """Where the assignment turns carrying off, does a demo waiting for the layer say that the split_heads it calls
    fails too, to be fixed first?"""
    namespace = student(mha, SPLIT, SPLIT_WITHOUT_TRANSPOSE)
    assert SelfCheck(without_carry(mha)).needs(namespace["MultiHeadAttention"]) is False
    assert capsys.readouterr().out == (
        "This cell waits for MultiHeadAttention, which calls split_heads (fails too): fix split_heads, then run "
        "this cell again once MultiHeadAttention passes its checks.\n"
    )


def test_check_refuses_what_is_no_exercise_naming_the_exercises(mha, capsys):
    """Does check("softmax"), a name in quotes, print which exercises check() takes, and check() alone say how to
    call it, neither raising?"""
    selfcheck = SelfCheck(data(mha))
    selfcheck.check("split_heads")
    assert capsys.readouterr().out.startswith(
        "check() takes one of the exercises themselves (tokenize, build_vocab, encode, "
    )
    selfcheck.check()
    assert capsys.readouterr().out == (
        "check() takes only exercises, e.g. check(tokenize) or check(tokenize, build_vocab); not ()\n"
    )


def test_a_verdict_is_kept_for_one_version_of_the_code_it_judged(mha, monkeypatch):
    """Is an exercise's visible run done once while its code and its callees' stay the same, and again once a
    callee it calls is redefined?"""
    selfcheck = SelfCheck(data(mha))
    runs: list[str] = []
    run = selfcheck.visible.run
    monkeypatch.setattr(selfcheck.visible, "run", lambda impl, name, *more: runs.append(name) or run(impl, name, *more))
    namespace = student(mha, SPLIT, SPLIT)
    layer = namespace["MultiHeadAttention"]
    assert selfcheck.passes(layer) and selfcheck.passes(layer)
    assert runs.count("MultiHeadAttention") == 1
    namespace["split_heads"] = student(mha, SPLIT, SPLIT_WITHOUT_TRANSPOSE)["split_heads"]
    assert selfcheck.passes(layer) is False
    assert runs.count("MultiHeadAttention") == 2


def test_a_cells_needs_line_is_read_from_its_first_line_only():
    """Is "# needs: A, B" read as the exercises A and B (blank lines before it allowed), and a cell without it None?"""
    assert needed_names("\n#needs: Embeddings,  MultiHeadAttention ,\nx = 1") == ["Embeddings", "MultiHeadAttention"]
    assert needed_names("# needs:") == []
    assert needed_names("x = 1\n# needs: Embeddings") is None


def test_unbound_names_knows_every_way_a_cell_binds_a_name():
    """Are names bound by imports (a dotted one by its first part), comprehensions, with, except, match and
    lambda taken as made by the cell, and a cell that does not parse said to need nothing?"""
    cell = (
        "import os.path\n"
        "squares = [n * n for n in range(3)]\n"
        "with open('f') as handle:\n    pass\n"
        "match squares:\n    case [first, *others]:\n        pass\n    case {'k': v, **rest}:\n        pass\n"
        "f = lambda z: z + offset\n"
        "print(os, squares, handle, first, others, v, rest, f)\n"
    )
    assert unbound_names(cell, {}) == ["offset"]
    assert unbound_names(cell, {"offset": 1}) == []
    assert unbound_names("x = (", {}) == []


class Shell:
    """What setup_notebook uses of IPython's shell."""

    def __init__(self, user_ns: dict):
        self.user_ns = user_ns
        self.magics: dict = {}
        self.input_transformers_cleanup: list = []
        self.ran: list[str] = []
        self.compile = type("Compile", (), {"_filename_map": {"/tmp/ipykernel_9/42.py": 7}})()

    def register_magic_function(self, function, magic_kind, magic_name):
        self.magics[(magic_kind, magic_name)] = function

    def transform_cell(self, cell: str) -> str:
        return cell

    def run_cell(self, cell: str, store_history: bool):
        self.ran.append(cell)


@pytest.fixture
def shell(monkeypatch):
    """A notebook's shell holding attention_numpy's reference softmax, set up as the release's first cell does."""
    import IPython

    made = Shell({"softmax": numpy_student("def softmax(", "def softmax(")["softmax"]})
    monkeypatch.setattr(IPython, "get_ipython", lambda: made)
    monkeypatch.setattr(notebook, "FRAME_NAMES", [])
    setup_notebook(SelfCheck(data(assignments.get("attention_numpy"))))
    return made


def test_a_demo_cell_runs_only_once_what_it_needs_is_there(shell, capsys):
    """Is a "# needs:" cell turned into the magic that guards it, which says what is missing (an exercise not yet
    run, a name no cell has made) and runs the rest of the cell once all is there?"""
    (guard,) = shell.input_transformers_cleanup
    assert guard(["# needs: softmax, qkv_attention\n", "print(scores)\n"]) == [
        "%%selfcheck_needs softmax, qkv_attention\n",
        "print(scores)\n",
    ]
    assert guard(["print(1)\n"]) == ["print(1)\n"]
    magic = shell.magics[("cell", "selfcheck_needs")]
    magic("softmax, qkv_attention", "print(scores)\n")
    assert capsys.readouterr().out == "This cell waits for qkv_attention: run the cells above it first.\n"
    magic("softmax", "print(scores)\n")
    assert capsys.readouterr().out == not_made_yet(["scores"]) + "\n" and shell.ran == []
    magic("softmax", "print(softmax)\n")
    assert shell.ran == ["print(softmax)\n"]


def test_a_demo_cell_does_not_run_while_nbgrader_autogrades(shell, capsys, monkeypatch):
    """Under nbgrader autograde (NBGRADER_EXECUTION=autograde in its kernel) does a demo cell say that it does not run,
    and not run, where it would run otherwise, as under nbgrader validate; and does one that defines an exercise (a
    student's code written there) still run?"""
    magic = shell.magics[("cell", "selfcheck_needs")]
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    magic("softmax", "print(softmax)\n")
    assert capsys.readouterr().out == notebook.AUTOGRADING + "\n" and shell.ran == []
    written_there = "def softmax(x, axis=-1):\n    return x\n"  # a student's exercise, in a demo cell
    magic("softmax", written_there)
    assert shell.ran == [written_there]
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    magic("softmax", "print(softmax)\n")
    assert shell.ran == [written_there, "print(softmax)\n"]


def test_the_names_a_cell_defines_are_its_own_statements():
    """Does defined_names read a cell's defs, classes, assignments and imports, not a name a function binds inside?"""
    cell = "import numpy as np, os.path\ndef f(x):\n    inner = x\nclass C: pass\na, (b, c) = 1, (2, 3)\nd: int = 4\n"
    assert notebook.defined_names(cell) == {"np", "os", "f", "C", "a", "b", "c", "d"}
    assert notebook.defined_names("x = (") == set()


def test_an_error_in_a_cell_is_placed_in_the_cell_jupyter_names(shell):
    """Does a file Jupyter compiled a cell into read as "cell In [n]" in a message, and another file as itself?"""
    (name_of,) = notebook.FRAME_NAMES
    assert name_of("/tmp/ipykernel_9/42.py") == "cell In [7]" and name_of("/home/a.py") is None
