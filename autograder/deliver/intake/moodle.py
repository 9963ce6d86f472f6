"""Moodle, Assignment > View all submissions > Download all submissions.

Each student's prefix is clean_filename(<full name with '_' made ' '>_<participant id>),
the id being the assignment's unique participant number (assign_user_mapping), not the
user id; with blind marking the name is "Participant", with group submissions
"<group>-<name>". Then "_assignsubmission_<plugin>_": with "Download submissions in
folders" (the default since Moodle 3.1) a folder of that name holds the student's files
as uploaded, else each file is flattened as <prefix>_assignsubmission_file_<file name>.
Online text comes as ..._assignsubmission_onlinetext_/onlinetext.html. Source:
moodle/moodle mod/assign/locallib.php, assign::download_submissions(); the help string
'downloadasfolders_help' in mod/assign/lang/en/assign.php (MDL-62831).

The download holds each student's current submission (get_user_submission) and says
neither when it was made nor whether it was late: the names hold the name and id only,
and the zip's entry times are those of Moodle's stored files, not of the submission. So
late and submitted_at stay unknown; Moodle's own grading worksheet ("Last modified
(submission)") and its grading table say them. A participant id under two names happens
only in an export edited by hand: that student is graded for no one, saying why.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...public import trees
from .model import Draft, Upload
from .names import safe_file_name
from .reader import Reader

SOURCE = "moodle"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


MOODLE = re.compile(r"^(?P<name>.+?)_(?P<uid>\d+)_assignsubmission_(?P<plugin>[A-Za-z0-9]+)_(?P<file>.*)$", re.DOTALL)


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per participant id: their folder as it is, or their parts assembled."""
    students: dict[str, dict] = {}
    for entry in reader.entries(root):
        match = MOODLE.match(entry.name)
        if not match or entry.is_dir() and match["file"]:
            reader.skip(entry, "not named like a Moodle submission (Full Name_id_assignsubmission_plugin_)")
            continue
        student = students.setdefault(match["uid"], {"names": {}, "parts": []})
        student["names"][match["name"]] = None
        student["parts"].append((entry, match["plugin"], match["file"]))
    drafts = []
    for uid, student in students.items():
        names = list(student["names"])
        if len(names) == 1:
            drafts.append(_draft(reader, uid, names[0], student["parts"]))
        else:
            drafts.append(_two_names(reader, uid, names, student["parts"]))
    return drafts


def _two_names(reader: Reader, uid: str, names: list[str], parts: list) -> Draft:
    """A participant id under several names: none of them is believed, none of the files given."""
    why = (
        f"Moodle participant id {uid} appears with {len(names)} names in this export "
        f"({', '.join(repr(n) for n in sorted(names))}): graded for no one; check it by hand"
    )
    for entry, _, _ in parts:
        reader.skip(entry, why)
    return Draft(
        name=sorted(names)[0],
        student_id=uid,
        origin=uid,
        files=[],
        uploads=[Upload(reader.label(entry), False) for entry, _, _ in parts],
        undecided=why,
    )


def _draft(reader: Reader, uid: str, name: str, parts: list) -> Draft:
    draft = Draft(name=name, student_id=uid, origin=uid)
    draft.uploads = [Upload(reader.label(entry), True) for entry, _, _ in parts]
    if len(parts) == 1 and parts[0][0].is_dir() and parts[0][1] == "file":
        draft.folder = parts[0][0]
        return draft
    draft.files = []
    for entry, plugin, file in parts:
        prefix = "" if plugin == "file" else f"{plugin}/"
        if entry.is_dir():
            try:
                files = reader.files_under(entry)
            except trees.TreeTooDeep as error:
                draft.refused, files = str(error), []
            draft.files += [(p, prefix + p.relative_to(entry).as_posix()) for p in files]
        else:
            draft.files.append((entry, prefix + safe_file_name(file, "file")))
    return draft


def votes(root: Path, entries: list[Path]) -> int:
    """How many of an export folder's entries follow this LMS's naming (entries named as Moodle names them)."""
    return sum(bool(MOODLE.match(e.name)) for e in entries)
