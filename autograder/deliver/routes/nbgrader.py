"""The hidden test cells of the nbgrader master notebooks call this: the kit's own graders, in the kernel.

``nbgrader autograde`` runs a submitted notebook cell by cell; each graded name's
hidden cell runs that name's hidden checks against the notebook's own globals and
leaves its points as the cell's value, which nbgrader reads as partial credit. The
points are those ``python -m autograder grade`` gives: the same checks, probes and
points table.

A hidden cell names the points nbgrader gives it and a hash of the kit it was built
with (``kit_digest``). It refuses to score, raising ``NotScored`` with the fix, when the
kit this kernel imports gives the name other points (points.toml changed since the
assignment was put into gradebook.db) or grades otherwise (another copy or version of
the kit): nbgrader then shows the error, and the cell's 0 is no score of the student's.

Unlike the grade command, this runs inside the student's kernel, as nbgrader always
does: it is not sandboxed, and the notebook's own cells run first, with the
instructor's access to files. A cell can replace this function (a blank notebook then
gets full marks) or write to gradebook.db; every hidden cell says so in its output.
The scores of record come from ``grade-all`` (sandboxed) and ``gradebook``, which
restores them in gradebook.db and names every score that differs.

Nothing is written to stderr (nbgrader would read a stderr line as an error and give
0). A failure of the kit itself raises, so that nbgrader shows it rather than a score.
"""

from __future__ import annotations

import contextlib
import copy
import io
import warnings
from functools import cache

from ... import KIT_ROOT, __version__, assignments
from ...grade.carry import checked_in_kernel
from ...grade.deciding import kit_digest
from ...grade.engine import run_check
from ...grade.plan import collect
from ...grade.reference import Reference
from ...public.probing import Implementation, run_probe
from ...results.scoring import points_text, summarize
from ...sandbox.host.session import StudentError

FORGERY_NOTE = (
    "(nbgrader autograde ran this notebook's own cells unsandboxed, with the instructor's access: a cell can forge "
    "these points or write to gradebook.db. The scores of record: `python -m autograder grade-all`, then "
    "`gradebook`, which names every score that differs from them.)"
)


class NotScored(RuntimeError):
    """The hidden cell will not score: the kernel's kit is not the one the cell was built with."""


class InProcessStudent:
    """The student's code in this very process (the kernel's globals), seen as a check sees a student."""

    def __init__(self, namespace: dict, name: str, device: str = "cpu"):
        self.impl = Implementation(namespace, device=device)
        self.name = name
        self.device = device

    def run(self, probe_id: str, inputs: dict) -> dict:
        outputs, error = run_probe(probe_id, self.impl, copy.deepcopy(inputs))  # the student may change its inputs
        if error:
            problem = StudentError(error)
            problem.evidence = {
                "probe_id": probe_id,
                "inputs": inputs,
                "error": error,
            }  # as the sandboxed route records it
            raise problem
        return outputs

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        return run_probe(probe_id, self.impl, copy.deepcopy(inputs))[1]


@cache
def _prepared(assignment_name: str):
    assignment = assignments.get(assignment_name)
    return assignment, collect(assignment), Reference.of(assignment)


@cache
def _kit_digest(assignment_name: str) -> str:
    return kit_digest(assignments.get(assignment_name))


def refusal(assignment_name: str, name: str, points: float | None, kit: str | None) -> str | None:
    """Why a hidden cell built with these points and this kit must not score in this kernel; None if it may."""
    rebuild = (
        f"`python -m autograder build {assignment_name}` in the course (it puts the assignment into gradebook.db "
        f"again), then `nbgrader autograde {assignment_name} --force`"
    )
    if points is None or kit is None:
        return f"not scored: this grade cell was made by an older build of the kit. Run {rebuild}."
    ours = assignments.get(assignment_name).points[name]
    if abs(ours - points) > 1e-9:
        return (
            f"not scored: the kit this kernel imports gives {name} {ours:g} points, this grade cell {points:g} "
            f"(points.toml changed after the assignment went into gradebook.db). Run {rebuild}."
        )
    if _kit_digest(assignment_name) != kit:
        return (
            f"not scored: this kernel imports the kit at {KIT_ROOT} (version {__version__}), which grades "
            f"{assignment_name} otherwise than the kit this notebook's grade cells were built with. Run nbgrader "
            f"from the course's own environment (`source COURSE/.venv/bin/activate`; `python -m autograder doctor` "
            f"names the kit the kernel imports), or, if the course's kit changed since, run {rebuild}."
        )
    return None


def grade_in_notebook(
    assignment_name: str, name: str, namespace: dict, points: float | None = None, kit: str | None = None
) -> float:
    """Run the hidden checks of one graded name on the notebook's globals; return its points.

    ``points`` and ``kit`` are the grade cell's points and the hash of the kit it was
    built with; where this kernel's kit disagrees, it raises NotScored instead.
    """
    problem = refusal(assignment_name, name, points, kit)
    if problem:
        raise NotScored(problem)
    assignment, plan, reference = _prepared(assignment_name)
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")

        def run_checks(graded: str) -> list:
            fixtures = {"student": InProcessStudent(namespace, graded), "reference": reference, "submission": None}
            return [run_check(check, fixtures) for check in plan if check.name == graded]

        results, _ = checked_in_kernel(assignment, reference, name, namespace, run_checks)
    if any(r.internal_error for r in results):
        raise RuntimeError("the grading kit failed: " + "; ".join(r.message for r in results if r.internal_error))
    report = summarize(
        assignment.points, results, names=[name], assignment=assignment.name, submission="the notebook being autograded"
    )
    score, top = report.by_name()[name]
    print(f"{name}: {points_text(score)} of {points_text(top)} points")
    for check in report.checks:
        print(f"  [{'pass' if check.status == 'passed' else 'FAIL'}] {check.title}: {check.message}")
    print(FORGERY_NOTE)
    return round(float(score), 6)
