"""The class report grade-all writes: report.txt and report.png, read at a glance.

Three panels: the distribution of total scores, the share of students with full marks
on each graded name (where the class struggles), and the known mistakes the feedback
named most often. The text also lists every student who was not graded, and why, and
what the intake left out: names and reasons from the export, each on one line
(results/text.py's one_line), so that no file name adds a line to the report.
report.png is drawn again only when its figures changed (matplotlib takes a second to
load and draw): DIR/.cache/report.json keeps a digest of the figures it shows. With
more than one job, grade-all has it drawn by a process of its own (start_figure) while
the other class views are made.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from statistics import mean, median

from ...assignments import Assignment
from ...interrupts import end_on_terminate, held_while_forking
from ...results.atomic import write_atomically
from ...results.outcome import GRADED
from ...results.read import Results
from ...results.scoring import points_text
from ...results.text import one_line
from ..grade_all.class_folder import cache_folder

_DRAWING = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # this module: how report.png is drawn
EPSILON = 1e-9  # full marks: the points written to six decimals reach the maximum within rounding


def class_figures(assignment: Assignment, results: dict[str, Results]) -> dict:
    """The numbers behind the report, from the results of the graded students."""
    graded = [r for r in results.values() if r.status == GRADED]
    totals = [Fraction(str(r.score)) for r in graded]
    full = {name: sum(_full_marks(r, name) for r in graded) for name in assignment.graded}
    mistakes = Counter(m for r in graded for m in r.mistakes)
    max_score = sum((Fraction(str(v)) for v in assignment.points.values()), Fraction(0))
    return {"totals": totals, "full_marks": full, "mistakes": mistakes, "max_score": max_score, "students": len(graded)}


def _full_marks(results: Results, name: str) -> bool:
    points = results.points().get(name)  # an exercise a results.json gives no points earned none
    if points is None or points.score is None or points.max_score is None:
        return False
    return points.score >= points.max_score - EPSILON


def report_text(assignment: Assignment, figures: dict, status: dict, skipped: list, insight=()) -> str:
    """The report's text; insight: the lines about the class's groups and alike pairs (deliver/class_view/insight.py)."""
    n = figures["students"]
    lines = []
    if n == 0:
        lines.append(f"{assignment.name}: no graded submissions")
    else:
        totals, top = figures["totals"], figures["max_score"]
        lines += [
            f"{assignment.name}: {n} students graded",
            f"score: mean {float(mean(totals)):.2f}, median {float(median(totals)):.2f}, lowest {points_text(min(totals))}, "
            f"highest {points_text(max(totals))} (of {points_text(top)})",
            f"full marks: {sum(t >= top for t in totals)} students",
            "",
            "full marks per exercise (hardest first):",
        ]
        for name, count in sorted(figures["full_marks"].items(), key=lambda item: item[1]):
            lines.append(f"  {name:<30} {count:>4}/{n}  {100 * count / n:5.1f}%")
        if figures["mistakes"]:
            lines += ["", "known mistakes named most often:"]
            lines += [
                f"  {count:>4}  {one_line(mistake, 300)}" for mistake, count in figures["mistakes"].most_common(10)
            ]
    lines += insight
    problems = [(key, what, reason) for key, (what, reason) in status.items() if what != "graded"]
    if problems:
        lines += ["", f"not graded ({len(problems)}):"]
        lines += [f"  {one_line(key, 300)}: {what}: {one_line(reason, 300)}" for key, what, reason in problems[:50]]
    if skipped:
        lines += ["", f"left out of the class ({len(skipped)}): not submissions"]
        lines += [f"  {one_line(entry, 300)}: {one_line(why, 300)}" for entry, why in skipped[:50]]
    return "\n".join(lines) + "\n"


def report_figure(assignment: Assignment, figures: dict, path: Path) -> None:
    from matplotlib.figure import Figure  # here: matplotlib takes 0.4 s to import, for this figure only
    from matplotlib.ticker import MaxNLocator  # here: as above

    n = max(figures["students"], 1)
    figure = Figure(figsize=(15, 4.8), layout="constrained")
    scores, exercises, mistakes = figure.subplots(1, 3, width_ratios=[1, 1.3, 1.3])
    top = float(figures["max_score"])
    scores.hist([float(t) for t in figures["totals"]], bins=min(20, max(5, n // 2)), range=(0, top), color="#4c72b0")
    scores.set_title(f"total score ({figures['students']} students)")
    scores.set_xlabel(f"points (of {points_text(figures['max_score'])})")
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
    for axis in (scores.yaxis, mistakes.xaxis):
        axis.set_major_locator(MaxNLocator(integer=True))  # counts of students
    figure.savefig(path, dpi=110)


def write_report(
    assignment: Assignment,
    out: Path,
    intake,
    results: dict[str, Results],
    status: dict,
    insight=(),
    drawing: Callable[[str], bool | None] | None = None,
) -> str:
    """report.txt and report.png from every student's results; the text. drawing: start_figure's, where the
    figure was started in a process of its own."""
    figures = class_figures(assignment, results)
    text = report_text(assignment, figures, status, intake.skipped, insight)
    write_atomically(out / "report.txt", text)
    key = figure_key(assignment, figures)
    kept = cache_folder(out) / "report.json"
    drawn = drawing(key) if drawing is not None else None
    if drawn is False or (drawn is None and not _drawn(out / "report.png", kept, key)):
        report_figure(assignment, figures, out / "report.png")
        drawn = True
    if drawn:
        kept.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(kept, json.dumps({"key": key}) + "\n")
    return text


def start_figure(assignment: Assignment, out: Path, results: dict[str, Results]) -> Callable[[str], bool | None]:
    """report.png, where its figures changed, drawn now by a forked process (0.4 s of matplotlib on another core)
    while this one makes the other class views. The function returned, given the key (figure_key) of the
    figures write_report has at the end, waits for it and says whether it drew those: True; False where they
    changed since or the process failed (the picture is then drawn there); None where nothing was started."""
    figures = class_figures(assignment, results)
    key = figure_key(assignment, figures)
    if _drawn(out / "report.png", cache_folder(out) / "report.json", key):
        return lambda now: None
    process = multiprocessing.get_context("fork").Process(
        target=_draw_figure, args=(assignment, figures, out / "report.png"), daemon=True
    )
    with held_while_forking():  # a daemon: it ends with this process, an interrupt as it forks included
        process.start()

    def finish(now: str) -> bool:
        process.join()
        return process.exitcode == 0 and now == key

    return finish


def _draw_figure(assignment: Assignment, figures: dict, path: Path) -> None:
    end_on_terminate()  # grade-all interrupted: the drawing ends with it
    report_figure(assignment, figures, path)


def figure_key(assignment: Assignment, figures: dict) -> str:
    """A digest of what report.png shows: the figures, the names on its axes, the kit that draws it."""
    shown = [
        _DRAWING,
        list(assignment.graded),
        sorted(str(t) for t in figures["totals"]),
        list(figures["full_marks"].items()),
        figures["mistakes"].most_common(),
        str(figures["max_score"]),
        figures["students"],
    ]
    return hashlib.sha256(json.dumps(shown, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _drawn(png: Path, kept: Path, key: str) -> bool:
    """Whether png is there and was drawn from figures of that key."""
    try:
        return png.is_file() and json.loads(kept.read_text(encoding="utf-8")).get("key") == key
    except (OSError, ValueError, AttributeError):
        return False
