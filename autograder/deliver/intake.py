"""Class intake: what an LMS hands an instructor, turned into the list of submissions to grade.

    intake = read_intake(Path("submissions.zip"), Path("scratch"))
    for submission in intake.submissions:   # one per student (or per group), latest only
        grade(submission.path)              # results go to OUT/<submission.key>/
    for entry, why in intake.skipped:       # everything that is not graded, and why
        print(entry, why)

read_intake takes a folder or a .zip. A zip is unpacked into scratch first, safely:
no absolute paths, no '..', no symbolic links, a cap on the number of members and on
the bytes they unpack to, names decoded as UTF-8 where they are, as code page 437
(the zip standard's default) where they are not. It then tells which LMS made the
export from the names it holds, and reads it with that LMS's naming scheme:

INTAKE_TABLE (below) shows each source and what its export looks like.

The latest submission of each student is graded; older ones are listed in
``earlier``. A student's files that belong together (a notebook and the .py module it
imports) are put in one folder under scratch, with the names the student gave them,
and that folder is graded. Whatever is not a submission (Finder's .DS_Store and
__MACOSX/, Gradescope's metadata, Blackboard's receipts, symbolic links, stray files)
is listed in ``skipped`` with the reason. Every key is made of ASCII letters, digits,
'-', '_' and '.', is unique in the class (ignoring case), and is never the name of a
file grade-all writes beside the students' folders; display names keep what the LMS
gave, with undecodable bytes and control characters escaped, so printing them is safe.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import KitError
from ..public import trees

INTAKE_TABLE = """\
| Source | What the instructor downloads | What it holds (example) |
| --- | --- | --- |
| `canvas` | Assignment > *Download Submissions* (a zip) | `doejane_12345_6789012_mha.ipynb`, `doejane_LATE_12345_6789013_utils.py`, `doejane_12345_6789014_mha-1.ipynb` (re-uploaded) |
| `moodle` | Assignment > *Download all submissions* (a zip) | `Jane Doe_1234567_assignsubmission_file_/mha.ipynb` (or, without folders, `Jane Doe_1234567_assignsubmission_file_mha.ipynb`) |
| `blackboard` | Grade Centre column > *Assignment File Download* (a zip) | `HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb` and its receipt `HW 1_jdoe_attempt_2024-01-31-12-00-00.txt` |
| `gradescope` | Assignment > *Export Submissions* (a zip) | `assignment_123_export/submission_100001/mha.ipynb` and `submission_metadata.yml` |
| `classroom` | `gh classroom clone student-repos` (a folder) | `mha-submissions/mha-octocat/` (one cloned repository per student) |
| `folders` | any folder | `jane/mha.ipynb` (a folder per student) or `jane.ipynb` (a file per student) |
"""

SOURCES = ("canvas", "moodle", "blackboard", "gradescope", "classroom", "folders")

MAX_MEMBERS = 20_000  # members of one zip: a class of 500 with a dozen files each is far below
MAX_TOTAL_BYTES = 2 * 2**30  # what one zip may unpack to, all members together
MAX_KEY_LENGTH = 64
SCRATCH_MARK = ".autograder-intake"  # a scratch folder the intake made and may clear

# grade-all writes these beside the students' folders (summary.csv, report.txt, report.png
# and the like), and Windows reserves the device names: no key is one of them, with or
# without an extension.
RESERVED_STEMS = frozenset(
    {"summary", "report", "results", "feedback", "gradebook", "grades", "index", "intake", "scratch", "class", "logs"}
    | {"con", "prn", "aux", "nul"}
    | {f"{device}{n}" for device in ("com", "lpt") for n in range(1, 10)}
)
JUNK_FILES = {
    ".DS_Store": "macOS Finder's folder settings",
    "Thumbs.db": "Windows' thumbnail cache",
    "desktop.ini": "Windows' folder settings",
}
JUNK_DIRS = {
    "__MACOSX": "macOS resource forks added by Archive Utility",
    ".ipynb_checkpoints": "Jupyter's autosaves",
    "__pycache__": "compiled Python",
}


class IntakeError(KitError):
    """The intake cannot be read at all; the message says what was seen and what to do."""


@dataclass(frozen=True)
class Submission:
    key: str  # filesystem-safe, unique within the class: the folder name of the student's results
    name: str  # the student's display name as the LMS gives it, escaped for printing
    student_id: str  # LMS id ("12345", a username, a GitHub login), "" if unknown
    path: Path  # the file or folder to grade
    source: str  # one of SOURCES
    late: bool = False
    submitted_at: str = ""  # ISO 8601 where the LMS says, else ""
    email: str = ""
    members: tuple[
        tuple[str, str, str], ...
    ] = ()  # a group's members: (name, student_id, email) each, Gradescope groups
    earlier: tuple[Path, ...] = ()  # older submissions of the same student, noted, not graded
    refused: str = ""  # why this student's hand-in cannot be read (the student's zero), "" if it can


@dataclass
class Intake:
    source: str
    submissions: list[Submission]
    skipped: list[tuple[str, str]]  # (entry, escaped for printing; why it is not a submission)


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
    _prepare_scratch(scratch, path)
    skipped: list[tuple[str, str]] = []
    if path.is_dir():
        base = path
    elif zipfile.is_zipfile(path):
        base = _unzip(path, scratch / "unzipped", skipped)
    else:
        raise IntakeError(f"{path} is neither a folder nor a .zip; give the folder or the .zip your LMS exported")
    reader = _Reader(base, scratch, suffixes, skipped)
    root, source = reader.locate()
    drafts = getattr(reader, f"read_{source}")(root)
    return Intake(source, reader.finish(drafts, source), skipped)


# ------------------------------------------------------------------ names: printing and keys


def printable(text: str) -> str:
    """text, safe to print: undecodable bytes as \\xNN, control and format characters escaped."""
    out = []
    for char in unicodedata.normalize("NFC", text):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char == "\\":
            out.append("\\\\")
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(
                {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char)
                or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
            )
        else:
            out.append(char)
    return "".join(out)


def slug(text: str, limit: int = MAX_KEY_LENGTH) -> str:
    """text as ASCII letters, digits, '-', '_' and '.': accents dropped, anything else '_'."""
    out = []
    for char in unicodedata.normalize("NFKD", text):
        if char.isascii() and (char.isalnum() or char in "-_."):
            out.append(char)
        elif not unicodedata.combining(char):
            out.append("_")
    result = re.sub(r"_+", "_", re.sub(r"\.{2,}", ".", "".join(out)))
    return result.strip("._-")[:limit].strip("._-")


def _key_base(name: str, student_id: str) -> str:
    base, ident = slug(name, 40), slug(student_id, 40)
    if ident and ident.casefold() != base.casefold():
        base = f"{base}-{ident}" if base else ident
    base = base or "student"
    if base.split(".")[0].casefold() in RESERVED_STEMS:
        base = f"student-{base}"
    return base[:MAX_KEY_LENGTH].rstrip("._-")


def _unique(base: str, used: set[str]) -> str:
    key, n = base, 1
    while key.casefold() in used:
        n += 1
        key = f"{base[: MAX_KEY_LENGTH - len(str(n)) - 1]}-{n}"
    used.add(key.casefold())
    return key


# ------------------------------------------------------------------ scratch and zips


def _prepare_scratch(scratch: Path, intake: Path) -> None:
    if scratch.is_symlink() or scratch.exists() and not scratch.is_dir():
        raise IntakeError(f"scratch {scratch} is not a folder; give an empty folder for the intake to write in")
    if scratch.exists() and any(scratch.iterdir()) and not (scratch / SCRATCH_MARK).is_file():
        raise IntakeError(
            f"scratch {scratch} is not empty and was not made by the intake; give an empty folder (the intake clears it)"
        )
    inside = intake.resolve()
    for made in ("unzipped", "students"):
        folder = (scratch / made).resolve()
        if folder == inside or folder in inside.parents:
            raise IntakeError(f"{intake} lies in {scratch / made}, which the intake clears; move it out of scratch")
        if folder.exists():
            trees.remove_tree(folder)
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / SCRATCH_MARK).write_text(
        "made by the autograder's class intake, which clears this folder on its next run\n"
    )


def _member_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it: UTF-8 where flagged or valid, else code page 437."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    raw = info.orig_filename.encode("cp437")  # zipfile decoded the bytes as cp437, which maps all 256 back
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return info.orig_filename


def _unzip(archive: Path, dest: Path, skipped: list[tuple[str, str]]) -> Path:
    """Unpack archive into dest, member by member, refusing whatever could escape or explode."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, UnicodeDecodeError, OSError, ValueError, EOFError) as error:
        raise IntakeError(f"{archive} is not a readable zip ({error}); download it again") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise IntakeError(
                f"{archive} holds {len(infos)} members, more than the {MAX_MEMBERS} an export of one class "
                f"should; unpack it yourself if you trust it and give the folder"
            )
        declared = sum(info.file_size for info in infos)
        if declared > MAX_TOTAL_BYTES:
            raise IntakeError(_too_big(archive, declared))
        dest.mkdir(parents=True)
        written, macosx = 0, False
        for info in infos:
            name = _member_name(info)
            label = printable(name)
            mode = info.external_attr >> 16
            parts = [part for part in re.split(r"[/\\]", name) if part not in ("", ".")]
            if parts and parts[0] == "__MACOSX":
                if not macosx:
                    skipped.append(("__MACOSX/", JUNK_DIRS["__MACOSX"]))
                macosx = True
                continue
            if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
                skipped.append((label, "an absolute path in the zip: not unpacked"))
                continue
            if ".." in parts:
                skipped.append((label, "a path climbing out of the zip's folder ('..'): not unpacked"))
                continue
            if "\x00" in name:
                skipped.append((label, "a name holding a NUL character: not unpacked"))
                continue
            if stat.S_ISLNK(mode):
                skipped.append((label, "a symbolic link in the zip: never created"))
                continue
            if not parts:
                continue
            if info.is_dir() or stat.S_ISDIR(mode):
                _make_dirs(dest, parts, label, skipped)
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                skipped.append((label, "not a regular file (a device, pipe or socket): not unpacked"))
                continue
            if not _make_dirs(dest, parts[:-1], label, skipped):
                continue
            target = dest.joinpath(*parts)
            try:
                with zf.open(info) as source, open(target, "xb") as out:
                    while chunk := source.read(1 << 16):
                        written += len(chunk)
                        if written > MAX_TOTAL_BYTES:
                            raise IntakeError(_too_big(archive, written))
                        out.write(chunk)
            except FileExistsError:
                skipped.append((label, "a second member with the same name: the first one was kept"))
            except (
                OSError,
                zipfile.BadZipFile,
                zlib.error,
                EOFError,
                RuntimeError,
                NotImplementedError,
                ValueError,
            ) as error:
                target.unlink(missing_ok=True)
                skipped.append((label, f"could not be unpacked ({error})"))
    return dest


