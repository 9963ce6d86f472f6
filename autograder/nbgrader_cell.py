"""The hidden test cells of the nbgrader master notebooks call this: the kit's own graders.

``nbgrader autograde`` runs a submitted notebook cell by cell; each graded name's hidden
cell runs that name's hidden graders against the notebook's own globals and leaves its
points as the cell's value, which nbgrader reads as partial credit. The points are
those ``python -m autograder grade`` gives: the same graders, probes and points table.

Unlike the grade command, this runs inside the student's kernel, as nbgrader always
does: it is not sandboxed. Nothing is written to stderr (nbgrader would read a
stderr line as an error and give 0).
"""
from __future__ import annotations

import contextlib
import io
import warnings
from functools import lru_cache

from . import assignments


@lru_cache(maxsize=None)
def _reference(assignment_name: str):
    from .reference import Reference

    return Reference.of(assignments.get(assignment_name))


def grade_in_notebook(assignment_name: str, name: str, namespace: dict) -> float:
    """Run the hidden checks of one graded name on the notebook's globals; return its points."""
    from .engine import run_graders
    from .plugin import Grading
    from .results import summarize
    from .sandbox.local import InProcessSession

    assignment = assignments.get(assignment_name)
    grading = Grading(assignment, InProcessSession(namespace), _reference(assignment_name), only={name})
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_graders(assignment, grading)
    report = summarize(assignment, grading.results, names=[name], submission="the notebook being autograded")
    score, top = report.by_name()[name]
    print(f"{name}: {score:g} of {top:g} points")
    for check in report.checks:
        print(f"  [{'pass' if check.status == 'passed' else 'FAIL'}] {check.title}: {check.message}")
    return score
