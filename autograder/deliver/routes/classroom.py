"""GitHub Classroom: the kit's points as the runner result Classroom's reporter reads.

GitHub Classroom records a grade through its reporter action,
``classroom-resources/autograding-grading-reporter@v1``. The reporter takes a list of
step ids (its ``runners`` input) and, for each id, an environment variable
``<ID>_RESULTS`` holding that step's ``result`` output: base64 of a JSON object in the
format Classroom's own graders (``autograding-command-grader``,
``autograding-python-grader``) write::

    {"version": 1, "status": "pass" | "fail" | "error", "max_score": 40,
     "tests": [{"name": "PositionalEncoding", "status": "pass" | "fail" | "error",
                "score": 1.37, "max_score": 4, "message": "...", "test_code": "",
                "filename": "", "line_no": 0, "duration": 0}]}

What the reporter (v1) does with it, as its source reads it:

- Classroom's grade: the sum of ``tests[].score`` over the sum of the top-level
  ``max_score``, posted as the notice "Points X/Y" ("Autograding complete") and as JSON
  ``{"totalPoints", "maxPoints"}`` ("Autograding report"). A runner whose ``max_score``
  is 0 or missing adds nothing, so a result must always carry the assignment's points.
  The notices are workflow commands, which the runner attaches to the job's check run:
  the reporter calls no GitHub API, and the job's token needs no permission for it.
- The top-level ``status``: "fail" or "error" fails the reporter's step, so the job.
- Per test, in the log: "✅ name" for status "pass", "❌ name" otherwise, "Error:
  message" for "error"; " - line N" after the name unless ``line_no`` is 0; the
  ``test_code`` when it is not empty. ``tests`` must not be empty (its length divides).
- Its closing table shows passed tests / tests x ``max_score``, not the points: the
  points are in the notice and in the per-test lines written here.

Here one test entry per graded exercise carries that exercise's points (results.json's
points per exercise, read by results/read.py). Its message states the points only: the
hidden checks' names and feedback never reach the runner result, whatever the instructor
allows elsewhere.

The workflow template (``autograder/deliver/templates/github-classroom.yml``) calls
``report_to_github`` once grading is done; ``write_github_output`` is the part that
writes the step's ``result`` output.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ... import assignments
from ...errors import KitError
from ...results.atomic import write_atomically
from ...results.read import Results, ResultsUnreadable, read_results_file
from ...results.text import md_block, md_name, md_text
from ...results.update import kit_failed_results, public_points

RESULT_VERSION = 1  # the version autograding-command-grader writes; the reporter reads none
TOLERANCE = 1e-9
NOT_GRADED = "the submission could not be graded"


def exercise_points(results: Results, points: Mapping[str, float] | None = None) -> list[tuple[str, float, float]]:
    """(exercise, score, max score) per graded exercise, in the assignment's order.

    From results.json's points per exercise (its hidden checks' where it has none); with
    no exercise at all (the submission could not be graded), every exercise of
    ``points`` (name -> max points) at 0.
    """
    if results.exercises:
        return [(e.name, e.score or 0.0, e.max_score or 0.0) for e in results.exercises]
    return [(name, 0.0, float(top)) for name, top in (points or {}).items()]


def totals(results: Results, points: Mapping[str, float] | None = None) -> tuple[float, float]:
    """(score, max score) of the whole submission."""
    top = results.max_score
    if top is None:
        top = sum(entry[2] for entry in exercise_points(results, points))
    return results.score or 0.0, float(top)


def percent(results: Results, points: Mapping[str, float] | None = None) -> float:
    """The score as a percentage of the points, as the kit's --fail-under computes it."""
    score, top = totals(results, points)
    return 100 * score / top if top else 0.0


def runner_payload(
    results: Results, fail_under: float | None = None, points: Mapping[str, float] | None = None
) -> dict:
    """The runner result as a dict: one test entry per graded exercise.

    status: "error" where the submission could not be graded; "fail" under
    ``fail_under`` percent of the points (with no threshold: unless every exercise has
    full points, as Classroom's own graders do); else "pass".
    """
    exercises = exercise_points(results, points)
    tests = []
    for name, score, top in exercises:
        full = score >= top - TOLERANCE
        tests.append(_test(name, "pass" if full else "fail", score, top, f"{score:g} of {top:g} points"))
    if not results.graded:
        tests.append(_test("submission", "error", 0.0, 0.0, _why_not_graded(results)))
        status = "error"
    elif fail_under is not None:
        status = "fail" if percent(results, points) < fail_under else "pass"
    else:
        status = "pass" if all(test["status"] == "pass" for test in tests) else "fail"
    return {"version": RESULT_VERSION, "status": status, "max_score": totals(results, points)[1], "tests": tests}


