"""Class intake: what an LMS hands an instructor, turned into the list of submissions to grade.

    intake = read_intake(Path("submissions.zip"), Path("scratch"))
    for submission in intake.submissions:   # one per student (or per group), latest only
        grade(submission.path)              # results go to OUT/<submission.key>/
    for entry, why in intake.skipped:       # everything that is not graded, and why
        print(entry, why)

read_intake takes a folder or a .zip. A zip is unpacked into scratch first, safely
(unzip.py). It then tells which LMS made the export from the names it holds, and reads
it with that LMS's naming scheme, one module each (canvas, moodle, blackboard,
gradescope, classroom, folders), each citing its sources. A file is bound to a student
only by what the LMS writes and the student cannot: Canvas's user id read every way its
names allow and kept only where one reading is left (canvas.py), Blackboard's receipts
read for their own attempt only (blackboard.py), Gradescope's metadata read without
aliases (gradescope.py).

The latest submission of each student is graded; older ones are listed in ``earlier``.
What the LMS writes of each upload is kept in ``uploads`` (which one is graded, which are
earlier, its id, its late flag and time where the export has them) and summed up in
``late`` (None where the export does not say) and ``submitted_at``. Where the export does
not tell whose files are whose (a Canvas file that reads as two students, one id with two
names), each student it could be is listed with ``undecided`` saying why: graded for no
one, never given another's file, and never missing from the class.
A student's files that belong together (a notebook and the .py module it imports) are
put in one folder under scratch, with the names the student gave them, and that folder
is graded. Whatever is not a submission (Finder's .DS_Store and __MACOSX/, Gradescope's
metadata, Blackboard's receipts, symbolic links, stray files, a Canvas file that reads
as two students) is listed in ``skipped`` with the reason. Every key is made of ASCII
letters, digits, '-', '_' and '.', is unique in the class (ignoring case), and is never
the name of a file grade-all writes beside the students' folders; display names keep
what the LMS gave, with undecodable bytes and control characters escaped, so printing
them is safe.
"""

from __future__ import annotations

import shutil
import unicodedata
import zipfile
from pathlib import Path

from ...public import trees
from . import blackboard, canvas, classroom, folders, gradescope, moodle
from .model import Draft, Intake, IntakeError, Submission, Upload
from .names import RESERVED_STEMS, key_base, printable, unique
from .reader import Reader
from .unzip import prepare_scratch, unpack

__all__ = ["SOURCES", "RESERVED_STEMS", "Intake", "IntakeError", "Submission", "Upload", "printable", "read_intake"]

# The registry: every LMS whose exports the intake reads, each one module with SOURCE, votes(root, entries)
# (how many of a folder's entries follow its naming) and read(reader, root). A new LMS is one module and one
# entry here. Where two follow a folder's naming equally, the first listed wins. A folder no LMS claims is read
# as plain folders.
LMSES = (canvas, moodle, blackboard, gradescope, classroom)
SOURCES = tuple(lms.SOURCE for lms in LMSES) + (folders.SOURCE,)


def read_intake(path: Path, scratch: Path, *, suffixes=(".ipynb", ".py")) -> Intake:
    """The submissions in an LMS export (a folder or a .zip), one per student, latest only.

    scratch holds what the intake writes: the unpacked zip and the folders it assembles
    for students whose files came apart. It must be empty or one the intake made before
    (which it then clears). suffixes are the files that can be graded: a folder of one
    file per student only counts those.
    """
    path, scratch = Path(path), Path(scratch)
    suffixes = tuple(s.lower() if s.startswith(".") else f".{s.lower()}" for s in suffixes)
    if not path.exists():
        raise IntakeError(f"{path} does not exist; give the folder or the .zip your LMS exported")
    prepare_scratch(scratch, path)
    skipped: list[tuple[str, str]] = []
    if path.is_dir():
        base = path
    elif zipfile.is_zipfile(path):
        base = unpack(path, scratch / "unzipped", skipped)
    else:
        raise IntakeError(f"{path} is neither a folder nor a .zip; give the folder or the .zip your LMS exported")
    reader = Reader(base, scratch, suffixes, skipped)
    root, lms = _locate(reader)
    return Intake(lms.SOURCE, _finish(reader, lms.read(reader, root), lms.SOURCE), skipped)


