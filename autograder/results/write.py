"""results.json written: Gradescope's format, from a grading's outcome; and the few updates made to it later.

results.json follows Gradescope's specification, "Autograder Specifications", Output
format (https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format;
its source: github.com/gradescope/autograder_samples, docs/specs.md): top-level
``score``, ``execution_time``, ``output`` with its ``output_format``, ``visibility``,
``stdout_visibility``, ``tests[]`` and ``extra_data``; each test with ``name`` (and
``name_format``), ``score``, ``max_score``, ``status`` ("passed" or "failed"),
``output`` (and ``output_format``: "text", "html", "simple_format", "md" or "ansi"),
``tags``, ``visibility`` ("hidden", "after_due_date", "after_published" or "visible")
and ``extra_data``. tests/results/test_gradescope_format.py holds that specification
as a JSON schema and checks every results.json the kit writes against it.

What a student sees of it:

- One visible test, "Self-checks", first: what the notebook's check cells find,
  in Markdown (``output_format`` "md", every text of the submission escaped or fenced):
  the code that did not run, each exercise whose checks fail with their messages and
  the known mistake the graders name there, and the exercises that pass. It carries no
  points (an informational test, as the specification allows), so a student sees no
  row of 0.0/0.0 before the due date.
- One test per hidden check that carries points, or that failed (a gate: it decides an
  exercise's points without carrying any), named "<exercise>: <what it checks>",
  shown at ``hidden_visibility``; plain text.
- The top-level output in plain text (``output_format`` "text"; Gradescope's default
  there, "simple_format", would render HTML).

The visible checks themselves, and what the feedback files need besides, go in
``extra_data``; results/read.py reads all of it back, typed, and is the only reader.
``extra_data.status`` is the outcome's (results/outcome.py): "graded", "error" (graded,
but a check of the kit broke) or "not graded". A submission the kit could not grade
(the grader failed, not the student) gets a results.json that says so, with no score of
its own: never a score of 0 that looks like the student's.

After grading, grade-all puts the instructor's notes for a student's groups into it
(``with_cluster_notes``), Gradescope's run_autograder marks late work (``marked_late``),
and GitHub Classroom's artifact shows a part of it (``public_points``); each is made
here, from the typed results and the document they were read from.

Written answers (graded by hand) are never in a score: results.json says how many points
they hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .atomic import write_atomically
from .junit import junit_xml
from .model import CheckSummary, Report
from .outcome import NOT_GRADED, Outcome, internal_errors, outcome_of, status_of
from .scoring import first_failure, points_json
from .summaries import graded_text, hand_graded, hand_graded_text, summary_text
from .text import clean, md_block, md_name, md_text

RESULTS = "results.json"  # the file's name, in each student's folder
HIDDEN_VISIBILITY = "after_due_date"  # Gradescope shows a hidden check's details after the due date
SELF_CHECKS = "Self-checks"  # the name the visible test starts with
SELF_CHECKS_TAG = "self-checks"  # its tag and extra_data.kind
SELF_CHECK_MESSAGE_LIMIT = 1000  # characters of one message in the self-checks' test
NOT_STARTED_WHY = "its cell still raises NotImplementedError"  # an exercise whose stub is untouched
SAME_FAILURE = "It failed the same way as the check above."
NOT_YOUR_FAULT = "This is a problem of the grading kit, not of your work: tell your instructor."

WITHHELD = "The details of this hidden check are not shown here."


@dataclass(frozen=True)
class Provenance:
    """What grade-all keeps beside a student's results: whose they are, and what they were graded from."""

    submission_digest: str  # everything submitted (deliver/grade_all/regrade.py): a changed submission is graded again
    grading_digest: str  # everything that decides a grade: a change of it grades everyone again
    student: dict  # who the results belong to, as the intake read them (deliver/grade_all/regrade.py student_record)

    def as_extra(self) -> dict:
        return {"fingerprint": self.submission_digest, "grading_digest": self.grading_digest, "student": self.student}


def results_json(
    outcome: Outcome,
    assignment: str | None,
    provenance: Provenance | None = None,
    hidden_visibility: str = HIDDEN_VISIBILITY,
    withhold_hidden: bool = False,
) -> dict:
    """results.json's content for an outcome: the grading, or why there is none."""
    if outcome.report is not None:
        return gradescope_json(outcome.report, hidden_visibility, provenance, withhold_hidden)
    return not_graded_json(outcome.message, assignment, provenance, student_fault=outcome.student_fault)


