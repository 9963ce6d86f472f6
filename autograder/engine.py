"""Grade submissions: the hidden graders, run by pytest, against a student's process.

A ``Grader`` keeps, for one assignment, a warm zygote (student processes start with
PyTorch imported) and the reference (its outputs cached across submissions), so that
grading many submissions costs little beyond the checks themselves.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import assignments
from .assignments import Assignment
from .core.loader import SubmissionError, defined_names, find_entry
from .errors import KitError
from .results import Report, summarize
from .sandbox.session import Limits, Session


@dataclass(frozen=True)
class Options:
    device: str = "cpu"  # "cpu", "cuda" or "auto"
    limits: Limits = field(default_factory=Limits)
    allow_unsandboxed: bool = False  # grade in a plain separate process where the hardened sandbox cannot run
    uid: int = 61000  # the unprivileged uid student processes run as (hardened)

    def isolation(self) -> str:
        """'hardened' where this machine can, else 'process' if allowed, else a KitError saying why not."""
        from .sandbox.cgroups import hardened_support

        reason = hardened_support()
        if reason is None:
            return "hardened"
        if self.allow_unsandboxed:
            return "process"
        raise KitError(
            f"refusing to grade without the hardened sandbox: {reason}. Run as root on Linux, "
            f"or pass --allow-unsandboxed to grade in a plain separate process (not hardened: "
            f"the student's code can read and write what this user can)"
        )

    def resolved_device(self) -> str:
        if self.device != "auto":
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"


def infer_assignment(path: Path) -> Assignment:
    """The assignment a submission is for: from the notebook's metadata, else from the names it defines."""
    path = Path(path)
    notebooks = [path] if path.suffix == ".ipynb" else sorted(path.rglob("*.ipynb")) if path.is_dir() else []
    for notebook in notebooks:
        try:
            metadata = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError):
            continue
        name = metadata.get("attention_kit", {}).get("assignment")
        if name in assignments.ASSIGNMENTS:
            return assignments.ASSIGNMENTS[name]
    scores = []
    for assignment in assignments.ASSIGNMENTS.values():
        try:
            entry = find_entry(path, assignment.graded)
            scores.append((len(defined_names(entry) & set(assignment.graded)), assignment.name))
        except SubmissionError:
            continue
    scores.sort(reverse=True)
    if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        known = ", ".join(assignments.ASSIGNMENTS)
        raise KitError(f"cannot tell which assignment {path} is for; pass --assignment (one of {known})")
    return assignments.ASSIGNMENTS[scores[0][1]]


class Grader:
    """Grades submissions of one assignment, one after another."""

    def __init__(self, assignment: Assignment, options: Options = Options()):
        from .reference import Reference
        from .sandbox.client import Zygote

        self.assignment = assignment
        self.options = options
        self.device = options.resolved_device()
        self.isolation = options.isolation()
        # The zygote is a fresh interpreter: it starts while the reference loads here.
        self.zygote = Zygote(preload=(f"autograder.{assignment.name}.probes",))
        self.reference = Reference.of(assignment)
        self.demo_cells = demo_cell_digests(assignment)

    def open(self, submission: Path):
        """(session, plugin) for one submission: its student side, and the pytest plugin judging it."""
        from .plugin import Grading

        entry = find_entry(Path(submission), self.assignment.graded)
        options = self.options
        session = Session(
            self.zygote,
            entry,
            self.device,
            options.limits,
            self.isolation,
            self.assignment.graded,
            submission=Path(submission),
            uid=options.uid,
            framework=self.assignment.framework,
            skip=self.demo_cells,
        )
        return session, Grading(self.assignment, session, self.reference, self.device, entry)

    def grade(self, submission: Path) -> Report:
        session, grading = self.open(submission)
        started = time.monotonic()
        try:
            run_graders(self.assignment, grading)
        finally:
            session.close()
        report = summarize(
            self.assignment,
            grading.results,
            submission=str(submission),
            notes=session.notes,
            sandbox=self.isolation if self.isolation == "hardened" else "process (not hardened)",
            device=self.device,
        )
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def close(self) -> None:
        from .sandbox.cgroups import remove_parents

        self.zygote.close()
        remove_parents()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def demo_cell_digests(assignment: Assignment) -> tuple[str, ...]:
    """The release notebook's own demonstration cells (neither exercises nor grade cells)."""
    import nbformat

    from .core.loader import cell_digest

    path = assignment.release_dir / assignment.notebook_name
    if not path.exists():
        return ()
    cells = nbformat.read(path, as_version=4).cells
    return tuple(sorted({cell_digest(c.source) for c in cells if c.cell_type == "code" and "nbgrader" not in c.metadata}))


def run_graders(assignment: Assignment, grading) -> None:
    """pytest over the assignment's hidden graders, quietly, with plain asserts (no rewriting)."""
    import pytest

    sys.dont_write_bytecode = True  # grading leaves no file behind in the kit
    arguments = [
        str(assignment.graders_dir),
        "-q",
        "--assert=plain",
        "--tb=no",  # our feedback is the exception's message; formatting tracebacks costs time
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        # Plugins a grading does not use, which cost time per test or per session:
        "-p",
        "no:logging",
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
        "-p",
        "no:doctest",
        "--no-header",
        "-W",
        "ignore",
    ]
    with contextlib.redirect_stdout(io.StringIO()) as output:
        code = pytest.main(arguments, plugins=[grading])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise KitError(f"the graders of {assignment.name} did not run (pytest exit code {code}):\n{output.getvalue()[-3000:]}")
