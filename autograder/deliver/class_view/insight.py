"""What grade-all writes about the class as a whole once every student is graded, in this order:

1. the instructor's notes (solutions/<a>/cluster_notes.toml) into the results and
   feedback of the students whose groups they are written for (deliver/class_view/clusters.py);
2. DIR/clusters.json: the groups of students whose code fails an exercise the same way;
3. DIR/similarity.csv: the most alike pairs of submissions (deliver/class_view/similarity.py);
4. DIR/report.html: the dashboard (deliver/class_view/dashboard.py).

It returns the lines the class report (report.txt) adds about them. What it needs of
each student's code it reads from the record their grading kept (deliver/class_view/sources.py),
and nothing here compares all pairs of students: its cost grows with the class, not
with its square (``python -m autograder bench --class-steps`` times it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ...assignments import Assignment
from ...errors import KitError
from ...results.atomic import write_atomically
from ...results.outcome import GRADED
from ...results.read import Results
from ...results.text import clean
from ..grade_all.class_folder import cache_folder
from ..grade_all.regrade import submission_digest
from .clusters import apply_notes, clusters, notes_path, read_notes, write_clusters
from .dashboard import render_dashboard
from .report import class_figures
from .similarity import available as similarity_available
from .similarity import similar_pairs, write_similarity
from .sources import class_records, release_code

REPORTED = 8  # groups and pairs named in report.txt


def write_insight(
    assignment: Assignment,
    out: Path,
    intake,
    results: dict[str, Results],
    status: dict,
    *,
    show_hidden: bool = False,
    jobs: int = 1,
    digests: dict[str, str] | None = None,
    lap: Callable[[str], None] = lambda step: None,
) -> list[str]:
    """Notes, clusters.json, similarity.csv and report.html for a graded class; report.txt's lines about them.

    results: each student's, by key; a student whose notes change gets them there too. digests: each
    submission's digest (deliver/grade_all/regrade.py), by key, as grade-all computed them (else computed here); lap(step) is
    called as each step ends."""
    lines: list[str] = []
    try:
        notes = read_notes(assignment)
        changed = apply_notes(intake.submissions, results, notes, out, show_hidden)
        if changed:
            lines.append(f"notes from {notes_path(assignment).name}: the feedback of {changed} students changed")
    except KitError as error:  # a malformed notes file: every feedback keeps the notes it had
        notes = {}
        message = clean(error, 1000)
        print(f"error: notes not applied: {message}", file=sys.stderr)
        lines.append(f"notes not applied: {message}")
    lap("notes")
    names = {s.key: s.name for s in intake.submissions}
    graded = {key: r for key, r in results.items() if r.status == GRADED}
    known = digests or {}
    # a submission the export does not tell the owner of (undecided) is nobody's: no folder, no pair
    students = [
        (s.key, s.path, known.get(s.key) or submission_digest(s.path)) for s in intake.submissions if not s.undecided
    ]
    records = class_records(out, students, assignment, jobs)
    lap("code records")
    found = clusters(assignment, graded, lambda key: records[key], notes)
    write_clusters(out / "clusters.json", found)
    lap("clusters")
    if similarity_available():
        normal = {key: record.normalised or "" for key, record in records.items()}
        pairs = similar_pairs(normal, list(release_code(assignment)), cache=cache_folder(out), jobs=jobs)
        write_similarity(out / "similarity.csv", pairs, names)
    else:
        pairs = []
        (out / "similarity.csv").unlink(missing_ok=True)  # an earlier run's would say what this one did not look at
        lines.append("similarity.csv not written: copydetect is missing (pip install 'autograder[instructor]')")
    lap("similarity")
    page = render_dashboard(
        assignment, class_figures(assignment, results), found, pairs, status, intake.skipped, names, pages=set(results)
    )
    write_atomically(out / "report.html", page)
    lap("dashboard")
    return lines + summary_lines(found, pairs)


def summary_lines(found: list[dict], pairs: list) -> list[str]:
    """The largest groups and the most alike pairs, for report.txt."""
    groups = [c for c in found if c["size"] > 1]
    lines = [
        "",
        f"groups of the same wrong behaviour (clusters.json, report.html): {len(groups)} of two or more students, "
        f"{sum(1 for c in groups if not c['named'] and not c['unfinished'])} of them no known mistake and not the stub",
    ]
    for cluster in sorted(groups, key=lambda c: (c["unfinished"], -c["size"], c["id"]))[:REPORTED]:
        what = cluster["named"] or ("still the stub" if cluster["unfinished"] else "no known mistake")
        noted = ", note written" if cluster["note"] else ""
        lines.append(f"  {cluster['size']:>4}  {cluster['exercise']:<28} {cluster['id']}  {what}{noted}")
    if pairs:
        lines += ["", "most alike submissions (similarity.csv; a flag to look at, never a verdict):"]
        lines += [f"  {100 * p.similarity:5.1f}%  {p.a}  {p.b}" for p in pairs[:REPORTED]]
    return lines
