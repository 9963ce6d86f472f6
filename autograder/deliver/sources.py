"""A student's own code, read (never run) for the class views: what they wrote, less what the release gave them.

grade-all's clusters quote a member's definition of an exercise, and its similarity
compares what students wrote. Both read the submission the grader graded (the same
file or package: public/loader.py finds it), as text, in the trusted process: nothing
of it runs. A notebook's code cells that equal a cell of the release (the self-checks,
the given code, the demonstrations) are left out; what is left is bounded in size.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..assignments import Assignment
from ..public.loader import SubmissionError, cell_digest, code_cells, find_entry, read_text

MAX_CODE_CHARS = 200_000  # a student's own code, at most: the exercises are a few hundred lines
EXCERPT_LINES = 24  # lines of a definition quoted in a cluster
EXCERPT_CHARS = 1500


@dataclass(frozen=True)
class StudentCode:
    pieces: tuple[str, ...]  # the cells or files of the submission's code, in order
    given: frozenset[int] = frozenset()  # the pieces that are the release's own (a notebook's cells left as given)

    @property
    def text(self) -> str:
        """What the student wrote: every piece but those the release gave them as they are, bounded."""
        own = (piece for number, piece in enumerate(self.pieces) if number not in self.given)
        return "\n\n".join(own)[:MAX_CODE_CHARS]

    def definition(self, name: str) -> str:
        """The source of the last top-level definition of name (as Python runs it, the last one counts); "" if none."""
        found = ""
        for piece in self.pieces:
            try:
                tree = ast.parse(piece)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            lines = piece.split("\n")
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    found = "\n".join(lines[start - 1 : node.end_lineno])
        return found

    def excerpt(self, name: str) -> str:
        """A short quote of the definition of name: its first lines but the docstrings (the stub's spec), bounded."""
        lines = without_docstrings(self.definition(name)).split("\n")
        text = "\n".join(lines[:EXCERPT_LINES])
        if len(lines) > EXCERPT_LINES or len(text) > EXCERPT_CHARS:
            text = text[:EXCERPT_CHARS].rstrip() + "\n…"
        return text


def without_docstrings(code: str) -> str:
    """The code with the docstrings of its functions and classes left out (as it is when it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno - 1, first.end_lineno or first.lineno))
    return "\n".join(line for number, line in enumerate(code.split("\n")) if number not in docstrings)


def student_code(path: Path, assignment: Assignment) -> StudentCode:
    """The code of the submission at path (the entry the grader grades), the release's own cells marked; empty
    when none is found."""
    path = Path(path)
    try:
        if path.is_symlink():
            return StudentCode(())
        entry = find_entry(path, assignment.graded)
        if entry.kind == "notebook":
            pieces = [cell.source for cell in code_cells(entry.path)]
            release = release_cells(assignment)
            given = frozenset(n for n, piece in enumerate(pieces) if cell_digest(piece) in release)
            return StudentCode(tuple(pieces), given)
        if entry.kind == "module":
            pieces = [read_text(entry.path)]
        else:
            files = sorted(p for p in entry.path.rglob("*.py") if not p.is_symlink() and "__pycache__" not in p.parts)
            pieces = [read_text(p) for p in files[:200]]
    except (SubmissionError, OSError, ValueError, RecursionError):
        return StudentCode(())
    return StudentCode(tuple(pieces))


@cache
def release_cells(assignment: Assignment) -> frozenset[str]:
    """The digests of the release notebook's code cells: a student's cell equal to one is not their work."""
    return frozenset(cell_digest(source) for source in release_code(assignment))


@cache
def release_code(assignment: Assignment) -> tuple[str, ...]:
    """The code students are given: the release notebook's code cells and the stub module."""
    notebook = assignment.release_dir / assignment.notebook_name
    pieces = [cell.source for cell in code_cells(notebook)] if notebook.is_file() else []
    if assignment.stub_path.is_file():
        pieces.append(assignment.stub_path.read_text(encoding="utf-8"))
    return tuple(pieces)
