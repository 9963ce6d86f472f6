"""grade-all: an LMS export in; every student graded, a summary, feedback and the class's views out.

batch.py         the command's steps, in order, and its shards and merge
workers.py       the students who need grading, graded one after another or by a worker per job
regrade.py       what makes grade-all grade a student again (the submission's and the grading's digests)
class_folder.py  the --out folder, student by student, and the class's results read back typed
summary.py       summary.csv, a row per student
progress.py      done/total and time left, on one line
answers.py       the written answers: gathered into one page to grade, their points read back
markdown_html.py the lesson's Markdown and math as HTML for the written answers' page

The late policy (../late/) is applied by grade-all and by nbgrader's plugin alike, so it
sits beside this folder rather than in it.
"""
