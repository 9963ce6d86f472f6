"""Does the leak check let only student material through: one notebook, no solution, no hidden test, no reference code?"""

import json
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.author import bundle, release
from autograder.author.blocks import solution_lines
from autograder.author.notebook import hidden_test_source, master_notebook
from autograder.errors import KitError
from autograder.public.loader import BUNDLE_MARKER


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


def released_bundle(assignment) -> dict[str, str]:
    notebook = json.loads((assignment.release_dir / assignment.notebook_name).read_text())
    return bundle.files_of_cell(release.bundle_cell(notebook))


def test_a_release_without_its_self_check_cell_is_refused(assignment, tmp_path):
    """Is a release notebook whose bundle cell is gone refused, naming the cell's first line?"""
    leaked = leaked_copy(assignment, tmp_path)
    notebook = nbformat.read(leaked / assignment.notebook_name, as_version=4)
    notebook.cells = [c for c in notebook.cells if c.get("id") != "selfcheck"]
    nbformat.write(notebook, leaked / assignment.notebook_name)
    with pytest.raises(KitError, match="has no self-check cell"):
        release.check_release(assignment, leaked)


def test_a_bundle_with_an_edited_public_module_is_refused_with_the_fix(mha, tmp_path):
    """Is a bundle whose engine differs from autograder/public/ refused, saying to rebuild?"""
    files = released_bundle(mha)
    files["public/compare.py"] += "\n# edited\n"
    with pytest.raises(
        KitError, match=r"the bundle's public/compare.py differs from the kit's: run `python -m autograder build`"
    ):
        release.check_bundle(mha, files, tmp_path)


def test_the_committed_bundle_holds_only_what_may_ship(mha, tmp_path):
    """Does the committed bundle pass, and a file beside its glue (another assignment's probes) fail?"""
    files = released_bundle(mha)
    release.check_bundle(mha, files, tmp_path)
    files["course/encoder_block/probes.py"] = "PROBES = {}\n"
    with pytest.raises(KitError, match=r"must not ship: \['course/encoder_block/probes.py'\]"):
        release.check_bundle(mha, files, tmp_path)


def test_the_bundle_cell_is_found_by_its_first_line():
    """Is the bundle the code cell that starts with the marker, its source a string or nbformat's list of lines?"""
    cells = [
        {"cell_type": "markdown", "source": BUNDLE_MARKER + " in prose"},
        {"cell_type": "code", "source": ["print(1)\n"]},
        {"cell_type": "code", "source": [BUNDLE_MARKER + "\n", "check, needs = 1, 2\n"]},
    ]
    assert release.bundle_cell({"cells": cells}) == BUNDLE_MARKER + "\ncheck, needs = 1, 2\n"
    assert release.bundle_cell({"cells": cells[:2]}) is None


def test_nbgrader_runs_with_this_environments_scripts_first(monkeypatch):
    """Is this venv's bin/ put first on PATH (nbgrader runs `alembic` by name), once only?"""
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin"]))
    assert release.nbgrader_env()["PATH"] == os.pathsep.join([scripts, "/usr/bin", "/bin"])
    monkeypatch.setenv("PATH", os.pathsep.join([scripts, "/usr/bin"]))
    assert release.nbgrader_env()["PATH"] == os.pathsep.join([scripts, "/usr/bin"])


def test_a_course_without_a_gradebook_holds_no_assignment(mha, tmp_path):
    """Is an assignment of a course with no gradebook.db not registered (and the gradebook's address absolute)?"""
    assert not release.registered(mha, master_notebook(mha, "# the bundle"), tmp_path)
    assert release.gradebook_url(tmp_path) == f"sqlite:///{(tmp_path / 'gradebook.db').resolve()}"


@pytest.mark.slow
def test_register_puts_the_master_into_the_gradebook_until_it_changes(mha, tmp_path):
    """Does register record the master once, and does a master with other points read as not registered?"""
    master = master_notebook(mha, "# the bundle")
    assert release.register(mha, master, tmp_path) is True
    assert release.registered(mha, master, tmp_path)
    assert release.register(mha, master, tmp_path) is False
    assert not (tmp_path / "release").exists()  # the course's release/ is left to the build
    changed = nbformat.from_dict(json.loads(json.dumps(master)))
    next(c for c in changed.cells if c.get("id") == "tokenize-tests").metadata.nbgrader.points = 5.0
    assert not release.registered(mha, changed, tmp_path)
