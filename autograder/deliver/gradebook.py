"""Put grade-all's points into nbgrader's gradebook, for nbgrader export, formgrader and feedback.

    python -m autograder gradebook OUT --assignment mha [--course .] [--overwrite]

Each OUT/students/<key>/results.json becomes that student's submission of the
assignment in COURSE/gradebook.db, through nbgrader's own API: the points of each
graded name go to its grade cell (<name>-tests) as the automatic score. The student's
nbgrader id is the key grade-all gave them (ASCII letters, digits, '-', '_', '.'),
with their name and email from the LMS. A score already in the gradebook (from
``nbgrader autograde``, say) is never replaced unless ``--overwrite``: the students
it would change are listed instead.

For ``nbgrader generate_feedback``, the graded notebook is placed in
COURSE/autograded/<id>/<assignment>/ with each grade cell showing the kit's feedback
for its exercise. The assignment must be known to the gradebook; if it is not,
``nbgrader generate_assignment`` is run in COURSE first.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat

from ..assignment import Assignment
from ..errors import KitError
from ..results.text import clean


def export(out: Path, assignment: Assignment, course: Path, overwrite: bool = False) -> dict[str, float]:
    """Store every graded student's points; return {student id: total} as nbgrader now sees it."""
    from nbgrader.api import Gradebook, MissingEntry

    from ..author.build import master_path
    from ..author.release import nbgrader_env, run_nbgrader

    os.environ["PATH"] = nbgrader_env()["PATH"]  # nbgrader's API runs the `alembic` script by name
    out, course = Path(out), Path(course)
    graded = []
    for path in sorted(out.glob("students/*/results.json")):
        results = json.loads(path.read_text())
        extra = results.get("extra_data", {})
        if extra.get("status") == "graded" and extra.get("assignment") == assignment.name:
            graded.append((path.parent, results))
    if not graded:
        raise KitError(f"{out} holds no graded students/<key>/results.json of {assignment.name}: run grade-all first")
    url = f"sqlite:///{(course / 'gradebook.db').resolve()}"
    with Gradebook(url) as gradebook:
        try:
            gradebook.find_assignment(assignment.name)
            known = True
        except MissingEntry:
            known = False
    if not known:
        (course / "source" / assignment.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(master_path(assignment), course / "source" / assignment.name / assignment.notebook_name)
        run_nbgrader(assignment, course)
    notebook = Path(assignment.notebook_name).stem
    totals, kept = {}, []
    with Gradebook(url) as gradebook:
        for folder, results in graded:
            student = folder.name
            extra = results["extra_data"]
            who = extra.get("student", {})
            first, _, last = str(who.get("name", "")).partition(" ")
            gradebook.update_or_create_student(
                student, first_name=first or None, last_name=last or None, email=who.get("email") or None
            )
            try:
                gradebook.find_submission(assignment.name, student)
            except MissingEntry:
                gradebook.add_submission(assignment.name, student)
            grades = {
                name: gradebook.find_grade(f"{name}-tests", notebook, assignment.name, student)
                for name in extra["by_name"]
            }
            changes = [
                name
                for name, grade in grades.items()
                if grade.auto_score is not None and abs(grade.auto_score - extra["by_name"][name]["score"]) > 1e-6
            ]
            if changes and not overwrite:
                kept.append(f"{student} ({', '.join(changes)})")
                continue
            for name, grade in grades.items():
                grade.auto_score = extra["by_name"][name]["score"]
            gradebook.db.commit()
            totals[student] = gradebook.find_submission(assignment.name, student).score
            _autograded_notebook(folder, results, assignment, course / "autograded" / student / assignment.name)
    if kept:
        print(f"kept the scores already in the gradebook of {len(kept)} students, which differ from grade-all's "
              f"(pass --overwrite to replace them): {'; '.join(kept[:20])}")  # fmt: skip
    return totals


def _autograded_notebook(folder: Path, results: dict, assignment: Assignment, target: Path) -> None:
    """The graded notebook as nbgrader's feedback expects it: each grade cell shows the kit's feedback."""
    graded = folder / "submission.ipynb"
    if not graded.exists():
        return  # the submission was not a notebook: nbgrader has nothing to render
    notebook = nbformat.read(graded, as_version=4)
    by_name = results["extra_data"]["by_name"]
    messages: dict[str, list[str]] = {}
    for test in results.get("tests", []):
        name = test.get("tags", [""])[0]
        if test.get("extra_data", {}).get("kind", "hidden") == "hidden":
            messages.setdefault(name, []).append(
                f"[{'pass' if test['status'] == 'passed' else 'FAIL'}] {test['name']}: {clean(test['output'], 2000)}"
            )
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        name = grade_id.removesuffix("-tests")
        if grade_id.endswith("-tests") and name in by_name:
            text = f"{name}: {by_name[name]['score']:g} of {by_name[name]['max_score']:g} points\n" + "\n".join(
                messages.get(name, [])
            )
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text + "\n")]
    target.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target / assignment.notebook_name)
