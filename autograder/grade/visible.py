"""A visible check, as an assignment declares it in solutions/<name>/visible.py (its VISIBLE list).

The grader runs these on the student's code beside the hidden checks (and reports them,
worth no points); author/visible.py stores their expected outputs for the notebook.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Visible:
    name: str  # the graded name checked
    title: str  # what the check verifies, as the student reads it
    probe: object  # a probe function
    inputs: dict
    keys: tuple[str, ...] | None = None  # the outputs compared (default: all of the probe's)
    # A check that only advises: where the outputs differ it passes all the same, with this note.
    note: str | None = None
