"""autograder: teach, release and grade exercises on Transformer attention.

One command with subcommands: ``python -m autograder --help``. The package reads as
the pipeline, and its folders say which side of the trust boundary they stand on:

public/     ships to students (the self-check engine, in every release notebook)
author/     1. author -> build -> release (nbgrader)
grade/      2. the hidden graders' runtime: plan, reference, judging, known mistakes
sandbox/    3. guest/ runs beside student code; host/ is the trusted side around it
results/    4. points, results.json, junit.xml
deliver/    5. a class, its report and feedback, nbgrader, Gradescope, GitHub Classroom

Each assignment is one folder, solutions/<name>/ (see assignment.py); the kit names none.
"""

from pathlib import Path

__version__ = "0.2.0"

KIT_ROOT = Path(__file__).resolve().parent.parent  # the repository: solutions/, release/, ...
