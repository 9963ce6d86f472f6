"""Is the master notebook nbgrader's: the lesson's cells, each exercise's solution, check and grade cells, its metadata?"""

import subprocess
import sys

import nbformat

from autograder import assignments
from autograder.author.blocks import given_code
from autograder.author.notebook import (
    ANSWER_STUB,
    BEGIN_HIDDEN,
    END_HIDDEN,
    LANGUAGE_INFO,
    METADATA_KEY,
    answer_cell,
    hidden_test_source,
    master_notebook,
    nbgrader_metadata,
    notebook_text,
)
from autograder.grade.deciding import kit_digest


def test_nbconvert_exports_the_release_as_a_python_script(assignment):
    """Does nbconvert's script exporter, reading the release's language_info, write a .py file?"""
    from nbconvert import ScriptExporter

    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    script, resources = ScriptExporter().from_notebook_node(notebook)
    assert resources["output_extension"] == ".py"
    assert "def " in script


def cells_by_id(notebook) -> dict:
    return {cell.id: cell for cell in notebook.cells}


def test_each_exercise_is_its_solution_check_and_grade_cell_in_a_row(assignment):
    """Does each graded name get a solution cell, a locked check cell and a grade cell with points.toml's points, in that order?"""
    notebook = master_notebook(assignment, "# the bundle")
    ids = [cell.id for cell in notebook.cells]
    assert len(ids) == len(set(ids))
    cells = cells_by_id(notebook)
    for name in assignment.graded:
        at = ids.index(name)
        assert ids[at : at + 3] == [name, f"{name}-check", f"{name}-tests"]
        solution, check, tests = (cells[i].metadata.nbgrader for i in ids[at : at + 3])
        assert (solution.solution, solution.grade, solution.locked) == (True, False, False)
        assert (check.solution, check.grade, check.locked) == (False, False, True)
        assert (tests.grade, tests.locked, tests.points) == (True, True, assignment.points[name])
        assert cells[f"{name}-tests"].source == hidden_test_source(assignment, name)
        assert "### BEGIN SOLUTION" in cells[name].source and "raise NotImplementedError(" in cells[name].source


def test_the_bundle_cell_comes_first_then_the_setup(assignment):
    """Is the bundle, folded and locked, the first code cell, with the given code right after it in a locked setup cell?"""
    notebook = master_notebook(assignment, "# the bundle")
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.id for cell in code[:2]] == ["selfcheck", "setup"]
    bundle_cell, setup = code[:2]
    assert bundle_cell.source == "# the bundle" and bundle_cell.metadata.nbgrader.locked
    assert bundle_cell.metadata.jupyter == {"source_hidden": True} and bundle_cell.metadata.cellView == "form"
    assert setup.source.startswith(given_code(assignment)) and setup.metadata.nbgrader.locked


def test_the_notebook_names_its_assignment_and_its_language(assignment):
    """Does the notebook's metadata name the assignment, say it is generated, and give the kernel and language_info?"""
    metadata = master_notebook(assignment, "# the bundle").metadata
    assert metadata[METADATA_KEY]["assignment"] == assignment.name
    assert "do not edit" in metadata[METADATA_KEY]["note"]
    assert metadata.kernelspec.name == "python3" and metadata.language_info == LANGUAGE_INFO


def test_a_written_answer_is_a_manually_graded_markdown_cell():
    """Is an answer cell Markdown holding nbgrader's stub, a graded solution that is no task, with its points?"""
    cell = answer_cell("why_scale", 2.0)
    assert (cell.cell_type, cell.id, cell.source) == ("markdown", "why_scale", ANSWER_STUB)
    assert cell.metadata.nbgrader == {
        "grade": True,
        "grade_id": "why_scale",
        "locked": False,
        "schema_version": 3,
        "solution": True,
        "points": 2.0,
        "task": False,
    }


def test_metadata_holds_points_and_task_only_when_given():
    """Does a cell without points or task carry neither key (nbgrader reads a present key)?"""
    assert nbgrader_metadata("setup", locked=True) == {
        "nbgrader": {"grade": False, "grade_id": "setup", "locked": True, "schema_version": 3, "solution": False}
    }


def test_the_grade_cell_leaves_students_only_its_comment(mha):
    """Is everything but the grade cell's first comment between the hidden markers, calling the grader with its points and kit?"""
    source = hidden_test_source(mha, "tokenize")
    first, rest = source.split("\n", 1)
    assert first == "# The hidden checks of tokenize run here when your notebook is graded."
    assert rest.startswith(BEGIN_HIDDEN + "\n") and rest.endswith("\n" + END_HIDDEN)
    assert f'grade_in_notebook("mha", "tokenize", globals(), points=2.0, kit="{kit_digest(mha)}")' in rest
    assert "run nbgrader autograde with the kit's environment" in rest  # a kernel without the kit says the fix


def test_notebook_text_reads_back_as_the_notebook(mha):
    """Is the written text one notebook, ending with a newline, that nbformat reads back unchanged?"""
    notebook = master_notebook(mha, "# the bundle")
    text = notebook_text(notebook)
    assert text.endswith("}\n") and nbformat.reads(text, as_version=4) == notebook


def test_a_kit_process_reads_notebooks_without_jsonschemas_iri_grammars():
    """nbformat's jsonschema compiles rfc3987_syntax's grammars at import (2 s of CPU) for a format nbformat never
    checks: does a kit process leave them out, and still read and validate a release, a broken one refused?"""
    mha = assignments.get("mha")
    script = (
        "import sys, autograder, nbformat\n"
        f"notebook = nbformat.read({str(mha.release_dir / mha.notebook_name)!r}, as_version=4)\n"
        "nbformat.validate(notebook)\n"
        "notebook.cells[0]['cell_type'] = 'a kind of cell'\n"
        "try:\n    nbformat.validate(notebook)\nexcept nbformat.ValidationError:\n    print('refused')\n"
        "print(sys.modules.get('rfc3987_syntax', 'absent'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["refused", "None"]
