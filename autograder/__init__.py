"""attention-kit: teach, release and grade the multi-head attention assignments.

One command with subcommands: ``python -m autograder --help``.
"""
from pathlib import Path

__version__ = "0.1.0"

KIT_ROOT = Path(__file__).resolve().parent.parent  # the repository: solutions/, source/, release/, ...
