"""Deliver: a class graded, seen whole, and sent where the course keeps its grades.

one_submission.py  one submission graded: the one function every route that grades calls
grade_all/   grade-all's machinery: its steps, the class graded in parallel, what a rerun grades
             again, the output folder, summary.csv, progress, the written answers' page and points
class_view/  views of the whole class: groups of alike failures and their notes, a group made a
             known mistake, similarity of code, the report and the dashboard
routes/      one module per platform: nbgrader (the hidden cells' grading, the gradebook, the
             hidden tests restored), Gradescope, GitHub Classroom, LMS grade files, Canvas's API
intake/      what an LMS hands an instructor, read safely, one reader per LMS
late/        the course's late policy, applied by grade-all and by nbgrader's plugin
feedback/    a student's feedback page and Markdown
html_page.py the one head (and Content-Security-Policy) of every page the kit writes
templates/   the GitHub Classroom workflow instructors copy

nbgrader.py and classroom.py only re-export, from routes/, what master notebooks and copied
workflows import by those paths (each says why it stays).
"""
