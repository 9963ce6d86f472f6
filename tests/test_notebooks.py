"""Do the notebooks run as students and nbgrader run them?

The master notebook (solutions and hidden cells) runs top to bottom with nbclient, each
hidden cell leaving its full points; the release runs up to the first exercise, which
fails with a message naming it, and nothing unrelated fails before; a solved release
shows its figures.
"""
import nbformat
import pytest
from nbclient import NotebookClient

from autograder import build


pytestmark = pytest.mark.slow


def execute(notebook, folder, allow_errors=False):
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=allow_errors, resources={"metadata": {"path": str(folder)}})
    client.execute()
    return notebook


def errors(notebook):
    return [(cell.get("id"), output) for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs if output.output_type == "error"]


def test_master_notebook_runs_and_its_hidden_cells_give_full_points(assignment):
    notebook = execute(nbformat.read(assignment.source_dir / assignment.notebook_name, as_version=4), assignment.source_dir)
    assert errors(notebook) == []
    for cell in notebook.cells:
        points = cell.metadata.get("nbgrader", {}).get("points")
        if points is not None:
            results = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert float(results[0].data["text/plain"]) == pytest.approx(points), cell.id


def test_release_runs_up_to_the_first_exercise(assignment):
    notebook = execute(nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4), assignment.release_dir, allow_errors=True)
    first = assignment.graded[0]
    ids = [cell.get("id") for cell in notebook.cells]
    cell_id, error = errors(notebook)[0]
    assert ids.index(cell_id) > ids.index(first), f"{cell_id} fails before the first exercise: {error.ename}: {error.evalue}"
    text = error.evalue + "".join(error.traceback)
    assert error.ename in ("CheckFailed", "NotImplementedError"), (error.ename, error.evalue)
    assert "Exercise 1" in "".join(o.get("text", "") for c in notebook.cells if c.get("id") == cell_id for o in c.outputs) + text


def test_solved_release_shows_its_figures(assignment, tmp_path):
    notebook = execute(build.sample_notebook(assignment, None), assignment.release_dir)
    assert errors(notebook) == []
    images = sum("image/png" in output.get("data", {}) for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs)
    assert images >= 3