def gradescope_json(
    report: Report,
    hidden_visibility: str = HIDDEN_VISIBILITY,
    provenance: Provenance | None = None,
    withhold_hidden: bool = False,
) -> dict:
    """results.json's content for a grading.

    Gradescope hides the total from students while any test is hidden (after_due_date
    included): with ``hidden_visibility`` other than "visible" the top-level output
    says so instead of listing points. ``withhold_hidden`` shows every test (so the
    total shows at once) but keeps the hidden checks' messages out of the file.
    """
    tests = [self_checks_test(report)] if _visible(report) or report.notes else []
    tests += [_hidden_test(check, hidden_visibility, withhold_hidden) for check in report.graded_checks()]
    written = hand_graded(report.assignment)
    return {
        "score": points_json(report.score),
        "execution_time": round(report.seconds, 3),
        "output": summary_text(report) if hidden_visibility == "visible" else graded_text(report),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "assignment": report.assignment,
            "status": status_of(report),
            "submission": report.submission,
            "entry": report.entry,
            "max_score": points_json(report.max_score),
            "by_name": {
                name: {"score": points_json(s), "max_score": points_json(m)}
                for name, (s, m) in report.by_name().items()
            },
            "not_started": report.unstarted(),
            "mistakes": report.mistakes(),
            "mistake_messages": {m: report.mistake_messages.get(m, "") for m in report.mistakes()},
            "visible_checks": [
                {
                    "name": check.name,
                    "title": check.title,
                    "status": check.status,
                    "output": clean(check.message),
                    "cases": [check.passed, check.total],
                    "mistakes": check.mistakes,
                }
                for check in _visible(report)
            ],
            "notes": [clean(note, 1000) for note in report.notes],
            "isolation": report.isolation,
            "device": report.device,
            "device_why": report.device_why,
            "seconds": round(report.seconds, 3),
            "hidden_summary": report.hidden_summary,
            "internal_errors": internal_errors(report),
            "written": {"points": sum(written.values()), "questions": written, "note": hand_graded_text(written)},
            **(provenance.as_extra() if provenance else {}),
        },
    }


def _hidden_test(check: CheckSummary, hidden_visibility: str, withhold_hidden: bool) -> dict:
    """One hidden check as a test of Gradescope's: its points, its message (unless withheld), shown at hidden_visibility."""
    return {
        "name": f"{check.name}: {check.title}",
        "name_format": "text",
        "score": points_json(check.score),
        "max_score": points_json(check.max_score),
        "status": check.status,
        "output": WITHHELD if withhold_hidden else clean(check.message),
        "output_format": "text",
        "visibility": hidden_visibility,
        "tags": [check.name],
        "extra_data": {
            "kind": "hidden",
            "cases": [check.passed, check.total],
            "mistakes": check.mistakes,
            "behaviour": check.behaviour,
            **({"carried": check.carried} if check.carried else {}),  # the names the reference stood in for
        },
    }


def _visible(report: Report) -> list[CheckSummary]:
    return [check for check in report.checks if check.kind == "visible"]


def not_graded_json(
    message: str, assignment: str | None = None, provenance: Provenance | None = None, student_fault: bool = False
) -> dict:
    """results.json for a submission that could not be graded, with the reason.

    student_fault: the submission itself is the reason (nothing gradable in it): the
    student reads why, and the score is 0. Otherwise the grader failed: no score is
    given, and the student is told to ask the instructor.
    """
    text = clean(message, 4000)
    results: dict[str, object] = {
        "output": f"Your submission could not be graded: {text}" + ("" if student_fault else "\n" + NOT_YOUR_FAULT),
        "output_format": "text",
        "visibility": "visible",
        "tests": [],
        "extra_data": {
            "assignment": assignment,
            "status": NOT_GRADED,
            "student_fault": student_fault,
            "error": text,
            **(provenance.as_extra() if provenance else {}),
        },
    }
    if student_fault:
        results["score"] = 0.0
    return results


# ------------------------------------------------------------------ the files


