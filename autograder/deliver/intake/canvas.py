"""Canvas, Assignment > Download Submissions: a flat zip, one file per uploaded file.

Canvas names each file (instructure/canvas-lms lib/content_zipper.rb: get_filename,
add_upload_submission, get_uploaded_files_from, sanitize_user_name, sanitize_file_name,
sanitize_attachment_filename):
    <name>_[LATE_]<user id>_<attachment id>_<file name as uploaded>
    <name>_[LATE_]<user id>_text.html  and  ..._link.html  for text entries and URLs
    [LATE_]anon_<anonymous id>_...  with anonymous grading (no name at all)
<name> is the student's sortable name ("Doe, Jane") with any "_<digits>_" collapsed,
lower-cased, then stripped of every non-word character ("doejane"). LATE is a flag, never
part of the name: get_filename joins [name, "LATE" when submission.late?, user id], so a
name never holds it (Canvas lower-cases names) and every file of one submission carries
the same flag. Both ids are integers Canvas writes; the attachment id grows with each
upload. The file name is the student's, with only \\ / : * ? " < > | and NUL made '_'.
The zip holds each student's current submission (its attachment_ids) and no time. A file
uploaded under a name the student's Canvas files already hold gets "-1", "-2"
(instructure/canvas-lms#606 and #2310: before the extension, or before the first dot; a
first upload too when an earlier assignment left that name, IIC1253/IIC1253-2023-2#52);
it is graded under the name the student gave it, and one file's versions are told apart
by the attachment id. Public unpackers read the same scheme: a Canvas unzip script's
"(?P<name>[^_]*)(?P<late>_LATE)?_(?P<lms_id>[0-9]*)_(?P<sub_id>[0-9]*)_(?P<filename>.*)"
that drops the "-N" count, HCI-Data-Analysis/HCI-data-analysis's convert_zip_file
(name_LATE_canvasid_number_assignment.zip), mikewesthad/canvas-unzipper.

An export put together from two downloads (one before the deadline, one after) holds a
student's on-time and late uploads side by side, as the README's example does: the newest
version of each file is graded, the others are listed as earlier, and the student is late
when any file graded comes from a submission Canvas marked LATE. Each upload's attachment
id and flag are kept (Submission.uploads).

Who a file belongs to is the user id, and only Canvas writes that; but the name and the
file name around it are the student's, and both may hold "_" and digits: a student who
names herself "Mallory_12345" (Canvas keeps "_12345" at the end of a name) and uploads
"mha.ipynb" gets mallory_12345_999_555_mha.ipynb, which also reads as user 12345's
"555_mha.ipynb". So each file name is read every way the scheme allows (readings), and a
file goes to a student only when one reading is left once the others are ruled out by
what Canvas guarantees for one export: one name per user id (a user has one sortable
name), and one file per attachment id. A file with one reading settles its user's name;
a file with several keeps those that agree with every settled user. A file left with two
readings is graded for no one: it is listed in skipped with both readings, never given
to the wrong student, and each user it could be who has no other file gets a row that
says so (Draft.undecided), so that no one who submitted is missing from the class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .model import Draft, Upload
from .names import safe_file_name
from .reader import Reader

SOURCE = "canvas"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


ID = re.compile(r"[1-9][0-9]*")  # Canvas's ids are integers, written without leading zeros
ANONYMOUS_ID = re.compile(r"[0-9A-Za-z]+")
HTML_ENTRIES = ("text.html", "link.html")
NOT_IN_A_NAME = re.compile(r"[^a-z0-9_\x80-\U0010ffff]")  # the ASCII Canvas removes or lower-cases in a name
VERSION = re.compile(r"^(?P<head>.*?)-(?P<n>\d+)(?P<tail>(?:\.[^.]*)?)$", re.DOTALL)  # mha-1.ipynb, a.tar-1.gz
VERSION_FIRST_DOT = re.compile(r"^(?P<head>[^.]*?)-(?P<n>\d+)(?P<tail>(?:\.[A-Za-z0-9]+)+)$", re.DOTALL)  # a-1.tar.gz


@dataclass(frozen=True)
class Reading:
    """One way to read a Canvas file name."""

    name: str  # the sanitised sortable name, "" with anonymous grading
    late: bool
    uid: str  # the user id, or anon_<anonymous id>
    fid: int  # the attachment id; 0 for a text entry or a URL
    file: str  # the file name as uploaded, or text.html / link.html

    def describe(self) -> str:
        return f"user {self.uid} ({self.name or 'no name'}), file {self.file!r}"


def readings(file_name: str, anonymous: bool) -> list[Reading]:
    """Every way file_name fits the scheme: named exports, or anonymous ones."""
    tokens = file_name.split("_")
    if anonymous:
        start = 1 if tokens[0] == "LATE" else 0
        if len(tokens) > start + 2 and tokens[start] == "anon" and ANONYMOUS_ID.fullmatch(tokens[start + 1]):
            return _tails("", start == 1, f"anon_{tokens[start + 1]}", tokens[start + 2 :])
        return []
    found = []
    for i in range(1, len(tokens)):  # tokens[:i] is the name: never absent, possibly "" ("_12345_...")
        late = tokens[i] == "LATE"
        at = i + 1 if late else i
        name = "_".join(tokens[:i])
        if at < len(tokens) and ID.fullmatch(tokens[at]) and not NOT_IN_A_NAME.search(name):
            found += _tails(name, late, tokens[at], tokens[at + 1 :])
    return found


def _tails(name: str, late: bool, uid: str, tail: list[str]) -> list[Reading]:
    found = []
    if len(tail) == 1 and tail[0] in HTML_ENTRIES:
        found.append(Reading(name, late, uid, 0, tail[0]))
    if len(tail) >= 2 and ID.fullmatch(tail[0]) and "_".join(tail[1:]):
        found.append(Reading(name, late, uid, int(tail[0]), "_".join(tail[1:])))
    return found


def looks_like(file_name: str) -> bool:
    """Whether a file name fits Canvas's scheme at all (for telling which LMS made an export)."""
    return bool(readings(file_name, False) or readings(file_name, True))


