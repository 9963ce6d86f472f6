"""The class report grade-all writes: report.png and report.txt, read at a glance.

Three panels: the distribution of total scores, the share of students with full marks
on each graded name (where the class struggles), and the known mistakes the feedback
named most often.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import mean, median

from .assignments import Assignment
from .results import write_atomically


def class_figures(assignment: Assignment, results: dict[str, dict]) -> dict:
    """The numbers behind the report."""
    totals = [r["score"] for r in results.values()]
    full = {
        name: sum(r["extra_data"]["by_name"][name]["score"] >= r["extra_data"]["by_name"][name]["max_score"] - 1e-9 for r in results.values())
        for name in assignment.graded
    }
    mistakes = Counter(m for r in results.values() for m in r["extra_data"]["mistakes"])
    max_score = next(iter(results.values()))["extra_data"]["max_score"] if results else sum(assignment.points.values())
    return {"totals": totals, "full_marks": full, "mistakes": mistakes, "max_score": max_score, "students": len(results)}


def report_text(assignment: Assignment, figures: dict) -> str:
    n = figures["students"]
    if n == 0:
        return f"{assignment.name}: no graded submissions yet\n"
    totals = figures["totals"]
    top = figures["max_score"]
    lines = [
        f"{assignment.name}: {n} students graded",
        f"score: mean {mean(totals):.1f}, median {median(totals):.1f}, lowest {min(totals):g}, highest {max(totals):g} (of {top:g})",
        f"full marks: {sum(t >= top - 1e-9 for t in totals)} students",
        "",
        "full marks per exercise (hardest first):",
    ]
    for name, count in sorted(figures["full_marks"].items(), key=lambda item: item[1]):
        lines.append(f"  {name:<30} {count:>4}/{n}  {100 * count / n:5.1f}%")
    if figures["mistakes"]:
        lines += ["", "known mistakes named most often:"]
        lines += [f"  {count:>4}  {mistake}" for mistake, count in figures["mistakes"].most_common(10)]
    return "\n".join(lines) + "\n"


def report_figure(assignment: Assignment, figures: dict, path: Path) -> None:
    from matplotlib.figure import Figure

    n = max(figures["students"], 1)
    figure = Figure(figsize=(15, 4.8), layout="constrained")
    scores, exercises, mistakes = figure.subplots(1, 3, width_ratios=[1, 1.3, 1.3])
    scores.hist(figures["totals"], bins=min(20, max(5, n // 2)), range=(0, figures["max_score"]), color="#4c72b0")
    scores.set_title(f"total score ({figures['students']} students)")
    scores.set_xlabel(f"points (of {figures['max_score']:g})")
    scores.set_ylabel("students")
    names = list(assignment.graded)
    shares = [100 * figures["full_marks"][name] / n for name in names]
    exercises.barh(names[::-1], shares[::-1], color="#55a868")
    exercises.set_xlim(0, 100)
    exercises.set_title("full marks per exercise")
    exercises.set_xlabel("% of students")
    common = figures["mistakes"].most_common(8)
    if common:
        mistakes.barh([m for m, _ in common][::-1], [c for _, c in common][::-1], color="#c44e52")
        mistakes.set_xlabel("students")
    else:
        mistakes.text(0.5, 0.5, "no known mistake named", ha="center", va="center")
        mistakes.set_axis_off()
    mistakes.set_title("known mistakes named most often")
    from matplotlib.ticker import MaxNLocator

    for axis in (scores.yaxis, mistakes.xaxis):
        axis.set_major_locator(MaxNLocator(integer=True))  # counts of students
    figure.savefig(path, dpi=110)


def write_report(assignment: Assignment, out: Path) -> str:
    """report.txt and report.png from every results.json under out (one folder per student)."""
    from .batch import load_results

    results = load_results(students_in(out), out)
    figures = class_figures(assignment, results)
    text = report_text(assignment, figures)
    write_atomically(out / "report.txt", text)
    report_figure(assignment, figures, out / "report.png")
    return text


def students_in(out: Path):
    from .batch import Student

    return [Student(p.name, p) for p in sorted(Path(out).iterdir()) if (p / "results.json").is_file()]