def _too_big(archive: Path, size: int) -> str:
    return (
        f"{archive} unpacks to more than {MAX_TOTAL_BYTES // 2**20} MiB (at least {size // 2**20} MiB): "
        f"too much for a class's submissions, and how a zip bomb looks; unpack it yourself if you trust it and give the folder"
    )


def _make_dirs(dest: Path, parts: list[str], label: str, skipped: list[tuple[str, str]]) -> bool:
    folder = dest
    for part in parts:
        folder = folder / part
        if folder.is_symlink() or folder.exists() and not folder.is_dir():
            skipped.append((label, "its folder is a file of the same name in the zip: not unpacked"))
            return False
        try:
            folder.mkdir(exist_ok=True)
        except OSError as error:
            skipped.append((label, f"could not be unpacked ({error})"))
            return False
    return True


# ------------------------------------------------------------------ the naming schemes

# Canvas, Assignment > Download Submissions. The zip is flat, one file per uploaded file:
#     <name>_[LATE_]<user id>_<attachment id>_<file name as uploaded>
#     <name>_[LATE_]<user id>_text.html  and  ..._link.html  for text entries and URLs
# where <name> is the student's *sortable* name ("Doe, Jane") lower-cased with every
# non-word character removed ("doejane", hence "lastnamefirstname"), and any "_<digits>_"
# in it collapsed so that the ids can be found; with anonymous grading the name is left
# out and the id is "anon_<anonymous id>". The second number is the *attachment* (file)
# id, not the submission id. Source: instructure/canvas-lms lib/content_zipper.rb
# (get_filename, add_upload_submission, sanitize_file_name, sanitize_user_name). The zip
# holds the files of each student's current submission only. A file re-uploaded under a
# name the student already used gets "-1", "-2" (issues instructure/canvas-lms#606 and
# #2310: before the extension, or before the first dot); such versions of one file are
# told apart here by the attachment id, which grows with each upload.
CANVAS = re.compile(
    r"^(?:(?!LATE_)(?P<name>.*?)_)?(?:(?P<late>LATE)_)?(?P<uid>\d+|anon_[0-9A-Za-z]+)_"
    r"(?:(?P<fid>\d+)_(?P<file>.+)|(?P<kind>text|link)\.html)$",
    re.DOTALL,
)
VERSION = re.compile(r"^(?P<head>.*?)-(?P<n>\d+)(?P<tail>(?:\.[^.]*)?)$", re.DOTALL)  # mha-1.ipynb, a.tar-1.gz
VERSION_FIRST_DOT = re.compile(r"^(?P<head>[^.]*?)-(?P<n>\d+)(?P<tail>(?:\.[A-Za-z0-9]+)+)$", re.DOTALL)  # a-1.tar.gz

