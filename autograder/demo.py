"""The README's first command: build every release with nbgrader, then grade the bundled samples."""
from __future__ import annotations

from pathlib import Path

from . import KIT_ROOT, assignments
from .build import build, sample_path
from .engine import Grader, Options
from .results import write_results

OUT = KIT_ROOT / "out" / "demo"


def samples(assignment) -> dict[str, Path]:
    """What the demo grades: the reference, the blank release notebook, and a notebook with one bug."""
    return {
        "reference": assignment.reference_path,
        "blank release": assignment.release_dir / assignment.notebook_name,
        "one bug": sample_path(assignment),
    }


def demo() -> int:
    for assignment in assignments.ASSIGNMENTS.values():
        changed = build(assignment)
        print(f"built {assignment.name} with nbgrader: " + ("updated " + ", ".join(_rel(p) for p in changed) if changed else "release up to date"))
        reports = {}
        # The samples are the kit's own files: grade them even where the sandbox cannot be hardened.
        with Grader(assignment, Options(allow_unsandboxed=True)) as grader:
            for label, path in samples(assignment).items():
                reports[label] = grader.grade(path)
                write_results(reports[label], OUT / assignment.name / label.replace(" ", "_"))
        print()
        print(score_table(assignment, reports))
        print(f"\nresults.json of each: {_rel(OUT / assignment.name)}/ (sandbox: {next(iter(reports.values())).sandbox})")
        for label, report in reports.items():
            named = report.mistakes()
            if named:
                print(f"{label}: the feedback names {', '.join(named)}")
    return 0


def score_table(assignment, reports: dict) -> str:
    labels = list(reports)
    width = max(len(name) for name in assignment.graded + ("total",))
    columns = [max(len(label), 9) for label in labels]
    lines = [f"{assignment.name:<{width}}  " + "  ".join(f"{label:>{w}}" for label, w in zip(labels, columns))]
    for name in assignment.graded:
        cells = []
        for label, w in zip(labels, columns):
            score, top = reports[label].by_name()[name]
            cells.append(f"{score:g}/{top:g}".rjust(w))
        lines.append(f"{name:<{width}}  " + "  ".join(cells))
    totals = [f"{r.score:g}/{r.max_score:g}".rjust(w) for r, w in zip(reports.values(), columns)]
    lines.append(f"{'total':<{width}}  " + "  ".join(totals))
    return "\n".join(lines)


def _rel(path: Path) -> str:
    path = Path(path)
    return str(path.relative_to(KIT_ROOT)) if path.is_relative_to(KIT_ROOT) else str(path)