def _why_not_graded(results: Results) -> str:
    return results.reason or results.output or NOT_GRADED


def _test(name: str, status: str, score: float, top: float, message: str) -> dict:
    return {
        "name": name,
        "status": status,
        "score": score,
        "max_score": top,
        "message": message,
        "test_code": "",
        "filename": "",
        "line_no": 0,
        "duration": 0,
    }


def runner_result(results: Results, fail_under: float | None = None, points: Mapping[str, float] | None = None) -> str:
    """The base64 string the reporter reads from <ID>_RESULTS (see the module's docstring)."""
    text = json.dumps(runner_payload(results, fail_under, points), separators=(",", ":"))
    return base64.b64encode(text.encode()).decode("ascii")


def write_github_output(
    results: Results,
    path: str | os.PathLike,
    key: str = "result",
    fail_under: float | None = None,
    points: Mapping[str, float] | None = None,
) -> str:
    """Append ``key=<base64>`` to the step's output file ($GITHUB_OUTPUT); returns the value."""
    value = runner_result(results, fail_under, points)
    with open(path, "a") as file:
        file.write(f"{key}={value}\n")
    return value


def markdown_points(results: Results, show_hidden: bool = False, points: Mapping[str, float] | None = None) -> str:
    """The job summary: points per exercise; the checks' feedback only when ``show_hidden``.

    Every text of the results is escaped or fenced (results/text.py): a reason or message
    built from a file name draws no heading, table or link of its own."""
    score, top = totals(results, points)
    lines = [f"### {md_text(results.assignment or 'assignment')}: {score:g} of {top:g} points", ""]
    if not results.graded:
        lines += ["**Not graded:**", "", md_block(_why_not_graded(results)), ""]
    lines += ["| exercise | points |", "|---|---|"]
    lines += [f"| {md_name(name)} | {s:g} / {m:g} |" for name, s, m in exercise_points(results, points)]
    lost = [check for check in results.hidden_checks() if check.lost > TOLERANCE]
    if show_hidden and lost:
        lines += ["", "Checks that lost points:", ""]
        lines += [
            f"- **{md_text(check.name)}**: " + md_text(check.message.splitlines()[0] if check.message else "")
            for check in lost
        ]
    elif lost:
        lines += ["", "The hidden checks' feedback is shown here once your instructor allows it."]
    return "\n".join(lines) + "\n"


def read_graded(path: str | os.PathLike) -> Results:
    """results.json, typed; where grading left none to read, results that say so (0 of the points)."""
    try:
        return read_results_file(path)
    except ResultsUnreadable as error:
        return kit_failed_results(f"The autograder failed: {error}; tell your instructor.")


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def report_to_github(
    results_dir: str | os.PathLike, public_dir: str | os.PathLike, environ: Mapping[str, str] = os.environ
) -> dict:
    """After grading, in a GitHub Actions step: what Classroom, the job summary and the artifact get.

    Reads results_dir/results.json and, from ``environ``: FAIL_UNDER (percent),
    SHOW_HIDDEN_DETAILS ("true" once the hidden checks may be shown), ASSIGNMENT (its
    points when the submission could not be graded), GITHUB_OUTPUT and
    GITHUB_STEP_SUMMARY. Writes the runner result as the step's ``result`` output, the
    points per exercise to the job summary, and public_dir/points.json (with
    results.json and junit.xml too when SHOW_HIDDEN_DETAILS allows). Returns the
    runner result's dict.
    """
    results_dir, public_dir = Path(results_dir), Path(public_dir)
    results = read_graded(results_dir / "results.json")
    fail_under = float(environ["FAIL_UNDER"]) if environ.get("FAIL_UNDER", "").strip() else None
    show_hidden = _flag(environ.get("SHOW_HIDDEN_DETAILS"))
    points = _assignment_points(environ.get("ASSIGNMENT") or results.assignment)
    if environ.get("GITHUB_OUTPUT"):
        write_github_output(results, environ["GITHUB_OUTPUT"], fail_under=fail_under, points=points)
    if environ.get("GITHUB_STEP_SUMMARY"):
        with open(environ["GITHUB_STEP_SUMMARY"], "a") as file:
            file.write(markdown_points(results, show_hidden, points))
    public_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(public_dir / "points.json", json.dumps(public_points(results, show_hidden), indent=2) + "\n")
    if show_hidden:
        for name in ("results.json", "junit.xml"):
            if (results_dir / name).is_file():
                shutil.copyfile(results_dir / name, public_dir / name)
    return runner_payload(results, fail_under, points)


def _assignment_points(name: str | None) -> dict[str, float] | None:
    if not name:
        return None
    try:
        return dict(assignments.get(name).points)
    except (KitError, KeyError, ValueError, OSError):
        return None
