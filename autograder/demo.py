"""The README's first command: build every release with nbgrader, then grade the bundled samples."""

from __future__ import annotations

from . import KIT_ROOT, assignments
from .author.build import build
from .author.samples import sample_path
from .config import GradingConfig
from .grade.engine import Grader
from .results.scoring import points_text
from .results.write import write_results

OUT = KIT_ROOT / "out" / "demo"


def samples(assignment) -> dict:
    """What the demo grades: the reference, the blank release notebook, and a notebook with one bug."""
    return {
        "reference": assignment.reference_path,
        "blank release": assignment.release_dir / assignment.notebook_name,
        "one bug": sample_path(assignment),
    }


def demo() -> int:
    for assignment in assignments.discover().values():
        changed = build(assignment)
        print(
            f"built {assignment.name} with nbgrader: "
            + ("updated " + ", ".join(changed) if changed else "release up to date")
        )
        reports = {}
        # The samples are the kit's own files: grade them even where no isolation tier works.
        with Grader(assignment, GradingConfig(allow_unsandboxed=True)) as grader:
            for label, path in samples(assignment).items():
                reports[label] = grader.grade(path)
                write_results(reports[label], OUT / assignment.name / label.replace(" ", "_"), "visible")
            isolation = grader.isolation.describe()
        print()
        print(score_table(assignment, reports))
        print(f"\nresults.json of each: {(OUT / assignment.name).relative_to(KIT_ROOT)}/ (isolation: {isolation})")
        for label, report in reports.items():
            named = report.mistakes()
            if named:
                print(f"{label}: the feedback names {', '.join(named)}")
        print()
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
            cells.append(f"{points_text(score)}/{points_text(top)}".rjust(w))
        lines.append(f"{name:<{width}}  " + "  ".join(cells))
    totals = [f"{points_text(r.score)}/{points_text(r.max_score)}".rjust(w) for r, w in zip(reports.values(), columns)]
    lines.append(f"{'total':<{width}}  " + "  ".join(totals))
    return "\n".join(lines)
