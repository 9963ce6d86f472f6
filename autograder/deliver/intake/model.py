"""What the intake hands grade-all (Submission, Intake), and what its readers build on the way (Draft)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import KitError


class IntakeError(KitError):
    """The intake cannot be read at all; the message says what was seen and what to do."""


@dataclass(frozen=True)
class Upload:
    """One upload of a student as the export shows it: the one graded (taken), or an earlier one, listed."""

    entry: str  # the file or folder in the export (escaped for printing), or the LMS's name of an upload it left out
    taken: bool  # part of what is graded; False for an earlier upload, or one whose student the export does not tell
    upload_id: str = (
        ""  # the LMS's own id of it: Canvas's attachment, Gradescope's submission, a Blackboard attempt, a commit
    )
    late: bool | None = None  # as the LMS marks it; None where the export does not say
    submitted_at: str = ""  # ISO 8601 where the export says, else ""


@dataclass(frozen=True)
class Submission:
    key: str  # filesystem-safe, unique within the class: the folder name of the student's results
    name: str  # the student's display name as the LMS gives it, escaped for printing
    student_id: str  # LMS id ("12345", a username, a GitHub login), "" if unknown
    path: Path  # the file or folder to grade
    source: str  # the LMS that made the export: one of the registry's SOURCES (__init__.py)
    late: bool | None = None  # as the LMS marks what is graded; None where its export does not say
    submitted_at: str = ""  # ISO 8601 where the LMS says, else ""
    email: str = ""
    members: tuple[
        tuple[str, str, str], ...
    ] = ()  # a group's members: (name, student_id, email) each, Gradescope groups
    earlier: tuple[Path, ...] = ()  # older submissions of the same student, noted, not graded
    refused: str = ""  # why this student's hand-in cannot be read (the student's zero), "" if it can
    uploads: tuple[Upload, ...] = ()  # what was read for this student: each upload graded, and each earlier one
    undecided: str = ""  # why the export does not tell whose files these are: not graded, no score (never 0)


@dataclass
class Intake:
    source: str
    submissions: list[Submission]
    skipped: list[tuple[str, str]]  # (entry, escaped for printing; why it is not a submission)


@dataclass
class Draft:
    """One student's graded submission before it gets its key and its folder."""

    name: str
    student_id: str
    origin: str  # what it came from, for a stable order
    files: list[tuple[Path, str]] | None = None  # (file in the intake, name in the assembled folder)
    folder: Path | None = None  # graded in place unless it holds links
    file: Path | None = None  # graded in place
    late: bool | None = None
    submitted_at: str = ""
    email: str = ""
    members: tuple[tuple[str, str, str], ...] = ()  # (name, student_id, email) each, as Submission.members
    earlier: list[Path] = field(default_factory=list)
    refused: str = ""  # as Submission.refused
    uploads: list[Upload] = field(default_factory=list)  # as Submission.uploads
    undecided: str = ""  # as Submission.undecided: no file is given to this student
