"""A student's feedback from their graded results: one self-contained HTML page and Markdown.

model.py     what the feedback says, in the order a student acts on it
markdown.py  feedback.md
page.py      feedback.html, with its style sheet page.css

The input is a student's results.json, read by results/read.py (typed, tolerant of
missing or malformed keys: what is there is shown). Everything taken from the results
is untrusted text (a message can quote the student's output or a file name): each text
is cut to a bounded length, control characters are shown escaped (``\\x1b``), and it is
escaped for HTML or Markdown by results/text.py, the one place that escapes.
"""

from __future__ import annotations

from pathlib import Path

from ...results.atomic import write_atomically
from ...results.read import Results
from .markdown import render_markdown
from .page import render_html

__all__ = ["render_html", "render_markdown", "write_feedback"]


def write_feedback(
    results: Results, folder: Path, *, show_hidden: bool = False, student: str = ""
) -> tuple[Path, Path]:
    """Write folder/feedback.html and folder/feedback.md, each whole (written beside, then renamed); return (html, md)."""
    folder = Path(folder)
    page, markdown = folder / "feedback.html", folder / "feedback.md"
    write_atomically(page, render_html(results, show_hidden=show_hidden, student=student))
    write_atomically(markdown, render_markdown(results, show_hidden=show_hidden, student=student))
    return page, markdown
