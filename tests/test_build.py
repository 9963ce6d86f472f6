"""Is everything students get generated from the one source, fresh, and free of solutions?"""
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder import KIT_ROOT, build


def test_generated_files_are_fresh(assignment):
    """Do the stubs, the master notebook and the sample match what the build makes from solutions/ now?"""
    stale = [str(path.relative_to(KIT_ROOT)) for path in build.stale_files(assignment)]
    assert not stale, f"stale generated files {stale}: run `python -m autograder build`"


def test_sample_is_the_release_with_one_mistake(assignment):
    """Is the demo's sample the committed release, filled in, with the one known mistake?"""
    text = build.notebook_text(build.sample_notebook(assignment, build.SAMPLE_MISTAKE[assignment.name]))
    assert build.sample_path(assignment).read_text() == text, "stale sample: run `python -m autograder build`"


@pytest.mark.slow
def test_release_is_what_nbgrader_makes_of_the_source(assignment, tmp_path):
    """Does real `nbgrader generate_assignment` reproduce release/ exactly?"""
    release = build.release_in(assignment, tmp_path)
    made, committed = build._snapshot(release), build._snapshot(assignment.release_dir)
    assert made.keys() == committed.keys()
    stale = [name for name in made if made[name] != committed[name]]
    assert not stale, f"release/{assignment.name}/ is stale ({stale}): run `python -m autograder build`"


def test_committed_release_holds_no_solution(assignment):
    """Does the committed release pass the leak check?"""
    build.check_release(assignment, assignment.release_dir)


def test_leak_check_catches_a_solution_line(assignment, tmp_path):
    """Is a solution line pasted into a release notebook caught?"""
    leaked = tmp_path / "release"
    shutil.copytree(assignment.release_dir, leaked)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    line = sorted(build.solution_lines(assignment))[0]
    notebook.cells[-1].source += "\n" + line
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(build.KitError, match="solution line"):
        build.check_release(assignment, leaked)


def test_leak_check_catches_copied_files(assignment, tmp_path):
    """Is a reference file that nbgrader would copy from source/ into the release caught?"""
    leaked = tmp_path / "release"
    shutil.copytree(assignment.release_dir, leaked)
    shutil.copy(assignment.reference_path, leaked / "reference.py")
    with pytest.raises(build.KitError, match="not part of the release"):
        build.check_release(assignment, leaked)


def test_leak_check_catches_hidden_tests(assignment, tmp_path):
    """Is a hidden test cell left in a release caught?"""
    leaked = tmp_path / "release"
    shutil.copytree(assignment.release_dir, leaked)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    notebook.cells[-1].source += "\n" + build.hidden_test_source(assignment, assignment.graded[0])
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(build.KitError, match="hidden material"):
        build.check_release(assignment, leaked)


def test_release_exercise_cells_are_the_stubs(assignment):
    """Is each exercise cell of the release exactly its definition in assignments/<name>.py?"""
    stub = assignment.stub_path.read_text()
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
        with pytest.raises(NotImplementedError, match=rf"Exercise {number} \({name}\)"):
            calls[name](namespace[name])


def test_every_numpy_stub_raises_naming_its_exercise():
    """Does calling each blank NumPy stub raise NotImplementedError that names the exercise?"""
    import numpy as np

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


def test_build_command_has_help():
    """Does `python -m autograder build --help` explain the command (the CLI is wired)?"""
    done = subprocess.run([sys.executable, "-m", "autograder", "build", "--help"], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 0 and "nbgrader" in done.stdout
