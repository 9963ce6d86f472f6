"""The hidden test cells of the nbgrader master notebooks call this: the kit's own graders, in the kernel.

``nbgrader autograde`` runs a submitted notebook cell by cell; each graded name's
hidden cell runs that name's hidden checks against the notebook's own globals and
leaves its points as the cell's value, which nbgrader reads as partial credit. The
points are those ``python -m autograder grade`` gives: the same checks, probes and
points table.

Unlike the grade command, this runs inside the student's kernel, as nbgrader always
does: it is not sandboxed. Nothing is written to stderr (nbgrader would read a stderr
line as an error and give 0). A failure of the kit itself raises, so that nbgrader
shows it rather than a score.
"""

from __future__ import annotations

import contextlib
import copy
import io
import warnings
from functools import cache

from .. import assignment as assignments
from ..public.probing import Implementation, run_probe


class InProcessStudent:
    """The student's code in this very process (the kernel's globals), seen as a check sees a student."""

    def __init__(self, namespace: dict, name: str, device: str = "cpu"):
        self.impl = Implementation(namespace, device=device)
        self.name = name
        self.device = device

    def run(self, probe_id: str, inputs: dict) -> dict:
        from ..sandbox.host.session import StudentError

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
    from ..grade.plan import collect
    from ..grade.reference import Reference

    assignment = assignments.get(assignment_name)
    return assignment, collect(assignment), Reference.of(assignment)


def grade_in_notebook(assignment_name: str, name: str, namespace: dict) -> float:
    """Run the hidden checks of one graded name on the notebook's globals; return its points."""
    from ..grade.carry import carry_in_kernel
    from ..grade.engine import run_check
    from ..grade.mistakes import name_mistakes
    from ..public.loader import is_stub
    from ..results.scoring import points_text, summarize

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

        results, carried = carry_in_kernel(assignment, reference, name, namespace, run_checks(name), run_checks)
        if not is_stub(namespace.get(name)):  # not started: no known mistake to name, as in grade-all
            name_mistakes(assignment, name, results, set() if carried else None)  # carried: its own mistakes only
    if any(r.internal_error for r in results):
        raise RuntimeError("the grading kit failed: " + "; ".join(r.message for r in results if r.internal_error))
    report = summarize(
        assignment.points, results, names=[name], assignment=assignment.name, submission="the notebook being autograded"
    )
    score, top = report.by_name()[name]
    print(f"{name}: {points_text(score)} of {points_text(top)} points")
    for check in report.checks:
        print(f"  [{'pass' if check.status == 'passed' else 'FAIL'}] {check.title}: {check.message}")
    return round(float(score), 6)