# Moodle, Assignment > View all submissions > Download all submissions. Each student's
# prefix is clean_filename(<full name with '_' made ' '>_<participant id>), the id being
# the assignment's unique participant number (assign_user_mapping), not the user id;
# with blind marking the name is "Participant", with group submissions "<group>-<name>".
# Then "_assignsubmission_<plugin>_": with "Download submissions in folders" (the default
# since Moodle 3.1) a folder of that name holds the student's files as uploaded, else each
# file is flattened as <prefix>_assignsubmission_file_<file name>. Online text comes as
# ..._assignsubmission_onlinetext_/onlinetext.html. Source: moodle/moodle
# mod/assign/locallib.php, assign::download_submissions(); the help string
# 'downloadasfolders_help' in mod/assign/lang/en/assign.php (MDL-62831).
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<uid>\d+)_assignsubmission_(?P<plugin>[A-Za-z0-9]+)_(?P<file>.*)$", re.DOTALL)

# Blackboard Learn, Grade Centre > column > Assignment File Download. Flat files:
#     <assignment name>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>_<original file name>
#     <assignment name>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>.txt     the attempt's receipt
# one set per attempt. The receipt reads "Name: First Last (username)", "Assignment:",
# "Date Submitted: Thursday, December 12, 2024 1:22:26 PM EST", "Current Grade:",
# "Submission Field:", "Comments:" and "Files:" with "Original filename:" / "Filename:"
# pairs. Sources: vangef/BBGradebookOrganiser utils/organiser.py (the username is what
# precedes "_attempt_", the original name what follows the date), the receipts read by
# jeroendoggen/blackboard-analysis-tools, and anonymised receipts quoted in the tests of
# public receipt parsers (a Go "parselearn" package, a Rust "bb-gradebook" tool);
# Anthology's help describes the download, not the names. No attempt is marked late.
BLACKBOARD = re.compile(r"^(?P<head>.+)_attempt_(?P<ts>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?P<tail>.*)$", re.DOTALL)

