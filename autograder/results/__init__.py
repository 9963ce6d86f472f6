"""Results: check outcomes to points, and the files CI, Gradescope and instructors read.

model.py    what one grading found (no pytest, no sandbox: plain data)
scoring.py  points per check, from points.toml and the checks' weights, summed exactly
text.py     student-made text made safe to show: bounded, control characters escaped
files.py    results.json (Gradescope's format), junit.xml, a Markdown table
"""
