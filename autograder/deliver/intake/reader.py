"""What every LMS reader shares: walking an export without following links, and noting what is left out.

It knows no LMS: each LMS's module (canvas.py, moodle.py, ...) reads with it, and the intake's
registry (__init__.py) asks each module how much of an export follows its naming."""

from __future__ import annotations

from pathlib import Path

from ...public import trees
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