def is_anonymous(names: list[str]) -> bool:
    """Anonymous grading names no student: every file starts with anon_ (or LATE_anon_)."""
    return bool(names) and all(name.startswith(("anon_", "LATE_anon_")) for name in names)


def resolve(candidates: dict[Path, list[Reading]]) -> tuple[dict[Path, Reading], dict[Path, str]]:
    """The one reading left for each file, and why the rest are graded for no one.

    Readings are ruled out until nothing changes: one that gives a settled user another
    name, or reuses an attachment id a settled file of that user has. The late flag rules
    nothing out: an export merged from two downloads holds a user's files with and without it.
    """
    chosen = {path: found[0] for path, found in candidates.items() if len(found) == 1}
    left = {path: found for path, found in candidates.items() if len(found) > 1}
    changed = True
    while changed and left:
        changed = False
        settled = _identities(chosen)
        used = {(r.uid, r.fid) for r in chosen.values() if r.fid}
        for path, found in list(left.items()):
            fits = [r for r in found if settled.get(r.uid, {r.name}) == {r.name}]
            fits = [r for r in fits if not r.fid or (r.uid, r.fid) not in used]
            if len(fits) != len(found):
                changed = True
                left[path] = fits
            if len(fits) == 1:
                chosen[path] = fits[0]
                del left[path]
    why = {path: _ambiguous(found, candidates[path]) for path, found in left.items()}
    for uid, names in _identities(chosen).items():
        if len(names) > 1:  # only a hand-edited export gives one user two names: none of them is believed
            for path in [p for p, r in chosen.items() if r.uid == uid]:
                why[path] = (
                    f"Canvas user id {uid} appears with {len(names)} names in this export ({', '.join(sorted(names))}): "
                    "graded for no one; check it by hand"
                )
                del chosen[path]
    return chosen, why


def _identities(chosen: dict[Path, Reading]) -> dict[str, set[str]]:
    settled: dict[str, set[str]] = {}
    for reading in chosen.values():
        settled.setdefault(reading.uid, set()).add(reading.name)
    return settled


