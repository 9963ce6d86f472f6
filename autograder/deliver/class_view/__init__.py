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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...assignments import Assignment


def preload(assignment: Assignment | None = None) -> None:
    """Import, ahead of time, the libraries the views load on first use (copydetect, which loads pyplot, 0.8 s;
    matplotlib for report.png), and normalise the release's own code that similarity strikes from every student's
    (0.4 s): grade-all calls it while the sandbox's zygote starts, when this process has nothing else to do, so
    the views that follow the gradings no longer wait for them."""
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
