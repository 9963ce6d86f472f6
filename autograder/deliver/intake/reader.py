"""What every LMS reader shares: walking an export without following links, noting what is left out, and
telling which LMS made it."""

from __future__ import annotations

import os
from pathlib import Path

from ...public import trees
from . import blackboard, canvas, gradescope, moodle
from .model import IntakeError
from .names import printable
from .unzip import MACOSX, MACOSX_WHY, SCRATCH_MARK

JUNK_FILES = {
    ".DS_Store": "macOS Finder's folder settings",
    "Thumbs.db": "Windows' thumbnail cache",
    "desktop.ini": "Windows' folder settings",
}
JUNK_DIRS = {
    MACOSX: MACOSX_WHY,
    ".ipynb_checkpoints": "Jupyter's autosaves",
    "__pycache__": "compiled Python",
}


class Reader:
    """An export's folder as the LMS readers see it; what they leave out is noted in skipped."""

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

    def plain_files_only(self, folder: Path) -> bool:
        """Whether folder holds nothing but folders and regular files; the rest noted in skipped.

        Raises TreeTooDeep for a folder nested deeper than the kit reads (that student is refused).
        """
        plain = True
        for here, dirnames, filenames in trees.walk(folder):
            for name in dirnames + filenames:
                path = here / name
                if path.is_symlink():
                    self.skip(path, "a symbolic link: never followed, left out of the graded copy")
                    plain = False
                elif not path.is_dir() and not path.is_file():
                    self.skip(path, "not a regular file (a device, pipe or socket): left out of the graded copy")
                    plain = False
        return plain

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
        if (root / gradescope.METADATA).is_file():
            return "gradescope"
        files = [e for e in entries if e.is_file()]
        dirs = [e for e in entries if e.is_dir()]
        votes = {
            "moodle": sum(bool(moodle.MOODLE.match(e.name)) for e in entries),
            "blackboard": sum(bool(blackboard.BLACKBOARD.match(e.name)) for e in files),
            "canvas": sum(canvas.looks_like(e.name) for e in files),
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