def _ambiguous(fits: list[Reading], found: list[Reading]) -> str:
    if not fits:
        return (
            "named for "
            + " or ".join(r.describe() for r in found)
            + ", which other files of the export contradict: graded for no one"
        )
    return (
        "a Canvas name that reads as " + " or as ".join(r.describe() for r in fits)
        + " (a name or a file name holding '_<digits>'), and no other file tells which: graded for no one; check it by hand"
    )  # fmt: skip


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per user id: each file's latest version, under the name the student gave it; a user whose files
    the export does not tell apart gets a draft that says why, with none of them."""
    entries = reader.entries(root)
    files = [entry for entry in entries if entry.is_file()]
    for entry in entries:
        if not entry.is_file():
            reader.skip(entry, "not named like a Canvas submission file (name_userid_fileid_file)")
    anonymous = is_anonymous([f.name for f in files if looks_like(f.name)])
    candidates = {}
    for entry in files:
        found = readings(entry.name, anonymous)
        if found:
            candidates[entry] = found
        else:
            reader.skip(entry, "not named like a Canvas submission file (name_userid_fileid_file)")
    chosen, why = resolve(candidates)
    for entry, reason in why.items():
        reader.skip(entry, reason)
    students: dict[str, list[tuple[Path, Reading]]] = {}
    for entry, reading in chosen.items():
        students.setdefault(reading.uid, []).append((entry, reading))
    drafts = [_draft(reader, uid, files_of) for uid, files_of in students.items()]
    return drafts + _undecided(reader, candidates, why, set(students))


def _draft(reader: Reader, uid: str, files: list[tuple[Path, Reading]]) -> Draft:
    newest: dict[str, tuple[Path, str, int, int, Reading]] = {}
    earlier = []
    for entry, reading in sorted(files, key=lambda item: (item[1].fid, item[0].name)):
        original, version = restore_version(safe_file_name(reading.file, "file")) if reading.fid else (reading.file, 0)
        kept = newest.get(original.casefold())
        if kept is None or (reading.fid, version) > (kept[2], kept[3]):
            if kept is not None:
                earlier.append(kept[0])
            newest[original.casefold()] = (entry, original, reading.fid, version, reading)
        else:
            earlier.append(entry)
    taken = sorted(newest.values(), key=lambda item: item[1])
    first = files[0][1]
    return Draft(
        name=first.name or (uid if uid.startswith("anon_") else ""),
        student_id=uid,
        origin=uid,
        late=any(item[4].late for item in taken),  # Canvas writes LATE on every file of a late submission
        files=[(path, name) for path, name, _, _, _ in taken],
        earlier=sorted(earlier),
        uploads=[_upload(reader, entry, reading, entry not in earlier) for entry, reading in files],
    )


def _upload(reader: Reader, entry: Path, reading: Reading, taken: bool) -> Upload:
    return Upload(reader.label(entry), taken, str(reading.fid) if reading.fid else "", reading.late)


def _undecided(
    reader: Reader, candidates: dict[Path, list[Reading]], why: dict[Path, str], settled: set[str]
) -> list[Draft]:
    """A draft, with no file, for each user a file graded for no one could belong to and who has no file of their own."""
    users: dict[str, list[tuple[Path, Reading]]] = {}
    for entry in why:
        for reading in candidates[entry]:
            if reading.uid not in settled:
                users.setdefault(reading.uid, []).append((entry, reading))
    drafts = []
    for uid, found in users.items():
        entries = list(dict.fromkeys(entry for entry, _ in found))
        flags = {reading.late for _, reading in found}
        drafts.append(
            Draft(
                name=sorted(reading.name for _, reading in found)[0] or (uid if uid.startswith("anon_") else ""),
                student_id=uid,
                origin=uid,
                files=[],
                late=flags.pop() if len(flags) == 1 else None,
                uploads=[_upload(reader, entry, reading, False) for entry, reading in found],
                undecided="; ".join(f"{reader.label(entry)}: {why[entry]}" for entry in entries),
            )
        )
    return drafts


def restore_version(file: str) -> tuple[str, int]:
    """'mha-1.ipynb' -> ('mha.ipynb', 1); a name without a Canvas version -> (name, 0)."""
    match = VERSION.match(file) or VERSION_FIRST_DOT.match(file)
    if not match or not match["head"]:
        return file, 0
    return match["head"] + match["tail"], int(match["n"])


def votes(root: Path, entries: list[Path]) -> int:
    """How many of an export folder's entries follow this LMS's naming (files named as Canvas names them)."""
    return sum(looks_like(e.name) for e in entries if e.is_file())