def write_outcome(
    outcome: Outcome,
    out_dir: Path,
    assignment: str | None,
    *,
    provenance: Provenance | None = None,
    hidden_visibility: str = HIDDEN_VISIBILITY,
    withhold_hidden: bool = False,
    junit: bool = True,
) -> dict:
    """results.json (and, for a grading, junit.xml beside it when ``junit``), each written whole; the
    content as written (parsed back from the text: what any reader of the file gets)."""
    text = results_text(results_json(outcome, assignment, provenance, hidden_visibility, withhold_hidden))
    write_atomically(Path(out_dir) / RESULTS, text)
    if junit and outcome.report is not None:
        write_atomically(Path(out_dir) / "junit.xml", junit_xml(outcome.report))
    return json.loads(text)


def results_text(document: dict) -> str:
    """results.json's text for its content (results_json), as write_outcome writes it."""
    return json.dumps(document, indent=2) + "\n"


def write_results(
    report: Report, out_dir: Path, hidden_visibility: str = HIDDEN_VISIBILITY, withhold_hidden: bool = False
) -> Path:
    """results.json (Gradescope's format) and junit.xml of a grading, side by side; results.json's path."""
    write_outcome(
        outcome_of(report),
        out_dir,
        report.assignment,
        hidden_visibility=hidden_visibility,
        withhold_hidden=withhold_hidden,
    )
    return Path(out_dir) / RESULTS


# ------------------------------------------------------------------ the self-checks' test


def self_checks_test(report: Report) -> dict:
    """The one visible test: what the notebook's check cells find, in Markdown, with no points."""
    failing, passing = _self_check_names(report)
    total = len(failing) + len(passing)
    if not failing:
        name = f"{SELF_CHECKS}: all {total} exercises pass their notebook checks"
    else:
        name = f"{SELF_CHECKS}: {len(failing)} of {total} exercises fail their notebook checks"
    return {
        "name": name,
        "name_format": "text",
        "status": "failed" if failing else "passed",
        "output": self_checks_markdown(report),
        "output_format": "md",
        "visibility": "visible",
        "tags": [SELF_CHECKS_TAG],  # a tag of its own: readers take a test's first tag for its exercise
        "extra_data": {"kind": SELF_CHECKS_TAG},
    }


def _self_check_names(report: Report) -> tuple[list[str], list[str]]:
    """(names with a failing visible check, names whose visible checks all pass), in the contract's order."""
    checks = _visible(report)
    names = [name for name in report.by_name() if any(c.name == name for c in checks)]
    failing = [name for name in names if any(c.name == name and c.status != "passed" for c in checks)]
    return failing, [name for name in names if name not in failing]


def self_checks_markdown(report: Report) -> str:
    """The self-checks' test output: code that did not run, each failing exercise with the
    messages of its checks and the known mistakes named there, then the passing exercises."""
    failing, passing = _self_check_names(report)
    unstarted = set(report.unstarted())
    lines: list[str] = []
    if report.notes:
        lines += ["**Code that did not run** (the rest of your code was loaded without it):", ""]
        lines += [f"- {md_text(note, SELF_CHECK_MESSAGE_LIMIT)}" for note in report.notes] + [""]
    for name in failing:
        if name in unstarted:
            lines += [f"**{md_name(name)}**: not started: {md_text(NOT_STARTED_WHY)}.", ""]
            continue
        checks = [c for c in _visible(report) if c.name == name]
        failed = [c for c in checks if c.status != "passed"]
        lines += [f"**{md_name(name)}**: {len(failed)} of {len(checks)} checks fail.", ""]
        said: set[str] = set()
        for check in failed:
            lines += [f"- {md_text(check.title)}", ""]
            if first_failure(check.message) in said:
                lines += [SAME_FAILURE, ""]
            else:
                lines += [md_block(check.message, SELF_CHECK_MESSAGE_LIMIT), ""]
                said.add(first_failure(check.message))
        for mistake in _mistakes_of(report, name):
            explanation = report.mistake_messages.get(mistake) or "no explanation was recorded for it"
            lines += [f"> **Known mistake** {md_name(mistake)}: {md_text(explanation)}", ""]
    if passing:
        lines += ["Passing: " + ", ".join(md_name(name) for name in passing) + ".", ""]
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


def _mistakes_of(report: Report, name: str) -> list[str]:
    """The known mistakes the checks of one graded name named, hidden and visible, each once."""
    return list(dict.fromkeys(m for check in report.checks if check.name == name for m in check.mistakes))