# Gradescope, Assignment > Review Grades > Export Submissions: a folder
# (assignment_<id>_export/) with one folder per active submission, submission_<id>/,
# holding the files as submitted, and submission_metadata.yml, written by Ruby, mapping
# each folder to
#     :submitters: [{:name:, :sid:, :email:}, ...]   (several for a group submission)
#     :created_at: 2023-12-02 02:52:07.938335000 Z
#     :score:, :status:, :results: {...}, :history: [{:id:, :created_at:, ...}, ...]
# Older submissions are listed in :history, their files are not exported. Source: an
# export committed in sjinang/temp0 (submission_metadata.yml) and the parsers of it in
# public course tools; Gradescope documents the export in its help centre only briefly.
GRADESCOPE_META = "submission_metadata.yml"
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")

# GitHub Classroom: `gh classroom clone student-repos -a ID` clones every accepted
# assignment into <assignment slug>-submissions/<repository name>, the repository being
# named <assignment slug>-<GitHub login> (or -<team name> for group assignments). Source:
# github/gh-classroom cmd/gh-classroom/clone/student-repos/student-repos.go.


def _restore_version(file: str) -> tuple[str, int]:
    """'mha-1.ipynb' -> ('mha.ipynb', 1); a name without a Canvas version -> (name, 0)."""
    match = VERSION.match(file) or VERSION_FIRST_DOT.match(file)
    if not match or not match["head"]:
        return file, 0
    return match["head"] + match["tail"], int(match["n"])


def _safe_file_name(name: str, fallback: str) -> str:
    """A single path component: no separators, not '.' or '..', not empty."""
    name = re.split(r"[/\\]", name.replace("\x00", ""))[-1].strip()
    return name if name not in ("", ".", "..") else fallback


# ------------------------------------------------------------------ reading


@dataclass
class _Draft:
    """One student's graded submission before it gets its key and its folder."""

    name: str
    student_id: str
    origin: str  # what it came from, for a stable order
    files: list[tuple[Path, str]] | None = None  # (file in the intake, name in the assembled folder)
    folder: Path | None = None  # graded in place unless it holds links
    file: Path | None = None  # graded in place
    late: bool = False
    submitted_at: str = ""
    email: str = ""
    members: tuple[tuple[str, str, str], ...] = ()  # (name, student_id, email) each, as Submission.members
    earlier: list[Path] = field(default_factory=list)
    refused: str = ""  # as Submission.refused


