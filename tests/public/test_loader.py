"""Is a submission found and loaded fairly, whatever form it takes?"""

import json

import pytest

from autograder.public.loader import (
    BUNDLE_MARKER,
    Entry,
    SubmissionError,
    defined_names,
    definitions,
    find_entry,
    graded_source,
    is_stub,
    load,
    note_defines,
)

GRADED = ("tokenize", "split_heads")


def notebook(path, *cells, counts=None):
    counts = counts or [None] * len(cells)
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": n}
                    for cell, n in zip(cells, counts)
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    return path


def test_failing_cells_do_not_hide_later_definitions(tmp_path):
    """Are definitions after a failing cell, a sys.exit() and an IPython magic still loaded?"""
    path = notebook(
        tmp_path / "work.ipynb",
        "%matplotlib inline\nimport math",
        "def tokenize(text):\n    return text.split()",
        "raise RuntimeError('scratch')",
        "import sys\nsys.exit(3)",
        "!pip install nothing",
        "def split_heads(x, n):\n    return x",
    )
    loaded = load(Entry("notebook", path))
    assert {"tokenize", "split_heads"} <= set(loaded.namespace)
    assert len(loaded.notes) == 2 and "RuntimeError: scratch" in loaded.notes[0] and "SystemExit" in loaded.notes[1]


def test_module_statements_after_an_error_still_load(tmp_path):
    """Does a .py file whose demo code fails still define its later functions?"""
    path = tmp_path / "work.py"
    path.write_text(
        "def tokenize(t):\n    return t.split()\n\nprint(undefined_name)\n\ndef split_heads(x, n):\n    return x\n"
    )
    loaded = load(Entry("module", path))
    assert "split_heads" in loaded.namespace and "NameError" in loaded.notes[0]


def test_repository_folder_picks_the_file_with_the_work(tmp_path):
    """In a student's repository, is the file defining the graded names chosen over the others?"""
    (tmp_path / "README.md").write_text("my homework")
    (tmp_path / "scratch.py").write_text("x = 1\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "attention.py").write_text("def tokenize(t): ...\ndef split_heads(x, n): ...\n")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "old.ipynb").write_text("{}")
    assert find_entry(tmp_path, GRADED) == Entry("module", tmp_path / "src" / "attention.py")


def test_two_equal_candidates_are_an_error_that_says_what_to_do(tmp_path):
    (tmp_path / "a.py").write_text("def tokenize(t): ...\n")
    (tmp_path / "b.py").write_text("def tokenize(t): ...\n")
    with pytest.raises(SubmissionError, match="keep your work in one of them"):
        find_entry(tmp_path, GRADED)


@pytest.mark.parametrize("name, message", [("work.txt", "not .txt"), ("missing.py", "does not exist")])
def test_bad_paths_are_clear_errors(tmp_path, name, message):
    if name == "work.txt":
        (tmp_path / name).write_text("")
    with pytest.raises(SubmissionError, match=message):
        find_entry(tmp_path / name, GRADED)


def test_broken_notebook_is_a_clear_error(tmp_path):
    (tmp_path / "work.ipynb").write_text("{not json")
    with pytest.raises(SubmissionError, match="save it again from Jupyter"):
        load(Entry("notebook", tmp_path / "work.ipynb"))


def test_course_demo_cells_are_skipped_when_unchanged(tmp_path):
    """Are the course's own demo cells skipped when grading, but a student's edited copy run?"""
    from autograder.public.loader import cell_digest

    demo = "runs = globals().get('runs', 0) + 1"
    path = notebook(tmp_path / "work.ipynb", "def tokenize(t):\n    return t.split()", demo, demo + "\nedited = True")
    loaded = load(Entry("notebook", path), skip=frozenset({cell_digest(demo)}))
    assert "tokenize" in loaded.namespace
    assert loaded.namespace["runs"] == 1 and loaded.namespace["edited"] is True  # only the edited copy ran


def test_the_untouched_release_beside_the_students_notebook_is_not_graded(mha, tmp_path):
    """In a repository holding the release notebook and the student's own, is the student's chosen?"""
    import shutil

    shutil.copy(mha.release_dir / mha.notebook_name, tmp_path / "mha.ipynb")  # every exercise still a stub
    notebook(tmp_path / "my_work.ipynb", "def tokenize(text):\n    return text.split()")
    assert find_entry(tmp_path, mha.graded) == Entry("notebook", tmp_path / "my_work.ipynb")


@pytest.mark.parametrize(
    "message",
    [
        "Exercise 1 (tokenize): replace the `raise NotImplementedError` line in the exercise cell with your code.",
        "Exercise 1 (tokenize): replace this line with your code.",  # what notebooks handed out earlier say
    ],
    ids=["this release's stub", "an earlier release's stub"],
)
def test_a_stub_of_any_release_is_not_done_work(tmp_path, message):
    """Does a definition that still raises a stub's error, in this release's words or an earlier one's, count as not done?"""
    path = notebook(
        tmp_path / "work.ipynb",
        f"def tokenize(text):\n    # YOUR CODE HERE\n    raise NotImplementedError({message!r})",
        "def split_heads(x, n):\n    return x",
    )
    assert defined_names(Entry("notebook", path), done_only=True) == {"split_heads"}


def test_the_self_check_cell_never_runs_when_grading(tmp_path):
    """Is the bundle's cell skipped, and check() silent, while grading?"""
    path = notebook(
        tmp_path / "work.ipynb",
        BUNDLE_MARKER + "\nraise SystemExit('the bundle ran')",
        "def tokenize(t):\n    return t.split()",
        "check(tokenize)",
    )
    loaded = load(Entry("notebook", path))
    assert loaded.notes == [] and "tokenize" in loaded.namespace


def test_notes_name_cells_as_jupyter_shows_them(tmp_path):
    """Does a failing cell's note name what it defines (or how it starts), then 'In [7]' when the student ran it
    and its place among code cells when not?"""
    path = notebook(
        tmp_path / "work.ipynb",
        "x = 1",
        "raise ValueError('seven')",
        "%matplotlib inline\nraise KeyError('never run')",
        "def split_heads(x, n_heads):\n    return (x",
        counts=[3, 7, None, None],
    )
    notes = load(Entry("notebook", path)).notes
    assert notes[0].startswith(
        """the cell that starts "raise ValueError('seven')" (cell In [7]) raised ValueError: seven"""
    )
    assert notes[1].startswith('the cell that starts "%matplotlib inline" (code cell 3) raised KeyError')
    assert notes[2].startswith("the cell that defines split_heads (code cell 4) raised SyntaxError")
    assert [note_defines(note) for note in notes] == [None, None, "split_heads"]


def test_a_notebook_nested_too_deep_is_a_clear_error(tmp_path):
    """Does a notebook nested a hundred thousand deep give SubmissionError, not a crash of the grader?"""
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SubmissionError, match="not a readable notebook"):
        load(Entry("notebook", tmp_path / "deep.ipynb"))


