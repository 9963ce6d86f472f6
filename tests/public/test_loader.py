"""Is a submission found and loaded fairly, whatever form it takes?"""

import builtins
import json

import pytest

from autograder.public.loader import (
    BUNDLE_MARKER,
    LOAD_STEPS,
    Entry,
    SubmissionError,
    defined_names,
    definitions,
    find_entry,
    graded_calls,
    load,
    note_defines,
    strip_magics,
    stub_raised,
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
    """Is a notebook that is not JSON refused saying where its JSON breaks and what to do?"""
    (tmp_path / "work.ipynb").write_text('{"cells": [\n<<<<<<< HEAD\n]}')
    with pytest.raises(
        SubmissionError,
        match=r"^the notebook work.ipynb could not be parsed: it is not valid JSON \(Expecting value, line 2 column 1\); "
        r"re-download it from Jupyter",
    ):
        load(Entry("notebook", tmp_path / "work.ipynb"))


def test_a_notebook_cut_off_is_told_so(tmp_path):
    """Is a notebook that ends before its JSON does (an upload cut short) told as cut off, not as broken JSON?"""
    text = notebook(tmp_path / "full.ipynb", "def tokenize(text):\n    return text.split()\n").read_text()
    (tmp_path / "work.ipynb").write_text(text[: len(text) // 2])
    with pytest.raises(
        SubmissionError, match=f"it ends after {len(text) // 2} characters, before its JSON does: it was cut off"
    ):
        load(Entry("notebook", tmp_path / "work.ipynb"))


@pytest.mark.parametrize("text", ["[1, 2]", '{"cells": 5}', '{"metadata": {}}'])
def test_json_that_is_no_notebook_is_told_so(tmp_path, text):
    """Is JSON without a list of cells refused as no Jupyter notebook?"""
    (tmp_path / "work.ipynb").write_text(text)
    with pytest.raises(SubmissionError, match="it is JSON, but not a Jupyter notebook"):
        load(Entry("notebook", tmp_path / "work.ipynb"))


def test_loading_tells_each_step_before_the_students_code_runs(tmp_path, monkeypatch):
    """Does load tell reading, parsing, extracting and running before any cell runs, a .py file the steps it has;
    and, for a notebook that does not parse, stop at parsing, never telling running?"""
    told: list[str] = []
    monkeypatch.setattr(builtins, "TOLD", told, raising=False)
    path = notebook(tmp_path / "work.ipynb", "TOLD.append('the cell ran')\n")
    load(Entry("notebook", path), step=told.append)
    assert told == [*LOAD_STEPS, "the cell ran"]
    told.clear()
    (tmp_path / "work.py").write_text("TOLD.append('the module ran')\n")
    load(Entry("module", tmp_path / "work.py"), step=told.append)
    assert told == ["reading", "parsing", "running", "the module ran"]
    told.clear()
    (tmp_path / "cut.ipynb").write_text(path.read_text()[:40])
    with pytest.raises(SubmissionError):
        load(Entry("notebook", tmp_path / "cut.ipynb"), step=told.append)
    assert told == ["reading", "parsing"]


def test_a_notebook_over_its_bound_is_refused_by_its_size_before_it_is_read(tmp_path, monkeypatch):
    """Is a notebook over NOTEBOOK_BYTES refused by find_entry from its size alone, saying its size, the bound and
    to clear the outputs; and one within it taken?"""
    from autograder.public import loader

    path = notebook(tmp_path / "work.ipynb", "def tokenize(text):\n    return text.split()\n")
    monkeypatch.setattr(loader, "NOTEBOOK_BYTES", path.stat().st_size - 1)
    monkeypatch.setattr(loader, "_read", None)  # reading it would fail: the size alone decides
    with pytest.raises(
        SubmissionError, match=r"^the notebook work.ipynb is 0.0 MiB, over the 0 MiB bound: clear its outputs"
    ):
        find_entry(path, GRADED)
    monkeypatch.setattr(loader, "NOTEBOOK_BYTES", path.stat().st_size)
    assert find_entry(path, GRADED).kind == "notebook"


def test_code_over_its_bound_is_refused_however_it_is_handed_in(tmp_path, monkeypatch):
    """Is more code than CODE_BYTES refused, in a notebook's code cells together (its written answers not counted),
    in a .py file, and in a package's files together?"""
    from autograder.public import loader

    monkeypatch.setattr(loader, "CODE_BYTES", 1000)
    answer = {"cell_type": "markdown", "metadata": {}, "source": "x" * 5000}
    cells = [{"cell_type": "code", "metadata": {}, "source": "y = 1\n" * 90, "outputs": [], "execution_count": None}]
    (tmp_path / "work.ipynb").write_text(json.dumps({"cells": [answer, *cells], "metadata": {}}))
    assert len(load(Entry("notebook", tmp_path / "work.ipynb")).notes) == 0
    (tmp_path / "work.ipynb").write_text(json.dumps({"cells": [answer, *cells * 2], "metadata": {}}))
    with pytest.raises(SubmissionError, match="work.ipynb's code cells hold more than"):
        load(Entry("notebook", tmp_path / "work.ipynb"))
    (tmp_path / "work.py").write_text("y = 1\n" * 200)
    with pytest.raises(SubmissionError, match="work.py is 0.0 MiB, over the 0 MiB bound for code"):
        load(Entry("module", tmp_path / "work.py"))
    (tmp_path / "pkg").mkdir()
    for name in ("__init__.py", "a.py"):
        (tmp_path / "pkg" / name).write_text("y = 1\n" * 100)
    with pytest.raises(SubmissionError, match="the package pkg holds more than"):
        load(Entry("package", tmp_path / "pkg"))


def test_a_folder_whose_only_work_is_over_a_bound_says_so(tmp_path, monkeypatch):
    """When the only notebook of a folder is over its bound, does the refusal name it and its bound, not only 'no
    notebook defining'?"""
    from autograder.public import loader

    notebook(tmp_path / "work.ipynb", "def tokenize(text):\n    return text.split()\n")
    monkeypatch.setattr(loader, "NOTEBOOK_BYTES", 10)
    with pytest.raises(SubmissionError, match=r"left out: the notebook work.ipynb is 0.0 MiB, over the 0 MiB bound"):
        find_entry(tmp_path, GRADED)


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
    with pytest.raises(SubmissionError, match="could not be parsed: it nests deeper than a notebook does"):
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
    calls = graded_calls(Entry("notebook", path), ("softmax", "qkv", "Layer", "alone"))
    assert calls == {"softmax": set(), "qkv": set(), "Layer": {"qkv"}, "alone": set()}


STUB = "raise NotImplementedError('Exercise 1 (tokenize): replace the `raise NotImplementedError` line in the exercise cell with your code.')"


def test_the_finished_notebook_that_keeps_the_stubs_line_under_its_return_is_graded(mha, tmp_path):
    """Beside the untouched release, is the student's finished notebook chosen though each exercise keeps the
    stub's raise, unreachable, under its return (in a branch's block too), and a stub that can still run, in
    any block, not done?"""
    import shutil

    shutil.copy(mha.release_dir / mha.notebook_name, tmp_path / "mha.ipynb")  # every exercise still a stub
    notebook(
        tmp_path / "my_work.ipynb",
        f"def tokenize(text):\n    return text.split()\n    {STUB}",
        f"def split_heads(x, n):\n    if n:\n        return x\n        {STUB}\n    else:\n        return x\n    {STUB}",
    )
    assert find_entry(tmp_path, mha.graded) == Entry("notebook", tmp_path / "my_work.ipynb")
    assert defined_names(Entry("notebook", tmp_path / "my_work.ipynb"), done_only=True) == {"tokenize", "split_heads"}
    path = notebook(
        tmp_path / "work.ipynb",
        f"def tokenize(text):\n    if text:\n        {STUB}\n    return text.split()",
        f"class Layer:\n    def forward(self, x):\n        try:\n            pass\n        except OSError:\n            {STUB}",
        f"def split_heads(x, n):\n    return x\n    {STUB}",
    )
    assert defined_names(Entry("notebook", path), done_only=True) == {"split_heads"}


@pytest.mark.parametrize(
    "error, name",
    [
        (
            "your code raised NotImplementedError: Exercise 7 (split_heads): replace the `raise NotImplementedError` "
            "line in the exercise cell with your code. (in split_heads, cell In [9], line 12)",
            "split_heads",
        ),
        ("NotImplementedError: Exercise 2 (softmax): replace this line with your code.", "softmax"),
        ("your code raised NotImplementedError: not yet", None),
        ("your code raised ValueError: Exercise 7 (split_heads): replace this line with your code.", None),
        (None, None),
    ],
    ids=["this release's stub", "an earlier release's stub", "another NotImplementedError", "another error", "none"],
)
def test_a_stubs_error_names_its_exercise(error, name):
    """Is the exercise whose stub raised read from the error's message, in any release's words, and no other
    error taken for a stub's?"""
    assert stub_raised(error) == name


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


def _each_line_stripped(source: str) -> str:
    """strip_magics as a look at every line, without its search for cells with nothing to change."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")) or stripped.endswith("?") and stripped[:-1].isidentifier():
            line = line[: len(line) - len(stripped)] + "pass  # " + stripped
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize(
    "source",
    [
        "%matplotlib inline\nimport math",
        "x = 1\n  !pip install nothing",
        "%%time\nx = 1",
        "help?",
        "x = 1\nlen?\ny = 2",
        "\u3000%timeit f()",  # an ideographic space before the magic: lstrip takes it away
        "\x1c!ls",  # a separator Python counts as white space
        "x = 1\r\n%who\r\n",  # Windows line ends: the magic's line ends in \r
        "print('100%')\ny = x != 2  # not a magic?\n",
        "s = 'why?'\nt = 'hm?' ",
        "def f():\n    return 1\n",
        "",
    ],
)
def test_magics_become_comments_and_nothing_else_changes(source):
    """Is every IPython line (magic, shell, help) commented out, as a look at every line does, and a cell with none
    returned as it is?"""
    assert strip_magics(source) == _each_line_stripped(source)
