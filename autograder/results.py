"""From check results to points, and to the files CI and Gradescope read.

Points: each graded name's points (points.toml) are split across its checks by their
weights; a check over several cases earns its share times the fraction of cases that
pass; failing a gate check costs the name all its points.

results.json follows Gradescope's format (score, tests[] with name, score, max_score,
status, output, visibility); the kit's own figures go in extra_data.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .assignments import Assignment
from .plugin import CheckResult

HIDDEN_VISIBILITY = "after_due_date"  # Gradescope shows a hidden check's details after the due date


@dataclass
class CheckSummary:
    name: str
    title: str
    passed: int
    total: int
    score: float
    max_score: float
    message: str  # feedback of the first failing case
    mistakes: list[str] = field(default_factory=list)
    gate: bool = False
    internal_error: bool = False

    @property
    def status(self) -> str:
        return "passed" if self.passed == self.total else "failed"


@dataclass
class Report:
    assignment: str
    submission: str
    checks: list[CheckSummary]
    notes: list[str] = field(default_factory=list)  # what loading the submission reported
    sandbox: str = ""
    device: str = "cpu"
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks), 4)

    def by_name(self) -> dict[str, tuple[float, float]]:
        """(score, max score) per graded name, in the contract's order."""
        table: dict[str, list[float]] = {}
        for check in self.checks:
            entry = table.setdefault(check.name, [0.0, 0.0])
            entry[0] += check.score
            entry[1] += check.max_score
        return {name: (round(s, 4), round(m, 4)) for name, (s, m) in table.items()}

    def mistakes(self) -> list[str]:
        return sorted({m for check in self.checks for m in check.mistakes})

    def internal_errors(self) -> list[CheckSummary]:
        return [check for check in self.checks if check.internal_error]


def summarize(assignment: Assignment, results: list[CheckResult], names=None, **report_fields) -> Report:
    """Points per check; names limits the graded names expected (default: all of them)."""
    points = assignment.points
    names = tuple(names or assignment.graded)
    groups: dict[tuple[str, str], list[CheckResult]] = defaultdict(list)
    for result in results:
        groups[(result.name, result.check)].append(result)
    weight_of_name: dict[str, float] = defaultdict(float)
    for (name, _), cases in groups.items():
        weight_of_name[name] += cases[0].weight
    missing = [name for name in names if name not in weight_of_name]
    if missing and results:
        raise RuntimeError(f"no grader checked {missing}: every graded name needs at least one check")
    gated = {name for (name, _), cases in groups.items() if cases[0].gate and not all(c.passed for c in cases)}
    checks = []
    for name in names:
        for (check_name, _), cases in groups.items():
            if check_name != name:
                continue
            share = points[name] * cases[0].weight / weight_of_name[name]
            passed = sum(c.passed for c in cases)
            failures = [c for c in cases if not c.passed]
            message = _message(failures[0], len(failures), len(cases)) if failures else f"passed ({_cases(len(cases))})"
            score = 0.0 if name in gated else share * passed / len(cases)
            if name in gated and not failures:
                message += f"; but {name} earns no points because a check it must pass failed"
            checks.append(
                CheckSummary(
                    name=name,
                    title=cases[0].title,
                    passed=passed,
                    total=len(cases),
                    score=score,
                    max_score=share,
                    message=message,
                    mistakes=sorted({m for c in cases for m in c.mistakes}),
                    gate=cases[0].gate,
                    internal_error=any(c.internal_error for c in cases),
                )
            )
    return Report(assignment=assignment.name, checks=checks, **report_fields)


def _cases(n: int) -> str:
    return "1 case" if n == 1 else f"{n} cases"


def _message(first: CheckResult, failed: int, total: int) -> str:
    where = f" [{first.case}]" if first.case else ""
    head = f"failed {failed} of {_cases(total)}" if total > 1 else "failed"
    return f"{head}. First failure{where}: {first.message}"


# ------------------------------------------------------------------ files


def gradescope_json(report: Report, hidden_visibility: str = HIDDEN_VISIBILITY) -> dict:
    tests = [
        {
            "name": f"{check.name}: {check.title}",
            "score": round(check.score, 6),
            "max_score": round(check.max_score, 6),
            "status": check.status,
            "output": check.message,
            "visibility": hidden_visibility,
            "tags": [check.name],
        }
        for check in report.checks
    ]
    return {
        "score": report.score,
        "output": summary_text(report),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "assignment": report.assignment,
            "submission": report.submission,
            "max_score": report.max_score,
            "by_name": {name: {"score": s, "max_score": m} for name, (s, m) in report.by_name().items()},
            "mistakes": report.mistakes(),
            "notes": report.notes,
            "sandbox": report.sandbox,
            "device": report.device,
            "seconds": report.seconds,
        },
    }


def summary_text(report: Report) -> str:
    lines = [f"{report.assignment}: {report.score:g} of {report.max_score:g} points"]
    width = max((len(name) for name in report.by_name()), default=0)
    for name, (score, max_score) in report.by_name().items():
        lines.append(f"  {name:<{width}}  {score:>6.2f} / {max_score:g}")
    if report.notes:
        lines.append("While loading your code:")
        lines += [f"  - {note}" for note in report.notes]
    return "\n".join(lines)


def markdown_summary(report: Report) -> str:
    """The points per graded name as a Markdown table (a CI job's summary page)."""
    lines = [f"### {report.assignment}: {report.score:g} of {report.max_score:g} points", "", "| exercise | points |", "|---|---|"]
    lines += [f"| `{name}` | {score:g} / {top:g} |" for name, (score, top) in report.by_name().items()]
    failed = [check for check in report.checks if check.status != "passed"]
    if failed:
        lines += ["", "Checks that lost points (details of hidden checks appear after the due date):", ""]
        lines += [f"- `{check.name}`: {check.title}" for check in failed]
    return "\n".join(lines) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside path, then rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def junit_xml(report: Report) -> str:
    """One testcase per check of results.json; a failure wherever points were lost."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    failures = sum(check.score < check.max_score - 1e-9 for check in report.checks)
    suite = Element(
        "testsuite",
        name=report.assignment,
        tests=str(len(report.checks)),
        failures=str(failures),
        errors="0",
        time=f"{report.seconds:.3f}",
    )
    for check in report.checks:
        case = SubElement(suite, "testcase", classname=f"{report.assignment}.{check.name}", name=check.title)
        points = f"{check.score:.4g} of {check.max_score:.4g} points"
        SubElement(case, "system-out").text = f"{points}\n{check.message}"
        if check.score < check.max_score - 1e-9:
            SubElement(case, "failure", message=points).text = check.message
    indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + tostring(suite, encoding="unicode") + "\n"


def write_results(report: Report, out_dir: Path) -> Path:
    """results.json (Gradescope's format) and junit.xml, side by side, each written atomically."""
    path = Path(out_dir) / "results.json"
    write_atomically(path, json.dumps(gradescope_json(report), indent=2) + "\n")
    write_atomically(Path(out_dir) / "junit.xml", junit_xml(report))
    return path


def write_error_results(out_dir: Path, message: str, assignment: str | None = None) -> Path:
    """results.json for a submission that could not be graded: 0 points and the reason."""
    path = Path(out_dir) / "results.json"
    results = {
        "score": 0.0,
        "output": f"Your submission could not be graded: {message}",
        "visibility": "visible",
        "tests": [],
        "extra_data": {"assignment": assignment, "error": message},
    }
    write_atomically(path, json.dumps(results, indent=2) + "\n")
    return path
