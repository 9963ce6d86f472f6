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
