"""Write grade-all's scores into nbgrader's gradebook, so nbgrader export and formgrader show them.

    python -m autograder gradebook OUT --assignment mha [--course .]

Each OUT/<student>/results.json becomes that student's submission of the assignment in
COURSE/gradebook.db, through nbgrader's own API: the points of each graded name go to
its grade cell (<name>-tests) as the automatic score. The assignment must be known to
the gradebook; if it is not, ``nbgrader generate_assignment`` is run in COURSE first
(it reproduces release/ exactly and records the grade cells).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .assignments import Assignment
from .build import nbgrader_env, run_nbgrader
from .errors import KitError


def export(out: Path, assignment: Assignment, course: Path) -> dict[str, float]:
    """Store every student's points; return {student: total} as nbgrader now sees it."""
    from nbgrader.api import Gradebook, MissingEntry

    os.environ["PATH"] = nbgrader_env()["PATH"]  # nbgrader's API runs the `alembic` script by name
    out, course = Path(out), Path(course)
    graded = sorted(p.parent for p in out.glob("*/results.json"))
    if not graded:
        raise KitError(f"{out} holds no <student>/results.json: run grade-all first")
    url = f"sqlite:///{(course / 'gradebook.db').resolve()}"
    with Gradebook(url) as gradebook:
        try:
            gradebook.find_assignment(assignment.name)
            known = True
        except MissingEntry:
            known = False
    if not known:
        run_nbgrader(assignment, course)
    notebook = Path(assignment.notebook_name).stem
    totals = {}
    with Gradebook(url) as gradebook:
        for folder in graded:
            student = folder.name
            results = json.loads((folder / "results.json").read_text())
            by_name = results.get("extra_data", {}).get("by_name")
            if not by_name:
                continue  # a submission that could not be graded: nothing to record
            gradebook.update_or_create_student(student)
            try:
                gradebook.find_submission(assignment.name, student)
            except MissingEntry:
                gradebook.add_submission(assignment.name, student)
            for name, points in by_name.items():
                grade = gradebook.find_grade(f"{name}-tests", notebook, assignment.name, student)
                grade.auto_score = points["score"]
            gradebook.db.commit()
            totals[student] = gradebook.find_submission(assignment.name, student).score
    return totals
