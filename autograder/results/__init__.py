"""Results: check outcomes to points, and the files CI, Gradescope and instructors read.

model.py      what one grading found (no pytest, no sandbox: plain data)
scoring.py    points per check, from points.toml and the checks' weights, summed exactly
outcome.py    what grading one submission came to: the one mapping to a status and an exit code
write.py      results.json (Gradescope's format) from an outcome: the writer
read.py       results.json read back, typed: the one reader, for every consumer in deliver/
update.py     what changes in a results.json after grading (notes, late work), and its public part
summaries.py  one grading in a few lines: a terminal, results.json's output, a CI job's Markdown
junit.py      junit.xml
atomic.py     every output file written whole (beside it, then renamed)
text.py       student-made text made safe to show: bounded, control characters escaped
"""
