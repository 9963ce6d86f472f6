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

Here one test entry per graded exercise carries that exercise's points (``extra_data.by_name``
of results.json). Its message states the points only: the hidden checks' names and
feedback never reach the runner result, whatever the instructor allows elsewhere.

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

from ..results.text import md_block, md_name, md_text

RESULT_VERSION = 1  # the version autograding-command-grader writes; the reporter reads none
TOLERANCE = 1e-9


def exercise_points(results: dict, points: Mapping[str, float] | None = None) -> list[tuple[str, float, float]]:
    """(exercise, score, max score) per graded exercise, in the assignment's order.

    From extra_data.by_name; failing that, from the tests' first tag (the graded name);
    with no test at all (the submission could not be graded), every exercise of
    ``points`` (name -> max points) at 0.
    """
    by_name = (results.get("extra_data") or {}).get("by_name")
    if by_name:
        return [(name, float(entry["score"]), float(entry["max_score"])) for name, entry in by_name.items()]
    table: dict[str, list[float]] = {}
    for test in results.get("tests") or []:
        name = (test.get("tags") or [str(test.get("name", "")).split(":")[0]])[0]
        entry = table.setdefault(name, [0.0, 0.0])
        entry[0] += float(test.get("score") or 0)
        entry[1] += float(test.get("max_score") or 0)
    if table:
        return [(name, round(score, 4), round(top, 4)) for name, (score, top) in table.items()]
    return [(name, 0.0, float(top)) for name, top in (points or {}).items()]


def totals(results: dict, points: Mapping[str, float] | None = None) -> tuple[float, float]:
    """(score, max score) of the whole submission."""
    exercises = exercise_points(results, points)
    top = (results.get("extra_data") or {}).get("max_score")
    if top is None:
        top = sum(entry[2] for entry in exercises)
    return float(results.get("score") or 0), float(top)


def percent(results: dict, points: Mapping[str, float] | None = None) -> float:
    """The score as a percentage of the points, as the kit's --fail-under computes it."""
    score, top = totals(results, points)
    return 100 * score / top if top else 0.0


def graded(results: dict) -> bool:
    """Did grading give points (rather than say why the submission could not be graded)?"""
    return bool(results.get("tests"))


def runner_payload(results: dict, fail_under: float | None = None, points: Mapping[str, float] | None = None) -> dict:
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
    if not graded(results):
        reason = (
            (results.get("extra_data") or {}).get("error")
            or results.get("output")
            or "the submission could not be graded"
        )
        tests.append(_test("submission", "error", 0.0, 0.0, str(reason)))
        status = "error"
    elif fail_under is not None:
        status = "fail" if percent(results, points) < fail_under else "pass"
    else:
        status = "pass" if all(test["status"] == "pass" for test in tests) else "fail"
    return {"version": RESULT_VERSION, "status": status, "max_score": totals(results, points)[1], "tests": tests}


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


def runner_result(results: dict, fail_under: float | None = None, points: Mapping[str, float] | None = None) -> str:
    """The base64 string the reporter reads from <ID>_RESULTS (see the module's docstring)."""
    text = json.dumps(runner_payload(results, fail_under, points), separators=(",", ":"))
    return base64.b64encode(text.encode()).decode("ascii")


def write_github_output(
    results: dict,
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


def markdown_points(results: dict, show_hidden: bool = False, points: Mapping[str, float] | None = None) -> str:
    """The job summary: points per exercise; the checks' feedback only when ``show_hidden``.

    Every text of the results is escaped or fenced (results/text.py): a reason or message
    built from a file name draws no heading, table or link of its own."""
    score, top = totals(results, points)
    assignment = (results.get("extra_data") or {}).get("assignment") or "assignment"
    lines = [f"### {md_text(assignment)}: {score:g} of {top:g} points", ""]
    if not graded(results):
        reason = (
            (results.get("extra_data") or {}).get("error")
            or results.get("output")
            or "the submission could not be graded"
        )
        lines += ["**Not graded:**", "", md_block(reason), ""]
    lines += ["| exercise | points |", "|---|---|"]
    lines += [f"| {md_name(name)} | {s:g} / {m:g} |" for name, s, m in exercise_points(results, points)]
    lost = [
        test
        for test in results.get("tests") or []
        if float(test.get("score") or 0) < float(test.get("max_score") or 0) - TOLERANCE
    ]
    if show_hidden and lost:
        lines += ["", "Checks that lost points:", ""]
        lines += [
            f"- **{md_text(test.get('name', ''))}**: "
            + md_text(str(test.get("output", "")).splitlines()[0] if test.get("output") else "")
            for test in lost
        ]
    elif lost:
        lines += ["", "The hidden checks' feedback is shown here once your instructor allows it."]
    return "\n".join(lines) + "\n"


def public_results(results: dict, show_hidden: bool = False) -> dict:
    """What may be shown of results.json: all of it when ``show_hidden``, else the points.

    Without ``show_hidden``: the total, the points per exercise, what loading the code
    reported and why it could not be graded; only tests whose visibility is "visible"
    (the kit marks its hidden checks "after_due_date"); no named mistakes.
    """
    if show_hidden:
        return json.loads(json.dumps(results))
    extra = results.get("extra_data") or {}
    public = {
        "score": results.get("score", 0),
        "tests": [test for test in results.get("tests") or [] if test.get("visibility") == "visible"],
        "extra_data": {
            key: extra[key] for key in ("assignment", "max_score", "by_name", "notes", "error") if key in extra
        },
    }
    return json.loads(json.dumps(public))


def load_results(path: str | os.PathLike) -> dict:
    """results.json, or a 0-point result saying that grading wrote none."""
    try:
        results = json.loads(Path(path).read_text())
        if isinstance(results, dict):
            return results
        problem = "results.json is not a JSON object"
    except FileNotFoundError:
        problem = "grading wrote no results.json"
    except (OSError, ValueError) as error:
        problem = f"results.json could not be read ({error})"
    message = f"The autograder failed: {problem}; tell your instructor."
    return {"score": 0.0, "output": message, "tests": [], "extra_data": {"error": message}}


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
    results = load_results(results_dir / "results.json")
    fail_under = float(environ["FAIL_UNDER"]) if environ.get("FAIL_UNDER", "").strip() else None
    show_hidden = _flag(environ.get("SHOW_HIDDEN_DETAILS"))
    points = _assignment_points(environ.get("ASSIGNMENT") or (results.get("extra_data") or {}).get("assignment"))
    if environ.get("GITHUB_OUTPUT"):
        write_github_output(results, environ["GITHUB_OUTPUT"], fail_under=fail_under, points=points)
    if environ.get("GITHUB_STEP_SUMMARY"):
        with open(environ["GITHUB_STEP_SUMMARY"], "a") as file:
            file.write(markdown_points(results, show_hidden, points))
    public_dir.mkdir(parents=True, exist_ok=True)
    (public_dir / "points.json").write_text(json.dumps(public_results(results, show_hidden), indent=2) + "\n")
    if show_hidden:
        for name in ("results.json", "junit.xml"):
            if (results_dir / name).is_file():
                shutil.copyfile(results_dir / name, public_dir / name)
    return runner_payload(results, fail_under, points)


def _assignment_points(name: str | None) -> dict[str, float] | None:
    if not name:
        return None
    from .. import assignment as assignments
    from ..errors import KitError

    try:
        return dict(assignments.get(name).points)
    except (KitError, KeyError, ValueError, OSError):
        return None
