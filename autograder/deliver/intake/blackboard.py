"""Blackboard Learn, Grade Centre > column > Assignment File Download.

Flat files, one set per attempt:
    <assignment name>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>_<original file name>
    <assignment name>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>.txt     the attempt's receipt
The receipt is Blackboard's, in this order: "Name: First Last (username)", "Assignment:",
"Date Submitted: Thursday, December 12, 2024 1:22:26 PM EST", "Current Grade:", then
"Submission Field:" and "Comments:", each followed by the student's own free text, and
last "Files:" with an "Original filename:" / "Filename:" pair per file. Sources: vangef/
BBGradebookOrganiser utils/organiser.py (the username is what precedes "_attempt_", the
original name what follows the date, comments are the text after "Comments:"), the
receipts read by jeroendoggen/blackboard-analysis-tools, and anonymised receipts quoted
in the tests of public receipt parsers (a Go "parselearn" package, a Rust
"bb-gradebook" tool); Anthology's help describes the download, not the names.

When: the attempt's date in its name is Blackboard's clock, without a zone; the receipt's
"Date Submitted:" says the same moment in words with the zone's abbreviation (parsed the
same way by CodeGra.de's psef/blackboard.py, parse_info_file), which is added where the
two agree and the abbreviation names one zone only (CST, IST, BST do not). Late: the
download says nothing of a due date; a receipt whose date is followed by "(Late)" (how a
university's Blackboard help, support.mountmarty.edu, describes a late submission's
receipt; no downloaded receipt seen here shows it) marks that attempt late; otherwise
lateness is unknown.

What binds a file to a student is its name, which Blackboard writes: the part before
the first "_attempt_<date>" is <assignment>_<username>. A receipt is read only for its own
attempt (the files named with the same <assignment>_<username>_attempt_<date> prefix):
its header (the lines before "Submission Field:") for the name and username, and its last
"Files:" list for the original names, each pair taken only where "Filename:" names a file
of that attempt. The free text a student typed (Submission Field, Comments) can look
like any of that and is never read.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .model import Draft, Upload
from .names import common_prefix, dedupe, safe_file_name
from .reader import Reader

SOURCE = "blackboard"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


# The first "_attempt_<date>" ends the head: a student's own file name that holds another
# "_attempt_<date>" stays in the tail, her file.
BLACKBOARD = re.compile(r"^(?P<head>.+?)_attempt_(?P<ts>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?P<tail>.*)$", re.DOTALL)
FREE_TEXT = ("Submission Field:", "Comments:")  # the student's own text follows each of these
MAX_RECEIPT_BYTES = 1 << 20
LATE_MARK = re.compile(r"\(\s*late\s*\)", re.IGNORECASE)
# Abbreviations that name one zone only, as hours from UTC (CST, IST, BST, AST each name several).
ZONES = {
    "UTC": 0, "GMT": 0, "EST": -5, "EDT": -4, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "AEST": 10, "AEDT": 11,
    "NZST": 12, "NZDT": 13,
}  # fmt: skip
RECEIPT_DATES = ("%B %d, %Y %I:%M:%S %p", "%d %B %Y %H:%M:%S", "%B %d, %Y %H:%M:%S", "%d %B %Y %I:%M:%S %p")


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per username: the latest attempt's files, under the names the receipt gives them, with its time."""
    attempts: dict[tuple[str, str], dict] = {}
    for entry in reader.entries(root):
        match = BLACKBOARD.match(entry.name) if entry.is_file() else None
        if not match:
            reader.skip(entry, "not named like a Blackboard attempt file (assignment_username_attempt_date_file)")
            continue
        attempt = attempts.setdefault((match["head"], match["ts"]), {"files": [], "receipt": None})
        if match["tail"] == ".txt":
            attempt["receipt"] = entry
            reader.skip(entry, "Blackboard's receipt for the attempt: read for the name and the date, not graded")
        else:
            attempt["files"].append((entry, match["tail"]))
    prefix = common_prefix(sorted({head for head, _ in attempts}))
    by_user: dict[str, list] = {}
    for (head, ts), attempt in attempts.items():
        own = f"{head}_attempt_{ts}"
        receipt = read_receipt(attempt["receipt"], own) if attempt["receipt"] else Receipt()
        username = _username(head, receipt.username, prefix)
        files = [(entry, receipt.files.get(entry.name) or _name_from_tail(tail)) for entry, tail in attempt["files"]]
        files = [(entry, safe_file_name(name, f"submission{Path(entry.name).suffix}")) for entry, name in files]
        if not files and attempt["receipt"]:
            files.append((attempt["receipt"], "receipt.txt"))
        by_user.setdefault(username, []).append((ts, receipt, files))
    return [_draft(reader, username, user_attempts) for username, user_attempts in by_user.items()]


