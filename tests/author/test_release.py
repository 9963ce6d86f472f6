"""Does the leak check let only student material through: one notebook, no solution, no hidden test, no reference code?"""

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.author import bundle, release
from autograder.author.blocks import solution_lines
from autograder.author.notebook import hidden_test_source
from autograder.errors import KitError


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
