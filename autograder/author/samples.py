"""Sample submissions made from the release: a student's notebook filled with the reference's code.

The demo, the benchmark and the tests grade these. They are rebuilt on demand under
build/samples/, never committed.
"""

from __future__ import annotations

import os

import nbformat

from .. import KIT_ROOT
from ..assignments import Assignment
from ..grade.mistakes import catalogue
from .blocks import _blocks_of, add_stub_raises, exercise_message, strip_markers
from .notebook import METADATA_KEY, notebook_text


def sample_notebook(assignment: Assignment, mistake_id: str | None, stub_kept: bool = False) -> nbformat.NotebookNode:
    """A student's finished notebook: the release filled with the reference's code, with one known mistake if named.

    stub_kept: every exercise keeps the stub's ``raise NotImplementedError`` under its return
    (unreachable), as students often leave it: it must change nothing of the grading."""
    source = assignment.reference_path.read_text()
    if mistake_id is not None:
        source = next(m for m in catalogue(assignment) if m.id == mistake_id).source(source)
    blocks = {b.name: b.source for b in _blocks_of(source) if b.is_exercise}
    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    for cell in notebook.cells:
        if cell.get("id") in blocks:
            code = blocks[cell.id]
            if stub_kept:
                code = add_stub_raises(code, exercise_message(assignment, cell.id))
            cell.source = strip_markers(code).rstrip("\n")
    notebook.metadata[METADATA_KEY]["note"] = (
        f"a sample submission with the mistake {mistake_id}" if mistake_id else "a sample submission"
    )
    return notebook


def sample_path(assignment: Assignment, mistake_id: str | None = "demo"):
    """The sample with one known mistake (the demo's, by default), written if missing or stale."""
    mistake = assignment.demo_mistake if mistake_id == "demo" else mistake_id
    name = f"one_bug_{mistake}.ipynb" if mistake else "solved.ipynb"
    path = KIT_ROOT / "build" / "samples" / assignment.name / name
    text = notebook_text(sample_notebook(assignment, mistake))
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")  # written whole, then renamed: a process reading
        partial.write_text(text)  # it at the same moment (another test worker, a demo) sees the old or the new one
        os.replace(partial, path)
    return path