class _Reader:
    def __init__(self, base: Path, scratch: Path, suffixes: tuple[str, ...], skipped: list[tuple[str, str]]):
        self.base, self.scratch, self.suffixes, self.skipped = base, scratch, suffixes, skipped
        self.scratch_resolved = scratch.resolve()

    # ---------------------------------------------------------- bookkeeping

    def label(self, path: Path) -> str:
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            relative = path.as_posix()
        return printable(relative + ("/" if path.is_dir() and not path.is_symlink() else ""))

    def skip(self, path: Path, why: str) -> None:
        self.skipped.append((self.label(path), why))

    def entries(self, folder: Path) -> list[Path]:
        """A folder's entries worth reading; the rest are noted in skipped."""
        kept = []
        for entry in sorted(folder.iterdir()):
            if entry.is_symlink():
                self.skip(entry, "a symbolic link: never followed")
            elif entry.resolve() == self.scratch_resolved or (entry / SCRATCH_MARK).is_file():
                continue  # the intake's own scratch folder
            elif entry.is_dir() and entry.name in JUNK_DIRS:
                self.skip(entry, JUNK_DIRS[entry.name])
            elif entry.name in JUNK_FILES or entry.name.startswith("._"):
                self.skip(entry, JUNK_FILES.get(entry.name, "a macOS resource fork"))
            elif not entry.is_dir() and not entry.is_file():
                self.skip(entry, "not a regular file (a device, pipe or socket)")
            else:
                kept.append(entry)
        return kept

    def files_under(self, folder: Path) -> list[Path]:
        """Every regular file under folder, never through a link; links and junk noted in skipped.

        Raises TreeTooDeep for a folder nested deeper than the kit reads (that student is refused).
        """
        found = []
        for here, dirnames, filenames in trees.walk(folder):
            for name in sorted(dirnames):
                if (here / name).is_symlink():
                    self.skip(here / name, "a symbolic link: never followed, left out of the graded copy")
                elif name in JUNK_DIRS:
                    self.skip(here / name, JUNK_DIRS[name])
            dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink() and d not in JUNK_DIRS)
            for name in sorted(filenames):
                path = here / name
                if path.is_symlink():
                    self.skip(path, "a symbolic link: never followed, left out of the graded copy")
                elif name in JUNK_FILES:
                    self.skip(path, JUNK_FILES[name])
                elif not path.is_file():
                    self.skip(path, "not a regular file (a device, pipe or socket)")
                else:
                    found.append(path)
        return found

    def clean(self, folder: Path) -> bool:
        """Whether folder holds nothing but folders and regular files; the rest noted in skipped.

        Raises TreeTooDeep for a folder nested deeper than the kit reads (that student is refused).
        """
        clean = True
        for here, dirnames, filenames in trees.walk(folder):
            for name in dirnames + filenames:
                path = here / name
                if path.is_symlink():
                    self.skip(path, "a symbolic link: never followed, left out of the graded copy")
                    clean = False
                elif not path.is_dir() and not path.is_file():
                    self.skip(path, "not a regular file (a device, pipe or socket): left out of the graded copy")
                    clean = False
        return clean

    # ---------------------------------------------------------- which LMS

    def visible(self, root: Path) -> list[Path]:
        """root's entries that could be submissions: no links, junk or scratch."""
        return [
            e
            for e in sorted(root.iterdir())
            if not e.is_symlink()
            and e.name not in JUNK_FILES
            and e.name not in JUNK_DIRS
            and not e.name.startswith("._")
            and e.resolve() != self.scratch_resolved
            and not (e / SCRATCH_MARK).is_file()
        ]

    def detect(self, root: Path) -> str | None:
        """The LMS whose naming scheme most of root's entries follow; None for a plain folder."""
        entries = self.visible(root)
        if (root / GRADESCOPE_META).is_file():
            return "gradescope"
        files = [e for e in entries if e.is_file()]
        dirs = [e for e in entries if e.is_dir()]
        votes = {
            "moodle": sum(bool(MOODLE.match(e.name)) for e in entries),
            "blackboard": sum(bool(BLACKBOARD.match(e.name)) for e in files),
            "canvas": sum(bool(CANVAS.match(e.name)) for e in files),
            "classroom": sum(os.path.lexists(d / ".git") for d in dirs),
        }
        best = max(votes, key=lambda source: votes[source])
        if votes[best] and votes[best] * 2 >= len(entries):
            return best
        return None

    def locate(self) -> tuple[Path, str]:
        """The folder the export's entries are in (exports often wrap them in one), and its source."""
        root = self.base
        for _ in range(3):
            source = self.detect(root)
            if source:
                return root, source
            inner = self.visible(root)
            if len(inner) != 1 or not inner[0].is_dir():
                break
            wrapped = self.detect(inner[0])
            if wrapped:
                return inner[0], wrapped
            children = self.visible(inner[0])
            if not children or any(c.is_file() for c in children):
                break  # a single student's folder, not a wrapper
            root = inner[0]
        if any(e.is_dir() or e.suffix.lower() in self.suffixes for e in self.visible(root)):
            return root, "folders"
        seen = sorted(printable(e.name) for e in root.iterdir())
        shown = ", ".join(seen[:6]) + (", ..." if len(seen) > 6 else "") if seen else "nothing"
        raise IntakeError(
            f"cannot tell what exported {self.base}: it holds {shown}. The intake reads "
            f"Canvas 'Download Submissions' zips (doejane_12345_6789012_mha.ipynb), "
            f"Moodle 'Download all submissions' (Jane Doe_1234567_assignsubmission_file_/), "
            f"Blackboard 'Assignment File Download' (HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb), "
            f"Gradescope 'Export Submissions' (submission_metadata.yml with submission_NNN/ folders), "
            f"GitHub Classroom clones (<assignment>-<login>/ repositories) and plain folders "
            f"(a folder, or a {' or '.join(self.suffixes)} file, per student)"
        )

    # ---------------------------------------------------------- Canvas

    # Canvas's scheme and where it is documented: the comment above CANVAS.
    def read_canvas(self, root: Path) -> list[_Draft]:
        students: dict[str, dict] = {}
        for entry in self.entries(root):
            match = CANVAS.match(entry.name) if entry.is_file() else None
            if not match:
                self.skip(entry, "not named like a Canvas submission file (name_userid_fileid_file)")
                continue
            student = students.setdefault(match["uid"], {"name": "", "late": False, "files": []})
            student["name"] = student["name"] or (match["name"] or "")
            student["late"] = student["late"] or bool(match["late"])
            if match["kind"]:
                student["files"].append((entry, f"{match['kind']}.html", 0, 0))
            else:
                original, version = _restore_version(_safe_file_name(match["file"], "file"))
                student["files"].append((entry, original, int(match["fid"]), version))
        drafts = []
        for uid, student in students.items():
            newest: dict[str, tuple] = {}
            earlier = []
            for item in student["files"]:
                _, name, fid, version = item
                kept = newest.get(name.casefold())
                if kept is None or (fid, version) > (kept[2], kept[3]):
                    if kept is not None:
                        earlier.append(kept[0])
                    newest[name.casefold()] = item
                else:
                    earlier.append(item[0])
            name = student["name"] or (uid if uid.startswith("anon_") else "")
            drafts.append(
                _Draft(
                    name=name,
                    student_id=uid,
                    origin=uid,
                    late=student["late"],
                    files=[(path, name_) for path, name_, _, _ in sorted(newest.values(), key=lambda i: i[1])],
                    earlier=sorted(earlier),
                )
            )
        return drafts

    # ---------------------------------------------------------- Moodle

    # Moodle's scheme and its sources: the comment above MOODLE.
    def read_moodle(self, root: Path) -> list[_Draft]:
        students: dict[str, dict] = {}
        for entry in self.entries(root):
            match = MOODLE.match(entry.name)
            if not match or entry.is_dir() and match["file"]:
                self.skip(entry, "not named like a Moodle submission (Full Name_id_assignsubmission_plugin_)")
                continue
            student = students.setdefault(match["uid"], {"name": match["name"], "parts": []})
            student["parts"].append((entry, match["plugin"], match["file"]))
        drafts = []
        for uid, student in students.items():
            parts = student["parts"]
            draft = _Draft(name=student["name"], student_id=uid, origin=uid)
            if len(parts) == 1 and parts[0][0].is_dir() and parts[0][1] == "file":
                draft.folder = parts[0][0]
            else:
                draft.files = []
                for entry, plugin, file in parts:
                    prefix = "" if plugin == "file" else f"{plugin}/"
                    if entry.is_dir():
                        try:
                            files = self.files_under(entry)
                        except trees.TreeTooDeep as error:
                            draft.refused, files = str(error), []
                        draft.files += [(p, prefix + p.relative_to(entry).as_posix()) for p in files]
                    else:
                        draft.files.append((entry, prefix + _safe_file_name(file, "file")))
            drafts.append(draft)
        return drafts

    # ---------------------------------------------------------- Blackboard

    # Blackboard's scheme and its sources: the comment above BLACKBOARD.
    def read_blackboard(self, root: Path) -> list[_Draft]:
        entries = self.entries(root)
        parsed, receipts, originals = [], {}, {}
        for entry in entries:
            match = BLACKBOARD.match(entry.name) if entry.is_file() else None
            if not match:
                self.skip(entry, "not named like a Blackboard attempt file (assignment_username_attempt_date_file)")
                continue
            if match["tail"] == ".txt":
                receipt = _read_receipt(entry)
                receipts[(match["head"], match["ts"])] = receipt
                originals.update(receipt["files"])
                self.skip(entry, "Blackboard's receipt for the attempt: read for the name and the date, not graded")
            else:
                parsed.append((entry, match))
        heads = sorted({m["head"] for _, m in parsed} | {head for head, _ in receipts})
        prefix = _common_prefix(heads)
        attempts: dict[tuple[str, str], dict] = {}
        for head, ts in receipts:
            attempts.setdefault((head, ts), {"files": []})
        for entry, match in parsed:
            attempts.setdefault((match["head"], match["ts"]), {"files": []})["files"].append((entry, match))
        by_user: dict[str, list] = {}
        for (head, ts), attempt in attempts.items():
            receipt = receipts.get((head, ts), {})
            username = receipt.get("username") or ""
            if not username or not head.endswith(f"_{username}"):
                username = (
                    head[len(prefix) :]
                    if prefix and head.startswith(prefix) and len(head) > len(prefix)
                    else head.rsplit("_", 1)[-1]
                )
            files = []
            for entry, match in attempt["files"]:
                tail = match["tail"]
                given = originals.get(entry.name) or (tail[1:] if tail.startswith("_") else f"submission{tail}")
                files.append((entry, _safe_file_name(given, f"submission{Path(tail).suffix}")))
            if not files and (head, ts) in receipts:
                receipt_path = root / f"{head}_attempt_{ts}.txt"
                files.append((receipt_path, "receipt.txt"))
            by_user.setdefault(username, []).append((ts, receipt, files))
        drafts = []
        for username, user_attempts in by_user.items():
            user_attempts.sort(key=lambda a: a[0])
            ts, receipt, files = user_attempts[-1]
            name = (
                receipt.get("name")
                or next((r.get("name") for _, r, _ in reversed(user_attempts) if r.get("name")), "")
                or username
            )
            when = "{}-{}-{}T{}:{}:{}".format(*ts.split("-"))
            drafts.append(
                _Draft(
                    name=name,
                    student_id=username,
                    origin=username,
                    submitted_at=when,
                    files=_dedupe(files),
                    earlier=sorted(path for _, _, older in user_attempts[:-1] for path, _ in older),
                )
            )
        return drafts

    # ---------------------------------------------------------- Gradescope

    # Gradescope's export and its sources: the comment above GRADESCOPE_META.
    def read_gradescope(self, root: Path) -> list[_Draft]:
        meta_path = root / GRADESCOPE_META
        metadata: dict = {}
        try:
            loaded = yaml.load(meta_path.read_text(encoding="utf-8", errors="replace"), Loader=_RubyTolerantLoader)
            metadata = loaded if isinstance(loaded, dict) else {}
            self.skip(meta_path, "Gradescope's metadata: read for the names, ids, emails, times and groups")
        except (yaml.YAMLError, OSError) as error:
            self.skip(
                meta_path,
                f"Gradescope's metadata, unreadable ({str(error).splitlines()[0]}): names come from the folder names",
            )
        older = {}  # folder of an older submission -> folder of the active one
        for folder, record in metadata.items():
            for past in _field(record, "history") or []:
                if isinstance(past, dict) and _field(past, "id") is not None:
                    older[f"submission_{_field(past, 'id')}"] = str(folder)
        found: dict[str, Path] = {}
        for entry in self.entries(root):
            if entry == meta_path:
                continue
            if entry.is_dir():
                found[entry.name] = entry
            else:
                self.skip(entry, "not a submission folder of the Gradescope export")
        groups: dict[tuple, list] = {}
        for folder_name, folder in found.items():
            if folder_name in older and older[folder_name] in found:
                continue  # listed with the submission that replaced it
            record = metadata.get(folder_name)
            submitters = (
                [s for s in (_field(record, "submitters") or []) if isinstance(s, dict)]
                if isinstance(record, dict)
                else []
            )
            people = [
                (_text(_field(s, "name")), _text(_field(s, "sid")), _text(_field(s, "email"))) for s in submitters
            ]
            created = _field(record, "created_at")  # None where record is no dict
            when = created.isoformat() if hasattr(created, "isoformat") else _text(created)
            identity = tuple(sorted(sid or email or name for name, sid, email in people)) or (folder_name,)
            groups.setdefault(identity, []).append((when, folder_name, folder, people))
        drafts = []
        for submissions in groups.values():
            submissions.sort(key=lambda s: (s[0], s[1]))
            when, folder_name, folder, people = submissions[-1]
            earlier = [f for _, _, f, _ in submissions[:-1]]
            earlier += [
                found[name] for name, active in older.items() if name in found and active in {s[1] for s in submissions}
            ]
            names = [name or sid or email for name, sid, email in people]
            drafts.append(
                _Draft(
                    name=", ".join(names) if names else folder_name,
                    student_id=people[0][1] if people else "",
                    email=people[0][2] if people else "",
                    members=tuple(people) if len(people) > 1 else (),
                    submitted_at=when,
                    origin=folder_name,
                    folder=folder,
                    earlier=sorted(earlier),
                )
            )
        return drafts

    # ---------------------------------------------------------- GitHub Classroom

    # GitHub Classroom's clones and their source: the comment below GRADESCOPE_FOLDER.
    def read_classroom(self, root: Path) -> list[_Draft]:
        repos = []
        for entry in self.entries(root):
            if entry.is_dir():
                repos.append(entry)
            else:
                self.skip(entry, "not a student's repository (a file beside the clones)")
        names = [repo.name for repo in repos]
        prefix = ""
        if root.name.endswith("-submissions") and all(n.startswith(root.name[: -len("submissions")]) for n in names):
            prefix = root.name[: -len("submissions")]
        elif len(names) > 1:
            prefix = _common_prefix(names, "-")
        drafts = []
        for repo in repos:
            login = repo.name[len(prefix) :] if len(repo.name) > len(prefix) else repo.name
            drafts.append(_Draft(name=login, student_id=login, origin=repo.name, folder=repo))
        return drafts

    # ---------------------------------------------------------- plain folders

    # A plain folder: the student is a folder's name or a file's stem (what grade-all always read).
    def read_folders(self, root: Path) -> list[_Draft]:
        by_student: dict[str, list[Path]] = {}
        for entry in self.entries(root):
            if entry.name.startswith("."):
                self.skip(entry, "a hidden file or folder")
            elif entry.is_dir():
                by_student.setdefault(entry.name, []).append(entry)
            elif entry.suffix.lower() in self.suffixes:
                by_student.setdefault(entry.stem, []).append(entry)
            else:
                self.skip(entry, f"not a {' or '.join(self.suffixes)} file, nor a student's folder")
        drafts = []
        rank = {suffix: i for i, suffix in enumerate(self.suffixes)}
        for student, entries in by_student.items():
            entries.sort(key=lambda e: (not e.is_dir(), rank.get(e.suffix.lower(), len(rank)), e.name))
            chosen = entries[0]
            for other in entries[1:]:
                self.skip(
                    other, f"a second entry for the student {printable(student)!r}: {printable(chosen.name)} is graded"
                )
            draft = _Draft(name=student, student_id="", origin=chosen.name)
            if chosen.is_dir():
                draft.folder = chosen
            else:
                draft.file = chosen
            drafts.append(draft)
        return drafts

    # ---------------------------------------------------------- keys and folders

    def finish(self, drafts: list[_Draft], source: str) -> list[Submission]:
        drafts.sort(key=lambda d: (unicodedata.normalize("NFC", d.name).casefold(), d.student_id, d.origin))
        used: set[str] = set()
        submissions = []
        for draft in drafts:
            key = _unique(_key_base(draft.name, draft.student_id), used)
            try:
                path = self._materialize(draft, key)
            except trees.TreeTooDeep as error:  # that student's hand-in is refused, never the class's
                draft.refused, path = str(error), draft.folder or self.scratch / "students" / key
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
                )
            )
        return submissions

    def _materialize(self, draft: _Draft, key: str) -> Path:
        """The path to grade: in place where the intake's own entry is clean, else a folder under scratch."""
        if draft.file is not None:
            return draft.file
        target = self.scratch / "students" / key
        if draft.refused:
            return draft.folder or target
        if draft.folder is not None:
            if self.clean(draft.folder):
                return draft.folder
            draft.files = [(p, p.relative_to(draft.folder).as_posix()) for p in self._quiet_files(draft.folder)]
        target.mkdir(parents=True)
        for source, relative in draft.files or []:
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination, follow_symlinks=False)
        return target

    def _quiet_files(self, folder: Path) -> list[Path]:
        """Regular files under folder without noting links again (clean() has)."""
        return trees.regular_files(folder)


