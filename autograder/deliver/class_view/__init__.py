"""Views of the whole class, written by grade-all once every student is graded.

insight.py      the views in order (the notes, the groups, similarity, the dashboard) and the report's lines on them
clusters.py     groups of students whose code fails an exercise the same way, and the notes for a group
cluster_to_mistake.py  a group turned into a known mistake, checked first (cluster-to-mistake)
sources.py      each student's own code, read (never run) for the views
fingerprints.py that code as copydetect fingerprints it
candidates.py   the pairs that share the most fingerprints, without comparing all of them
similarity.py   similarity.csv: the most alike pairs, a flag and never a verdict
report.py       report.txt and report.png
dashboard.py    report.html, the page an instructor reads
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...assignments import Assignment


def preload(assignment: Assignment | None = None, out: Path | None = None) -> None:
    """Import, ahead of time, the libraries the views load on first use (copydetect, which loads pyplot, 0.4 s;
    matplotlib for report.png), and normalise the release's own code that similarity strikes from every student's
    (0.15 s): grade-all calls it while the sandbox's zygote starts, so the views that follow the gradings no longer
    wait for them.

    Not where ``out`` keeps the views of an earlier run (similarity's pairs and report.png's key, out/.cache): a
    rerun's views are read back where the class's code and figures are the same, and need none of it. There the
    early loading only made the zygote wait for this process (0.4 s of a class of 24's 6 s); a view that finds its
    class changed loads what it needs itself."""
    if out is not None and views_kept(out):
        return
    for name in ("copydetect", "matplotlib.figure", "matplotlib.ticker", "matplotlib.backends.backend_agg"):
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)
    from . import fingerprints, sources  # here: this package's modules import the kit's results and intake

    if assignment is None or not fingerprints.available():
        return
    try:
        for piece in sources.release_code(assignment):
            fingerprints.normalised_release_piece(piece)
    except Exception:  # ahead of time only: what fails here the views meet again, and say why
        pass


def views_kept(out: Path) -> bool:
    """Whether out keeps what an earlier run's similarity and report.png were made from (out/.cache)."""
    from ..grade_all.class_folder import cache_folder  # here: as preload's own modules, with the results' and intake's

    kept = cache_folder(out)
    return (kept / "similarity.json").is_file() and (kept / "report.json").is_file()
