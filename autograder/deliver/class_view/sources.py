"""A student's own code, read (never run) for the class views: what they wrote, less what the release gave them.

grade-all's clusters quote a member's definition of an exercise, and its similarity
compares what students wrote. Both read the submission the grader graded (the same
file or package: public/loader.py finds it), as text, in the trusted process: nothing
of it runs. A notebook's code cells that equal a cell of the release (the self-checks,
the given code, the demonstrations) are left out; what is left is bounded in size.

What the class views need of it is read once per submission, by the worker that grades
it, and kept beside its results: students/<key>/code.json holds the excerpt of each
graded name and the normalised own code (deliver/class_view/fingerprints.py), with a key made of
the submission's digest, the release's code and the normaliser. A rerun reads that
back for every student whose submission is the same (``class_records``), and makes it
again only for the others: the class views never read a notebook twice.
"""

from __future__ import annotations

import ast
import gc
import json
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from ...assignments import Assignment
from ...interrupts import fork_pool
from ...public.loader import SubmissionError, cell_digest, code_cells, find_entry, read_text
from ...results.atomic import write_atomically
from ..grade_all.class_folder import student_folder
from . import fingerprints

MAX_CODE_CHARS = 200_000  # a student's own code, at most: the exercises are a few hundred lines
EXCERPT_LINES = 24  # lines of a definition quoted in a cluster
EXCERPT_CHARS = 1500
RECORD = "code.json"  # beside a student's results.json
RECORD_VERSION = "1"
POOL_FROM = 16  # students whose record is missing: fewer are read in this process


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
        return self._definitions.get(name, "")

    @cached_property
    def _definitions(self) -> dict[str, str]:
        """Each top-level definition's source, by name, the last one of a name kept."""
        found: dict[str, str] = {}
        for number, piece in enumerate(self.pieces):
            found.update(given_definitions(piece) if number in self.given else piece_definitions(piece))
        return found

    def excerpt(self, name: str) -> str:
        """A short quote of the definition of name: its first lines but the docstrings (the stub's spec), bounded."""
        lines = without_docstrings(self.definition(name)).split("\n")
        text = "\n".join(lines[:EXCERPT_LINES])
        if len(lines) > EXCERPT_LINES or len(text) > EXCERPT_CHARS:
            text = text[:EXCERPT_CHARS].rstrip() + "\n…"
        return text


def piece_definitions(piece: str) -> tuple[tuple[str, str], ...]:
    """(name, source) of each top-level definition of one cell or file, in order."""
    if "def" not in piece and "class" not in piece:
        return ()  # no definition can be in it: most of a notebook's cells
    try:
        tree = ast.parse(piece)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    lines = piece.split("\n")
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.append((node.name, "\n".join(lines[start - 1 : node.end_lineno])))
    return tuple(found)


@cache
def given_definitions(piece: str) -> tuple[tuple[str, str], ...]:
    """piece_definitions of a cell the release gave as it is, kept for the process: a class's notebooks share
    them (the self-check cell alone is 2,700 lines), parsed once."""
    return piece_definitions(piece)


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


# ------------------------------------------------------------------ kept beside the results


@dataclass(frozen=True)
class CodeRecord:
    """What the class views read of a student's code: kept in students/<key>/code.json."""

    excerpts: dict[str, str]  # graded name -> StudentCode.excerpt (only the names the code defines)
    normalised: str | None  # the own code normalised as copydetect does; None where Pygments is missing

    def excerpt(self, name: str) -> str:
        return self.excerpts.get(name, "")


def code_record(path: Path, assignment: Assignment) -> CodeRecord:
    """The record of the submission at path: its excerpts and, with Pygments, its own code normalised."""
    code = student_code(path, assignment)
    excerpts = {name: text for name in assignment.graded if (text := code.excerpt(name))}
    return CodeRecord(excerpts, fingerprints.normalised(code.text) if fingerprints.available() else None)


def record_key(submission_digest: str, assignment: Assignment) -> str:
    """What a record is made from: the submission, the release's code (its cells are not the student's), the
    normaliser (none without Pygments)."""
    normaliser = fingerprints.normaliser_id() if fingerprints.available() else "none"
    return fingerprints.digest(f"{RECORD_VERSION}\n{submission_digest}\n{release_digest(assignment)}\n{normaliser}")


def write_record(folder: Path, record: CodeRecord, key: str) -> None:
    document = {"key": key, "excerpts": record.excerpts, "normalised": record.normalised}
    write_atomically(Path(folder) / RECORD, json.dumps(document, ensure_ascii=False) + "\n")


def read_record(folder: Path, key: str) -> CodeRecord | None:
    """The record kept in folder if it was made with that key, else None."""
    try:
        document = json.loads((Path(folder) / RECORD).read_text(encoding="utf-8"))
        if document.get("key") != key:
            return None
        excerpts, normal = document["excerpts"], document["normalised"]
        if not isinstance(excerpts, dict) or not (normal is None or isinstance(normal, str)):
            return None
        return CodeRecord({str(k): str(v) for k, v in excerpts.items()}, normal)
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def keep_record(out: Path, key: str, path: Path, submission_digest: str, assignment: Assignment) -> CodeRecord:
    """A student's record made from their submission and kept in out/students/<key>/ (grade-all's worker)."""
    record = code_record(path, assignment)
    folder = student_folder(out, key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_record(folder, record, record_key(submission_digest, assignment))
    except OSError:  # not kept: the next run makes it again
        pass
    return record


_pool_job: tuple[Path, Assignment] | None = None  # set before a pool forks: where its workers keep records


def _keep(task: tuple[str, Path, str]) -> CodeRecord:
    assert _pool_job is not None
    out, assignment = _pool_job
    return keep_record(out, *task, assignment)


def class_records(
    out: Path, students: list[tuple[str, Path, str]], assignment: Assignment, jobs: int = 1
) -> dict[str, CodeRecord]:
    """Each student's record, by key, in order: read back where kept for the same submission, else made and kept
    (across ``jobs`` processes when many are missing). students: (key, path of the submission, its digest)."""
    global _pool_job
    found: dict[str, CodeRecord | None] = {}
    missing = []
    for key, path, digest in students:
        found[key] = read_record(student_folder(out, key), record_key(digest, assignment))
        if found[key] is None:
            missing.append((key, Path(path), digest))
    if jobs <= 1 or len(missing) < POOL_FROM:
        made = [keep_record(out, *task, assignment) for task in missing]
    else:
        _pool_job = (Path(out), assignment)
        gc.freeze()  # what lives now stays shared with the workers: their collectors leave it be (grade_all/class_folder.py)
        with fork_pool(jobs) as pool:
            made = pool.map(_keep, missing, chunksize=max(1, len(missing) // (8 * jobs)))
    found.update({task[0]: record for task, record in zip(missing, made)})
    return {key: record for key, record in found.items() if record is not None}


@cache
def release_digest(assignment: Assignment) -> str:
    return fingerprints.digest("\n\0".join(release_code(assignment)))
