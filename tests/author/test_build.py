"""Is everything students get generated from the one source, fresh, and free of solutions?"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder import KIT_ROOT
from autograder.author import build, bundle, release, visible
from autograder.author.blocks import solution_lines, stub_module
from autograder.author.notebook import hidden_test_source
from autograder.errors import KitError
from autograder.public import wire

from .clone import fresh_clone, run_in


def test_committed_files_are_fresh(assignment):
    """Do the stubs and the release equal what the build makes from solutions/ now (floats within tolerance)?"""
    stale = build.stale(assignment)
    assert not stale, f"stale generated files {stale}: run `python -m autograder build`"


def test_freshness_allows_float_noise_and_catches_a_real_change(mha):
    """Are visible data from another CPU (last digits off) equivalent, and a changed value not?"""
    data = json.loads(bundle_of(mha.release_dir / mha.notebook_name)["visible.json"])
    noisy, changed = json.loads(json.dumps(data)), json.loads(json.dumps(data))
    check = next(c for c in noisy["checks"] if c["probe"] == "mha.attention")
    values = np.array(check["expected"]["output"]["data"], dtype=np.float32)
    check["expected"]["output"]["data"] = (
        values * np.float32(1 + 3e-7)
    ).tolist()  # the 7th digit, as another CPU gives
    assert visible.equivalent(data, noisy)
    target = next(c for c in changed["checks"] if c["probe"] == "mha.attention")
    target["expected"]["output"]["data"][0] += 0.01  # a change the graders would see
    assert not visible.equivalent(data, changed)


@pytest.mark.parametrize(
    "old, new, stale_files",
    [
        (
            "Split a sentence into lowercase words",
            "Cut a sentence into lowercase words",
            ["assignments/mha.py", "release/mha/mha.ipynb"],
        ),
        (
            'text.lower().translate(str.maketrans("", "", string.punctuation))',
            'text.translate(str.maketrans("", "", string.punctuation))',
            ["release/mha/mha.ipynb"],
        ),
    ],
    ids=["a docstring students read", "a solution whose visible outputs change"],
)
def test_a_changed_reference_makes_what_students_get_stale(mha, monkeypatch, tmp_path, old, new, stale_files):
    """After a change students would see, does the freshness check name exactly the stale files?"""
    edited = tmp_path / "reference.py"
    edited.write_text(mha.reference_path.read_text().replace(old, new))
    monkeypatch.setattr(type(mha), "reference_path", property(lambda self: edited))
    assert build.stale(mha) == stale_files


@pytest.mark.slow
def test_release_is_what_nbgrader_makes_of_the_source(assignment, tmp_path):
    """Does real `nbgrader generate_assignment`, stamped with the sources' hash, reproduce release/ byte for byte?"""
    from autograder.author.notebook import notebook_text

    master = build.master(assignment)
    made = release.release_in(assignment, notebook_text(master), tmp_path)
    assert sorted(p.name for p in made.iterdir()) == [assignment.notebook_name]
    build.stamp(made / assignment.notebook_name, build.release_digest(assignment, master))
    committed = assignment.release_dir / assignment.notebook_name
    assert (made / assignment.notebook_name).read_text() == committed.read_text()


@pytest.fixture(scope="module")
def mha_master(mha):
    return build.master(mha)


def mutated(master, change):
    notebook = nbformat.from_dict(json.loads(json.dumps(master)))
    change(notebook)
    return notebook


def cell(notebook, cell_id):
    return next(c for c in notebook.cells if c.get("id") == cell_id)


def rename(notebook, old, new):
    cell(notebook, old).id = new


def edit(cell_id, old, new):
    """A change of one cell's source, old text to new."""

    def change(notebook):
        target = cell(notebook, cell_id)
        assert old in target.source
        target.source = target.source.replace(old, new, 1)

    return change


@pytest.mark.parametrize(
    "change, counts",
    [
        (lambda nb: cell(nb, "tokenize-tests").metadata.nbgrader.update(points=5.0), True),
        (lambda nb: cell(nb, "tokenize-check").metadata.nbgrader.update(locked=False), True),
        (lambda nb: cell(nb, "tokenize-tests").metadata.nbgrader.update(grade_id="tokenizer-tests"), True),
        (lambda nb: rename(nb, "md-1", "intro"), True),
        (lambda nb: nb.metadata.language_info.pop("file_extension"), True),
        (edit("md-1", "\n", "\n\n"), True),
        (edit("tokenize-tests", "globals()", "dict(globals())"), False),  # in the hidden region
        (edit("tokenize", "text.lower()", "text.casefold()"), False),  # in the solution region
    ],
    ids=["points", "a lock", "a grade id", "a cell id", "language_info", "prose", "a hidden test", "a solution"],
)
def test_the_release_hash_follows_what_ends_up_in_the_release(mha, mha_master, change, counts):
    """Does the sources' hash change with every part of the release, metadata included, and not with what nbgrader clears?"""
    before = build.release_digest(mha, mha_master)
    assert (build.release_digest(mha, mutated(mha_master, change)) != before) is counts


