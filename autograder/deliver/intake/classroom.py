"""GitHub Classroom: `gh classroom clone student-repos -a ID` clones every accepted assignment into
<assignment slug>-submissions/<repository name>, the repository being named <assignment slug>-<GitHub
login> (or -<team name> for group assignments). Source: github/gh-classroom
cmd/gh-classroom/clone/student-repos/student-repos.go.

What is graded is the clone as it is. Its time is HEAD's commit's committer time, read from
.git (commits.py) where the clone has one: what the student's machine wrote, not when
GitHub received the push, so it is kept (submitted_at, Submission.uploads with the commit
id) and lateness is left unknown: a clone holds no due date.
"""

from __future__ import annotations

import os
from pathlib import Path

from .commits import last_commit
from .model import Draft, Upload
from .names import common_prefix
from .reader import Reader

SOURCE = "classroom"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per cloned repository, the login being its name less the assignment's prefix, its last commit's time."""
    repos = []
    for entry in reader.entries(root):
        if entry.is_dir():
            repos.append(entry)
        else:
            reader.skip(entry, "not a student's repository (a file beside the clones)")
    names = [repo.name for repo in repos]
    prefix = ""
    if root.name.endswith("-submissions") and all(n.startswith(root.name[: -len("submissions")]) for n in names):
        prefix = root.name[: -len("submissions")]
    elif len(names) > 1:
        prefix = common_prefix(names, "-")
    drafts = []
    for repo in repos:
        login = repo.name[len(prefix) :] if len(repo.name) > len(prefix) else repo.name
        commit, when = last_commit(repo)
        upload = Upload(reader.label(repo), True, commit, None, when)
        drafts.append(
            Draft(name=login, student_id=login, origin=repo.name, folder=repo, submitted_at=when, uploads=[upload])
        )
    return drafts


def votes(root: Path, entries: list[Path]) -> int:
    """How many of an export folder's entries follow this LMS's naming (repositories)."""
    return sum(os.path.lexists(e / ".git") for e in entries if e.is_dir())
