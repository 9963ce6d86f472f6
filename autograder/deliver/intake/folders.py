"""A plain folder: the student is a folder's name or a file's stem (what grade-all always read).

A plain folder says nothing of when a file was handed in nor whether it was late (a file's
modification time is the copy's, not the hand-in's): both stay unknown.
"""

from __future__ import annotations

from pathlib import Path

from .model import Draft, Upload
from .names import printable
from .reader import Reader

SOURCE = "folders"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per folder or gradable file's stem; a folder wins over a file of the same student."""
    by_student: dict[str, list[Path]] = {}
    for entry in reader.entries(root):
        if entry.name.startswith("."):
            reader.skip(entry, "a hidden file or folder")
        elif entry.is_dir():
            by_student.setdefault(entry.name, []).append(entry)
        elif entry.suffix.lower() in reader.suffixes:
            by_student.setdefault(entry.stem, []).append(entry)
        else:
            reader.skip(entry, f"not a {' or '.join(reader.suffixes)} file, nor a student's folder")
    drafts = []
    rank = {suffix: i for i, suffix in enumerate(reader.suffixes)}
    for student, entries in by_student.items():
        entries.sort(key=lambda e: (not e.is_dir(), rank.get(e.suffix.lower(), len(rank)), e.name))
        chosen = entries[0]
        for other in entries[1:]:
            reader.skip(
                other, f"a second entry for the student {printable(student)!r}: {printable(chosen.name)} is graded"
            )
        draft = Draft(name=student, student_id="", origin=chosen.name, uploads=[Upload(reader.label(chosen), True)])
        if chosen.is_dir():
            draft.folder = chosen
        else:
            draft.file = chosen
        drafts.append(draft)
    return drafts