class Receipt:
    """What an attempt's receipt says about that attempt: the student's name and username, original file names,
    when it was submitted (the header's "Date Submitted:" as written) and whether it is marked late (None: not said)."""

    def __init__(
        self,
        name: str = "",
        username: str = "",
        files: dict[str, str] | None = None,
        submitted: str = "",
        late: bool | None = None,
    ):
        self.name, self.username = name, username
        self.files = files or {}  # archived name (a file of this attempt) -> original name
        self.submitted, self.late = submitted, late


def read_receipt(path: Path, attempt: str) -> Receipt:
    """The receipt of the attempt named attempt (<assignment>_<username>_attempt_<date>), read by its structure."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(MAX_RECEIPT_BYTES).splitlines()
    except OSError:
        return Receipt()
    stripped = [line.strip() for line in lines]
    header_end = next((i for i, line in enumerate(stripped) if line in FREE_TEXT + ("Files:",)), len(lines))
    name, username = _name_line(stripped[:header_end])
    submitted = next(
        (
            line[len("Date Submitted:") :].strip()
            for line in stripped[:header_end]
            if line.startswith("Date Submitted:")
        ),
        "",
    )
    files_at = max((i for i, line in enumerate(stripped) if line == "Files:"), default=len(lines))
    late = True if LATE_MARK.search(submitted) else None
    return Receipt(
        name, username, _file_pairs(stripped[files_at + 1 :], attempt), LATE_MARK.sub("", submitted).strip(), late
    )


def submitted_at(stamp: str, told: str) -> str:
    """The attempt's time (its name's yyyy-mm-dd-hh-mm-ss) in ISO 8601, with the zone of the receipt's
    "Date Submitted:" (told) where that says the same time in a zone of one meaning; "" if stamp is no date."""
    try:
        when = datetime.strptime(stamp, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return ""
    words = told.replace(" o'clock", "").split()
    if words and words[0].endswith(",") and words[0][:-1].isalpha():
        words = words[1:]  # the weekday
    zone = (
        words.pop() if words and words[-1].isalpha() and words[-1].isupper() and words[-1] not in ("AM", "PM") else ""
    )
    for layout in RECEIPT_DATES:
        try:
            said = datetime.strptime(" ".join(words), layout)
        except ValueError:
            continue
        if said == when and zone in ZONES:
            return when.replace(tzinfo=timezone(timedelta(hours=ZONES[zone]))).isoformat()
    return when.isoformat()


def _name_line(header: list[str]) -> tuple[str, str]:
    """(name, username) from the header's "Name: First Last (username)" line."""
    for line in header:
        if line.startswith("Name:"):
            match = re.fullmatch(r"Name:\s*(?P<name>.*?)\s*\((?P<user>[^()]*)\)", line)
            if match:
                return match["name"], match["user"].strip()
            return line[len("Name:") :].strip(), ""
    return "", ""


def _file_pairs(lines: list[str], attempt: str) -> dict[str, str]:
    """archived -> original from "Original filename:" / "Filename:" pairs, for this attempt's own files only."""
    pairs = {}
    for first, second in zip(lines, lines[1:]):
        original = re.fullmatch(r"(?i:original filename):\s*(.*)", first)
        archived = re.fullmatch(r"(?i:filename):\s*(.*)", second)
        if original and archived and archived[1].startswith(f"{attempt}_"):
            pairs[archived[1]] = original[1]
    return pairs


def _username(head: str, told: str, prefix: str) -> str:
    """The username a head (<assignment>_<username>) ends with: the receipt's where the head agrees."""
    if told and head.endswith(f"_{told}"):
        return told
    if prefix and head.startswith(prefix) and len(head) > len(prefix):
        return head[len(prefix) :]
    return head.rsplit("_", 1)[-1]


def _name_from_tail(tail: str) -> str:
    return tail[1:] if tail.startswith("_") else f"submission{tail}"


def _draft(reader: Reader, username: str, user_attempts: list) -> Draft:
    user_attempts.sort(key=lambda a: a[0])
    ts, receipt, files = user_attempts[-1]
    name = next((r.name for _, r, _ in reversed(user_attempts) if r.name), "") or username
    uploads = [
        Upload(reader.label(path), when == ts, f"attempt_{when}", told.late, submitted_at(when, told.submitted))
        for when, told, attempt_files in user_attempts
        for path, _ in attempt_files
    ]
    return Draft(
        name=name,
        student_id=username,
        origin=username,
        late=receipt.late,
        submitted_at=submitted_at(ts, receipt.submitted),
        files=dedupe(files),
        earlier=sorted(path for _, _, older in user_attempts[:-1] for path, _ in older),
        uploads=uploads,
    )


def votes(root: Path, entries: list[Path]) -> int:
    """How many of an export folder's entries follow this LMS's naming (files named as Blackboard names them)."""
    return sum(bool(BLACKBOARD.match(e.name)) for e in entries if e.is_file())
