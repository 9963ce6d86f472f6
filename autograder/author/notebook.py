"""The nbgrader master notebook: the lesson, the reference's exercises, the checks and the grade cells.

Cells, in order: the lesson's prose and demos as written (each demo with its
``# needs:`` line), the self-check bundle as the first code cell, the setup cell (the
reference's imports and constants), then for each exercise its solution cell, its
visible check cell, and its hidden grade cell, which nbgrader empties in the release.
A written answer is a Markdown cell that nbgrader grades by hand (a manually graded
answer: grade and solution, not a task), holding "YOUR ANSWER HERE" in the master
and the release alike: what a grader looks for stays in the lesson.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..assignments import Assignment
from ..grade.deciding import kit_digest
from . import lesson as lessons
from .blocks import GENERATED_NOTE, add_stub_raises, exercise_message, given_code, read_blocks
from .bundle import CELL_METADATA

if TYPE_CHECKING:
    import nbformat

BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
METADATA_KEY = "autograder"  # notebook metadata naming the assignment: {"assignment": name}
ANSWER_STUB = "YOUR ANSWER HERE"  # nbgrader's text stub (ClearSolutions.text_stub): an answer not written yet


def nbgrader_metadata(grade_id: str, *, solution=False, grade=False, locked=False, points=None, task=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = points
    if task is not None:
        meta["task"] = task
    return {"nbgrader": meta}


# What nbconvert reads of a notebook's language (the ipykernel's own values but the Python version):
# file_extension names `nbconvert --to script`'s file, nbconvert_exporter picks its exporter.
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


def answer_cell(answer_id: str, points: float) -> nbformat.NotebookNode:
    """A written answer as nbgrader's manually graded answer: a Markdown solution cell with points."""
    import nbformat  # here: nbformat loads jsonschema's format checkers (2 core-s); grade-all reads ANSWER_STUB only

    metadata = nbgrader_metadata(answer_id, solution=True, grade=True, points=points, task=False)
    return nbformat.v4.new_markdown_cell(ANSWER_STUB, id=answer_id, metadata=metadata)


def hidden_test_source(assignment: Assignment, name: str) -> str:
    """The grade cell of a graded name: in the release only its first comment is left.

    The hidden part names the points of the cell and the kit it was built with, so that
    a kernel whose kit would score otherwise refuses (autograder/deliver/routes/nbgrader.py).
    """
    call = f'grade_in_notebook("{assignment.name}", "{name}", globals(), points={assignment.points[name]!r}, kit="{kit_digest(assignment)}")'
    return "\n".join(
        [
            f"# The hidden checks of {name} run here when your notebook is graded.",
            BEGIN_HIDDEN,
            "try:",
            "    from autograder.deliver.nbgrader import grade_in_notebook",
            "except ImportError as error:",
            '    raise ImportError(f"this kernel cannot import the grading kit ({error}): run nbgrader autograde with '
            "the kit's environment (its .venv), as the README's nbgrader section says\") from None",
            call,
            END_HIDDEN,
        ]
    )


def master_notebook(assignment: Assignment, bundle_cell: str) -> nbformat.NotebookNode:
    """The nbgrader master notebook of an assignment, with the self-check bundle's cell given."""
    import nbformat  # here: as in answer_cell

    _, blocks = read_blocks(assignment)
    exercises = {b.name: b.source for b in blocks if b.is_exercise}
    given = given_code(assignment)
    cells_of_lesson = lessons.parse_lesson(assignment.lesson_path.read_text(), assignment.lesson_path)
    lessons.check_contract(assignment, cells_of_lesson)
    cells_of_lesson = lessons.with_needs(assignment, cells_of_lesson)
    points = assignment.points

    cells = []
    counter = 0

    def new_id(prefix):
        nonlocal counter
        counter += 1
        return f"{prefix}-{counter}"

    for cell in cells_of_lesson:
        if cell.kind == "markdown":
            cells.append(nbformat.v4.new_markdown_cell(cell.text, id=new_id("md")))
        elif cell.kind == "code":
            cells.append(nbformat.v4.new_code_cell(cell.text, id=new_id("code")))
        elif cell.kind == "setup":
            metadata = {**nbgrader_metadata("selfcheck", locked=True), **CELL_METADATA}
            cells.append(nbformat.v4.new_code_cell(bundle_cell, id="selfcheck", metadata=metadata))
            source = given + ("\n\n" + cell.text if cell.text.strip() else "")
            cells.append(
                nbformat.v4.new_code_cell(source, id="setup", metadata=nbgrader_metadata("setup", locked=True))
            )
        elif cell.kind == "exercise":
            assert cell.name is not None  # every exercise and check fence names a graded name (parse_lesson)
            source = add_stub_raises(exercises[cell.name], exercise_message(assignment, cell.name))
            cells.append(
                nbformat.v4.new_code_cell(
                    source.rstrip("\n"), id=cell.name, metadata=nbgrader_metadata(cell.name, solution=True)
                )
            )
        elif cell.kind == "answer":
            assert cell.name is not None
            cells.append(answer_cell(cell.name, assignment.written[cell.name]))
        elif cell.kind == "check":
            assert cell.name is not None
            check_id, tests_id = f"{cell.name}-check", f"{cell.name}-tests"
            cells.append(
                nbformat.v4.new_code_cell(cell.text, id=check_id, metadata=nbgrader_metadata(check_id, locked=True))
            )
            metadata = nbgrader_metadata(tests_id, grade=True, locked=True, points=points[cell.name])
            cells.append(
                nbformat.v4.new_code_cell(hidden_test_source(assignment, cell.name), id=tests_id, metadata=metadata)
            )
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata.update(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": LANGUAGE_INFO,
            METADATA_KEY: {"assignment": assignment.name, "note": GENERATED_NOTE.format(name=assignment.name)},
        }
    )
    nbformat.validate(notebook)
    return notebook


def notebook_text(notebook: nbformat.NotebookNode) -> str:
    import nbformat  # here: as in answer_cell

    return nbformat.writes(notebook) + "\n"