def _detect(reader: Reader, root: Path):
    """The LMS whose naming most of root's entries follow (at least half of them); None for a plain folder."""
    entries = reader.visible(root)
    votes = [(lms.votes(root, entries), lms) for lms in LMSES]
    best, lms = max(votes, key=lambda vote: vote[0])  # the first of equals
    return lms if best and best * 2 >= len(entries) else None


def _locate(reader: Reader):
    """The folder the export's entries are in (exports often wrap them in one), and the LMS that made it."""
    root = reader.base
    for _ in range(3):
        lms = _detect(reader, root)
        if lms:
            return root, lms
        inner = reader.visible(root)
        if len(inner) != 1 or not inner[0].is_dir():
            break
        wrapped = _detect(reader, inner[0])
        if wrapped:
            return inner[0], wrapped
        children = reader.visible(inner[0])
        if not children or any(c.is_file() for c in children):
            break  # a single student's folder, not a wrapper
        root = inner[0]
    if any(e.is_dir() or e.suffix.lower() in reader.suffixes for e in reader.visible(root)):
        return root, folders
    seen = sorted(printable(e.name) for e in root.iterdir())
    shown = ", ".join(seen[:6]) + (", ..." if len(seen) > 6 else "") if seen else "nothing"
    raise IntakeError(
        f"cannot tell what exported {reader.base}: it holds {shown}. The intake reads "
        f"Canvas 'Download Submissions' zips (doejane_12345_6789012_mha.ipynb), "
        f"Moodle 'Download all submissions' (Jane Doe_1234567_assignsubmission_file_/), "
        f"Blackboard 'Assignment File Download' (HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb), "
        f"Gradescope 'Export Submissions' (submission_metadata.yml with submission_NNN/ folders), "
        f"GitHub Classroom clones (<assignment>-<login>/ repositories) and plain folders "
        f"(a folder, or a {' or '.join(reader.suffixes)} file, per student)"
    )


def _finish(reader: Reader, drafts: list[Draft], source: str) -> list[Submission]:
    """Each draft with its key and the path to grade, in a stable order."""
    drafts.sort(key=lambda d: (unicodedata.normalize("NFC", d.name).casefold(), d.student_id, d.origin))
    used: set[str] = set()
    submissions = []
    for draft in drafts:
        key = unique(key_base(draft.name, draft.student_id), used)
        try:
            path = _materialize(reader, draft, key)
        except trees.TreeTooDeep as error:  # that student's hand-in is refused, never the class's
            draft.refused, path = str(error), draft.folder or reader.scratch / "students" / key
        submissions.append(
            Submission(
                key=key,
                name=printable(draft.name) or key,
                student_id=printable(draft.student_id),
                path=path,
                source=source,
                late=draft.late,
                submitted_at=draft.submitted_at,
                email=printable(draft.email),
                members=tuple((printable(n), printable(i), printable(e)) for n, i, e in draft.members),
                earlier=tuple(draft.earlier),
                refused=draft.refused,
                uploads=tuple(draft.uploads),
                undecided=draft.undecided,
            )
        )
    return submissions


def _materialize(reader: Reader, draft: Draft, key: str) -> Path:
    """The path to grade: in place where the intake's own entry holds plain files only, else a folder under scratch."""
    if draft.file is not None:
        return draft.file
    target = reader.scratch / "students" / key
    if draft.undecided:  # none of the files is given to this student: an empty folder, never graded
        target.mkdir(parents=True)
        return target
    if draft.refused:
        return draft.folder or target
    if draft.folder is not None:
        if reader.plain_files_only(draft.folder):
            return draft.folder
        draft.files = [(p, p.relative_to(draft.folder).as_posix()) for p in trees.regular_files(draft.folder)]
    target.mkdir(parents=True)
    for source, relative in draft.files or []:
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination, follow_symlinks=False)
    return target