def test_graded_calls_are_read_from_the_source_through_other_exercises(tmp_path):
    """Are the exercises each exercise calls, directly or through another, read from the last definition, unrun?"""
    path = notebook(
        tmp_path / "work.ipynb",
        "def softmax(x):\n    return x",
        "def qkv(x):\n    return softmax(x)",
        "class Layer:\n    def forward(self, x):\n        return qkv(x)",
        "def qkv(x):\n    return x  # redefined: no longer calls softmax",
        "def alone(x):\n    raise SystemExit('never run')",
    )
    calls = graded_source(Entry("notebook", path), ("softmax", "qkv", "Layer", "alone")).calls
    assert calls == {"softmax": set(), "qkv": set(), "Layer": {"qkv"}, "alone": set()}


def test_names_still_holding_their_stub_are_unfinished(tmp_path):
    """Is a graded name unfinished while its last definition (a method included) still raises the stub's error?"""
    stub = "raise NotImplementedError('Exercise 1 (x): replace the `raise NotImplementedError` line in the exercise cell with your code.')"
    path = notebook(
        tmp_path / "work.ipynb",
        f"def softmax(x):\n    {stub}",
        f"class Layer:\n    def __init__(self):\n        pass\n\n    def forward(self, x):\n        {stub}",
        f"def qkv(x):\n    {stub}",
        "def qkv(x):\n    return softmax(x)  # finished in a later cell",
        "x = 1  # a cell that defines no graded name is not parsed for them",
    )
    source = graded_source(Entry("notebook", path), ("softmax", "qkv", "Layer", "absent"))
    assert source.unfinished == {"softmax", "Layer"}
    assert source.calls == {"softmax": set(), "qkv": {"softmax"}, "Layer": set()}


def test_is_stub_reads_functions_and_methods(tmp_path):
    """Does is_stub see the stub's message in a function and in any method of a class, and nothing in finished code?"""
    import importlib.util

    (tmp_path / "work.py").write_text(
        "class Layer:\n    def forward(self):\n        raise NotImplementedError('replace this line with your code')\n\n\n"
        "def done():\n    return 1\n"
    )
    spec = importlib.util.spec_from_file_location("work_for_is_stub", tmp_path / "work.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert is_stub(module.Layer) and not is_stub(module.done) and not is_stub(len)


def test_a_graded_names_code_is_read_with_the_helpers_it_names(tmp_path):
    """Is each graded name's last definition given as text, followed by the student's own helpers it names (not
    another graded name, not a library), unrun?"""
    path = notebook(
        tmp_path / "work.ipynb",
        "def split(x):\n    return x.view(2, 3)",
        "def tokenize(text):\n    return text.split()",
        "def split_heads(x, n):\n    return x",
        "def split_heads(x, n):\n    return split(x) + tokenize('a')  # the last definition counts\nraise SystemExit('never run')",
    )
    code = definitions(Entry("notebook", path), GRADED)
    assert code == {
        "tokenize": "def tokenize(text):\n    return text.split()",
        "split_heads": "def split_heads(x, n):\n    return split(x) + tokenize('a')  # the last definition counts\n"
        "def split(x):\n    return x.view(2, 3)",
    }
