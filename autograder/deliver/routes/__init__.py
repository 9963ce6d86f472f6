"""Routes: one module per platform a course grades on or sends its grades to.

nbgrader.py      what the master notebook's hidden cells call: the kit's graders, in the kernel
hidden_tests.py  nbgrader autograde's step that restores the master's locked cells
gradebook.py     nbgrader's course folder: an LMS download into submitted/, grade-all's points into gradebook.db
gradescope.py    the Gradescope autograder bundle
classroom.py     GitHub Classroom: the points its reporter reads (the workflow: ../templates/)
lms_grades.py    the grade files each LMS imports, beside summary.csv
canvas_push.py   grades and feedback into Canvas through its REST API (push canvas)
"""
