"""Is everything students get generated from the one source, fresh, and rebuilt when a source changes?"""

import json
import shutil
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from autograder import KIT_ROOT
from autograder.author import build, release

from .clone import SHARES_THE_BUILT_CLONE, copy_of_clone, run_in


def test_committed_files_are_fresh(assignment):
    """Do the stubs and the release equal what the build makes from solutions/ now (floats within tolerance)?"""
    stale = build.stale(assignment)
    assert not stale, f"stale generated files {stale}: run `python -m autograder build`"


@pytest.mark.slow
@pytest.mark.parametrize(
    "old, new, stale_files",
    [
        (
            "Split a sentence into lowercase words",
            "Cut a sentence into lowercase words",
            ["assignments/mha.py", "release/mha/mha.ipynb"],
        ),
        (  # every catalogued mistake's text still in place: the mistakes are made on the edited reference
            "string.punctuation))\n",
            'string.punctuation)).replace("e", "3")\n',
            ["release/mha/mha.ipynb"],
        ),
    ],
    ids=["a docstring students read", "a solution whose visible outputs change"],
)
def test_a_changed_reference_makes_what_students_get_stale(copy_of_mha, old, new, stale_files):
    """After a change students would see, does the freshness check name exactly the stale files?"""
    edited = copy_of_mha.reference_path
    edited.write_text(edited.read_text().replace(old, new))
    assert build.stale(copy_of_mha) == stale_files


@pytest.mark.slow
def test_release_is_what_nbgrader_makes_of_the_source(assignment, tmp_path):
    """After the build, does real `nbgrader generate_assignment` on the master in source/ give release/ byte for byte?"""
    master = build.write_master(assignment)
    course = tmp_path / "course"
    (course / "source" / assignment.name).mkdir(parents=True)
    shutil.copy(master, course / "source" / assignment.name / assignment.notebook_name)
    release.run_nbgrader(assignment, course)
    made = course / "release" / assignment.name
    assert sorted(p.name for p in made.iterdir()) == [assignment.notebook_name]
    committed = assignment.release_dir / assignment.notebook_name
    assert (made / assignment.notebook_name).read_text() == committed.read_text()


@pytest.mark.slow
@pytest.mark.usefixtures("forgets_the_edit")
def test_the_master_carries_the_committed_self_check_cell_through_float_noise(mha, monkeypatch):
    """When the reference gives visible data off in the last digits (another CPU), does the master hold the committed
    release's self-check cell and hash, so that the release is still what nbgrader makes of the master?"""
    data = build.visible_data(mha)
    check = next(c for c in data["checks"] if c["probe"] == "mha.attention")
    values = np.array(check["expected"]["output"]["data"], dtype=np.float32)
    check["expected"]["output"]["data"] = (values * np.float32(1 + 3e-7)).tolist()  # the 7th digit
    assert build.visible_json(data) != build.committed_bundle(mha)[1]["visible.json"]
    monkeypatch.setattr(build, "visible_data", lambda assignment: data)
    master = build.master(mha)
    released = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    assert cell(master, "selfcheck").source == cell(released, "selfcheck").source
    assert master.metadata == released.metadata  # the hash of the sources included
    assert build.stale(mha) == []


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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.usefixtures("forgets_the_edit")
def test_a_points_change_makes_the_release_stale(monkeypatch, tmp_path):
    """With only a number of points.toml changed, does the freshness check name the release (and only it)?"""
    from autograder.assignments import Assignment

    edited = tmp_path / "points.toml"
    text = (KIT_ROOT / "solutions" / "mha" / "points.toml").read_text()
    assert "\ntokenize = 2\n" in text
    edited.write_text(text.replace("\ntokenize = 2\n", "\ntokenize = 5\n"))
    monkeypatch.setattr(Assignment, "points_path", property(lambda self: edited))
    assert build.stale(Assignment("mha")) == ["release/mha/mha.ipynb"]


@pytest.mark.slow(seconds=19)
@SHARES_THE_BUILT_CLONE
def test_build_puts_a_points_change_into_the_release_and_the_gradebook(built_mha_clone, tmp_path):
    """In a fresh clone, after changing one number in points.toml, does `build` carry it to the release and gradebook.db?"""
    from nbgrader.api import Gradebook

    clone = copy_of_clone(built_mha_clone, tmp_path / "clone")  # built once: gradebook.db alone was written
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


def test_build_command_has_help():
    """Does `python -m autograder build --help` explain the command (the CLI is wired)?"""
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "build", "--help"], capture_output=True, text=True, cwd=KIT_ROOT
    )
    assert done.returncode == 0 and "nbgrader" in done.stdout