# ------------------------------------------------------------------ small pieces


def _read_receipt(path: Path) -> dict:
    """What a Blackboard attempt receipt says: name, username, and archive name -> original name."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return {"files": {}}
    receipt: dict = {"files": {}}
    match = re.search(r"^Name:[ \t]*(?P<name>.*?)[ \t]*\((?P<user>[^()\n]*)\)[ \t]*$", text, re.MULTILINE)
    if match:
        receipt["name"], receipt["username"] = match["name"], match["user"].strip()
    elif match := re.search(r"^Name:[ \t]*(?P<name>.+?)[ \t]*$", text, re.MULTILINE):
        receipt["name"] = match["name"]
    for original, archived in re.findall(
        r"^[ \t]*Original filename:[ \t]*(.*?)[ \t]*\r?\n[ \t]*Filename:[ \t]*(.*?)[ \t]*$",
        text,
        re.MULTILINE | re.IGNORECASE,
    ):
        receipt["files"][archived] = original
    return receipt


def _common_prefix(names: list[str], separator: str = "_") -> str:
    """The longest prefix all names share, cut after its last separator; '' for fewer than two names."""
    if len(names) < 2:
        return ""
    shared = os.path.commonprefix(names)
    cut = shared.rfind(separator)
    prefix = shared[: cut + 1] if cut >= 0 else ""
    return prefix if all(len(n) > len(prefix) for n in names) else ""


def _dedupe(files: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """Distinct names in one folder: a second 'mha.ipynb' of one attempt becomes 'mha-2.ipynb'."""
    seen: set[str] = set()
    out = []
    for path, name in files:
        candidate, n = name, 1
        while candidate.casefold() in seen:
            n += 1
            stem, dot, ext = name.rpartition(".")
            candidate = f"{stem}-{n}.{ext}" if dot and stem else f"{name}-{n}"
        seen.add(candidate.casefold())
        out.append((path, candidate))
    return out


def _field(record, name: str):
    """A field of Gradescope's metadata, whose keys are Ruby symbols (':name') or plain."""
    if not isinstance(record, dict):
        return None
    return record.get(f":{name}", record.get(name))


def _text(value) -> str:
    return "" if value is None else str(value)


class _RubyTolerantLoader(yaml.SafeLoader):
    """SafeLoader that reads Ruby's tags (!ruby/object:BigDecimal ...) as plain values."""


def _plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node):
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_RubyTolerantLoader.add_multi_constructor("!", _plain)
_RubyTolerantLoader.add_multi_constructor("tag:ruby.yaml.org", _plain)