def test_a_points_change_makes_the_release_stale(monkeypatch, tmp_path):
    """With only a number of points.toml changed, does the freshness check name the release (and only it)?"""
    from autograder.assignments import Assignment

    edited = tmp_path / "points.toml"
    text = (KIT_ROOT / "solutions" / "mha" / "points.toml").read_text()
    assert "\ntokenize = 2\n" in text
    edited.write_text(text.replace("\ntokenize = 2\n", "\ntokenize = 5\n"))
    monkeypatch.setattr(Assignment, "points_path", property(lambda self: edited))
    assert build.stale(Assignment("mha")) == ["release/mha/mha.ipynb"]


@pytest.mark.slow
def test_build_puts_a_points_change_into_the_release_and_the_gradebook(tmp_path):
    """In a fresh clone, after changing one number in points.toml, does `build` carry it to the release and gradebook.db?"""
    from nbgrader.api import Gradebook

    clone = fresh_clone(tmp_path / "clone")
    first = run_in(clone, "python", "-m", "autograder", "build", "mha")
    assert first.returncode == 0, first.stderr[-3000:]
    assert first.stdout.splitlines()[0] == "mha: gradebook.db"  # the committed release was up to date
    points = clone / "solutions" / "mha" / "points.toml"
    points.write_text(points.read_text().replace("\ntokenize = 2\n", "\ntokenize = 5\n"))
    done = run_in(clone, "python", "-m", "autograder", "build", "mha")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0] == "mha: release/mha, gradebook.db"
    released = nbformat.read(clone / "release" / "mha" / "mha.ipynb", as_version=4)
    tests = next(c for c in released.cells if c.get("id") == "tokenize-tests")
    assert tests.metadata.nbgrader.points == 5.0
    assert (clone / "release" / "mha" / "mha.ipynb").read_text().count('"points": 5.0') == 1
    with Gradebook(f"sqlite:///{clone / 'gradebook.db'}") as gradebook:
        assert gradebook.find_grade_cell("tokenize-tests", "mha", "mha").max_score == 5.0
        assert gradebook.find_assignment("mha").max_score == 50.0  # 43 automatic, 7 written (graded by hand)
    again = run_in(clone, "python", "-m", "autograder", "build", "mha")
    assert again.stdout.splitlines()[0] == "mha: up to date"


def test_nbconvert_exports_the_release_as_a_python_script(assignment):
    """Does nbconvert's script exporter, reading the release's language_info, write a .py file?"""
    from nbconvert import ScriptExporter

    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    script, resources = ScriptExporter().from_notebook_node(notebook)
    assert resources["output_extension"] == ".py"
    assert "def " in script


def test_the_build_warns_when_a_release_gives_another_assignments_exercise_away():
    """Does the build tell the instructor that encoder_block's given MultiHeadAttention is mha's exercise?"""
    from autograder import assignments

    notes = build.given_away(assignments.get("encoder_block"))
    assert notes == [
        "note: encoder_block's release gives MultiHeadAttention complete (given code), an exercise of mha: "
        "hand encoder_block out only after mha is due"
    ]
    assert build.given_away(assignments.get("mha")) == []
    assert "hand encoder_block out only after mha is due" in (KIT_ROOT / "README.md").read_text()


def bundle_of(notebook: Path) -> dict:
    return bundle.files_of_cell(release.bundle_cell(json.loads(notebook.read_text())))


def test_release_is_one_notebook_with_the_engine_packed_inside(assignment):
    """Is the notebook the only file of the release, its bundle the kit's public engine unchanged, and nothing else?"""
    assert [p.name for p in assignment.release_dir.iterdir()] == [assignment.notebook_name]
    files = bundle_of(assignment.release_dir / assignment.notebook_name)
    public = sorted(p.name for p in (KIT_ROOT / "autograder" / "public").glob("*.py"))
    assert sorted(name.split("/")[1] for name in files if name.startswith("public/")) == public
    assert files[f"course/{assignment.name}/probes.py"] == assignment.probes_path.read_text()


