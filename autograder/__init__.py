"""autograder: teach, release and grade exercises on Transformer attention.

One command with subcommands: ``python -m autograder --help``. Its folders say which
side of the trust boundary they stand on. Folders and modules, in the order they may import one another (each only what comes
before it; tests/test_layout.py's LAYERS holds them to it):

public/     ships to students: the self-check engine in every release notebook
sandbox/    guest/ runs beside student code; host/ is the trusted side around it
config.py, assignments.py  grading options; an assignment discovered from its folder
results/    points, results.json (its one reader and writer), junit.xml
grade/      the hidden graders' runtime: plan, reference, judging, known mistakes;
            grade/authoring.py is all that an assignment's own files import
course      solutions/<name>/ imported as autograder.course.<name>
author/     author -> build -> release (nbgrader)
deliver/    grade_all/ (a class graded), class_view/ (the class seen whole), routes/ (nbgrader,
            Gradescope, GitHub Classroom, LMS grade files, Canvas); intake, late policy, feedback
doctor.py, bench.py, demo.py, cli.py   the commands

Each assignment is one folder, solutions/<name>/ (see assignments.py); the kit names none.
"""

import sys
from pathlib import Path

# nbformat imports jsonschema, and jsonschema imports rfc3987_syntax where it is installed (jupyter_events, which
# nbgrader brings, asks for it): 38 grammars compiled at import, 2.2 s of CPU in every process of the kit that reads
# a notebook, for the "iri" formats of a format checker that nbformat never passes. The kit's processes go without.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "not importable", as Python reads it

__version__ = "0.2.0"

KIT_ROOT = Path(__file__).resolve().parent.parent  # the repository: solutions/, release/, ...
