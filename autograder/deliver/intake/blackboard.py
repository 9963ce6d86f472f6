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
"bb-gradebook" tool); Anthology's help describes the download, not the names. No attempt
is marked late.

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
from pathlib import Path
from typing import TYPE_CHECKING

from .model import Draft
from .names import common_prefix, dedupe, safe_file_name

if TYPE_CHECKING:
    from .reader import Reader

# The first "_attempt_<date>" ends the head: a student's own file name that holds another
# "_attempt_<date>" stays in the tail, her file.
BLACKBOARD = re.compile(r"^(?P<head>.+?)_attempt_(?P<ts>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?P<tail>.*)$", re.DOTALL)
FREE_TEXT = ("Submission Field:", "Comments:")  # the student's own text follows each of these
MAX_RECEIPT_BYTES = 1 << 20


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per username: the latest attempt's files, under the names the receipt gives them."""
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
    return [_draft(username, user_attempts) for username, user_attempts in by_user.items()]


class Receipt:
    """What an attempt's receipt says about that attempt: the student's name and username, original file names."""

    def __init__(self, name: str = "", username: str = "", files: dict[str, str] | None = None):
        self.name, self.username = name, username
        self.files = files or {}  # archived name (a file of this attempt) -> original name


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
    files_at = max((i for i, line in enumerate(stripped) if line == "Files:"), default=len(lines))
    return Receipt(name, username, _file_pairs(stripped[files_at + 1 :], attempt))


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


def _draft(username: str, user_attempts: list) -> Draft:
    user_attempts.sort(key=lambda a: a[0])
    ts, receipt, files = user_attempts[-1]
    name = next((r.name for _, r, _ in reversed(user_attempts) if r.name), "") or username
    return Draft(
        name=name,
        student_id=username,
        origin=username,
        submitted_at="{}-{}-{}T{}:{}:{}".format(*ts.split("-")),
        files=dedupe(files),
        earlier=sorted(path for _, _, older in user_attempts[:-1] for path, _ in older),
    )