def test_committed_release_holds_no_solution(assignment):
    """Does the committed release pass the leak check?"""
    release.check_release(assignment, assignment.release_dir)


def leaked_copy(assignment, tmp_path) -> Path:
    leaked = tmp_path / "release"
    shutil.copytree(assignment.release_dir, leaked)
    return leaked


def test_leak_check_catches_a_solution_line(assignment, tmp_path):
    """Is a solution line pasted into a release notebook caught?"""
    leaked = leaked_copy(assignment, tmp_path)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    notebook.cells[-1].source += "\n" + sorted(solution_lines(assignment))[0]
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(KitError, match="solution line"):
        release.check_release(assignment, leaked)


def test_leak_check_reads_inside_the_bundle(assignment, tmp_path):
    """Is reference code packed into the self-check bundle caught, though it is compressed?"""
    leaked = leaked_copy(assignment, tmp_path)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    cell = next(c for c in notebook.cells if c.get("id") == "selfcheck")
    files = bundle.files_of_cell(cell.source)
    files["reference.py"] = assignment.reference_path.read_text()
    cell.source = bundle.cell_source(assignment, {k: v for k, v in files.items() if k != "bootstrap.py"})
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(KitError, match="must not ship"):
        release.check_release(assignment, leaked)


def test_leak_check_catches_copied_files(assignment, tmp_path):
    """Is a reference file that nbgrader would copy from source/ into the release caught?"""
    leaked = leaked_copy(assignment, tmp_path)
    shutil.copy(assignment.reference_path, leaked / "reference.py")
    with pytest.raises(KitError, match="not part of the release"):
        release.check_release(assignment, leaked)


def test_leak_check_catches_hidden_tests(assignment, tmp_path):
    """Is a hidden test cell left in a release caught?"""
    leaked = leaked_copy(assignment, tmp_path)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    notebook.cells[-1].source += "\n" + hidden_test_source(assignment, assignment.graded[0])
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(KitError, match="hidden material"):
        release.check_release(assignment, leaked)


def test_release_exercise_cells_are_the_stubs(assignment):
    """Is each exercise cell of the release exactly its definition in assignments/<name>.py?"""
    stub = assignment.stub_path.read_text()
    assert stub == stub_module(assignment)
    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    cells = {cell.id: cell.source for cell in notebook.cells}
    for name in assignment.graded:
        assert cells[name] in stub, f"the release's {name} cell differs from the stub module"
        assert "# YOUR CODE HERE" in cells[name]


def test_demo_cells_say_what_they_need(mha):
    """Does each demo cell that uses an exercise, directly or through an earlier demo's name, list it?"""
    notebook = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code" and "nbgrader" not in cell.metadata]
    vocab = next(s for s in sources if "stoi = build_vocab(sentences)" in s)
    assert vocab.startswith("# needs: build_vocab, encode\n")
    plain = [s for s in sources if "torch.randn(8, 64)" in s]
    assert plain and not plain[0].startswith("# needs:")  # uses no exercise: runs at once


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


def test_visible_data_keep_devices_with_their_arrays(mha):
    """Do the stored expected outputs of a tensor say so (device), as the grader's do?"""
    data = json.loads(bundle_of(mha.release_dir / mha.notebook_name)["visible.json"])
    encode = next(c for c in data["checks"] if c["name"] == "encode")
    assert wire.device_of(wire.array_from_json(encode["expected"]["ids"])) == "cpu"


def test_build_command_has_help():
    """Does `python -m autograder build --help` explain the command (the CLI is wired)?"""
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "build", "--help"], capture_output=True, text=True, cwd=KIT_ROOT
    )
    assert done.returncode == 0 and "nbgrader" in done.stdout


@pytest.mark.parametrize("kind", ["exercise", "check"])
def test_a_fence_without_its_graded_name_is_refused(mha, kind):
    """Is an exercise or check fence that names no graded name refused with a message saying so (not a TypeError)?"""
    from autograder.author.lesson import check_contract, parse_lesson

    fence = f"```{{{kind}}} {mha.graded[0]}"
    text = mha.lesson_path.read_text()
    assert fence in text
    with pytest.raises(KitError, match="needs the graded name"):
        check_contract(mha, parse_lesson(text.replace(fence, f"```{{{kind}}}", 1), mha.lesson_path))
