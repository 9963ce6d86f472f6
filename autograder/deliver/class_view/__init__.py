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

import importlib
import importlib.util


def preload() -> None:
    """Import, ahead of time, the libraries the views load on first use (copydetect, which loads pyplot, 0.8 s;
    matplotlib for report.png): grade-all calls it while the sandbox's zygote starts, when this process has
    nothing else to do, so the views that follow the gradings no longer wait for them."""
    for name in ("copydetect", "matplotlib.figure", "matplotlib.ticker", "matplotlib.backends.backend_agg"):
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)
