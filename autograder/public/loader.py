"""Find and load a student's submission: a notebook, a .py file, a package or a repository.

Finding (``find_entry``) only parses files, never runs them, so the trusted grader may
call it (on a bounded copy of the submission: sandbox/host/bounded_copy.py). Loading (``load``)
runs the student's code and belongs in the student's process.

Loading is forgiving, as a fair grader must be: a notebook's cells run in order and a
cell that fails is noted and skipped, so that a broken scratch cell does not cost the
exercises defined after it; the top-level statements of a .py file are treated alike.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import linecache
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from . import trees
from .probing import describe_exception

MAX_SOURCE_BYTES = 8 * 1024 * 1024  # a notebook with images can be large; code never is
# Never a student's work: tools' folders, and the course's own self-check bundle.
SKIP_DIRS = {".git", ".ipynb_checkpoints", "__pycache__", ".venv", "venv", "env", "node_modules", ".github"}
# Every stub's NotImplementedError says this: a definition that still holds it is not done.
# It is printed under the check cell, so it says which line, in which cell.
STUB_MARKER = "replace the `raise NotImplementedError` line in the exercise cell with your code"
# What the stubs of earlier releases say, which notebooks already handed out still hold.
STUB_MARKERS = (STUB_MARKER, "replace this line with your code")


def holds_stub(text: str) -> bool:
    """Whether a piece of code, or an error it raised, holds a stub's message (of this release or an earlier one)."""
    return any(marker in text for marker in STUB_MARKERS)


def is_stub(value) -> bool:
    """Whether a function or class (of a running notebook) still holds a stub's message in its source."""
    parts = [value] + [v for v in vars(value).values() if inspect.isfunction(v)] if inspect.isclass(value) else [value]
    for part in parts:
        try:
            if holds_stub(inspect.getsource(part)):
                return True
        except (OSError, TypeError):
            continue  # no source to read (a built-in, or a class of a notebook cell on some Pythons)
    return False


# The first line of the notebook cell that holds the self-check bundle: never run when grading.
BUNDLE_MARKER = "#@title Self-checks: run this cell first."


class SubmissionError(Exception):
    """The submission cannot be found or read; the message says what to change."""


@dataclass(frozen=True)
class Entry:
    """The file or package to load, and what kind it is."""

    kind: str  # "notebook", "module" or "package"
    path: Path

    def describe(self) -> str:
        return f"{self.kind} {self.path.name}"


@dataclass(frozen=True)
class Cell:
    label: str  # where the cell is: "cell In [7]", or "code cell 3" when never run (its file name in tracebacks)
    source: str

    def describe(self) -> str:
        """How a student finds the cell: what it defines, or how it starts, then where it is."""
        defined = _DEFINES.search(self.source)
        if defined:
            return f"{CELL_DEFINES}{defined.group(1)} ({self.label})"
        first = next((line.strip() for line in self.source.splitlines() if line.strip()), "")
        first = first.removeprefix(_MAGIC)  # as the student wrote it: %matplotlib inline
        first = first if len(first) <= 60 else first[:60] + "…"
        return f'the cell that starts "{first}" ({self.label})' if first else f"the empty cell {self.label}"


# What a note says of a cell that defines a function or class: the feedback files it under that exercise.
CELL_DEFINES = "the cell that defines "
_DEFINES = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)


def note_defines(note: str) -> str | None:
    """The name a loading note's cell defines, if the note is about such a cell."""
    if not note.startswith(CELL_DEFINES):
        return None
    found = re.match(r"[A-Za-z_]\w*", note[len(CELL_DEFINES) :])
    return found.group() if found else None


# ------------------------------------------------------------------ finding (no code runs)


def read_text(path: Path) -> str:
    """A source file's text, refusing one too large to be code."""
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{path.name} is larger than {MAX_SOURCE_BYTES // 2**20} MiB; submit the code only")
    return path.read_text(encoding="utf-8", errors="replace")


def code_cells(notebook_path: Path) -> list[Cell]:
    """The code cells of a notebook, with IPython magics and shell lines turned into comments."""
    try:
        notebook = json.loads(read_text(notebook_path))
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError("cells is not a list")
    except SubmissionError:
        raise
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as error:
        reason = type(error).__name__ if isinstance(error, RecursionError) else str(error)[:200]
        raise SubmissionError(
            f"{notebook_path.name} is not a readable notebook ({reason}); save it again from Jupyter"
        ) from None
    found: list[Cell] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(str(s) for s in source) if isinstance(source, list) else str(source)
        count = cell.get("execution_count")
        label = (
            f"cell In [{count}]"
            if isinstance(count, int) and not isinstance(count, bool)
            else f"code cell {len(found) + 1}"
        )
        found.append(Cell(label, strip_magics(source)))
    return found


_MAGIC = "pass  # "  # what an IPython line is turned into


def strip_magics(source: str) -> str:
    """'%matplotlib inline', '!pip install x' and '%%time' are IPython, not Python: comment them out."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")) or stripped.endswith("?") and stripped[:-1].isidentifier():
            line = line[: len(line) - len(stripped)] + _MAGIC + stripped
        lines.append(line)
    return "\n".join(lines)


def _sources(entry: Entry) -> list[str]:
    if entry.kind == "notebook":
        return [cell.source for cell in code_cells(entry.path)]
    if entry.kind == "module":
        return [read_text(entry.path)]
    return [read_text(p) for p in _files_in(entry.path) if p.suffix == ".py" and not _skipped(p, entry.path)]


def _trees(entry: Entry, defining: tuple[str, ...] = ()) -> list[tuple[str, ast.Module]]:
    """Each source of the submission with its syntax tree; a source that does not parse is left out.

    defining: only the sources that may define one of these names as a function or
    class (a notebook's other cells are most of its text, and parsing costs).
    """
    wanted = _defines_any(defining) if defining else None
    trees = []
    for source in _sources(entry):
        if wanted is not None and not wanted.search(source):
            continue
        try:
            trees.append((source, ast.parse(source)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return trees


@functools.lru_cache(maxsize=16)
def _defines_any(names: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(?:" + "|".join(map(re.escape, names)) + r")\b", re.M)


def _definitions(entry: Entry) -> dict[str, bool]:
    """Each top-level name a submission defines, and whether any of its definitions is done
    (an assignment, an import, or a function or class that holds no stub's NotImplementedError)."""
    done: dict[str, bool] = {}
    for source, tree in _trees(entry):
        lines = _LINE_BREAK.split(source)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                finished = not holds_stub(_lines_of(lines, node))
                done[node.name] = done.get(node.name, False) or finished
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                done.update({t.id: True for t in targets if isinstance(t, ast.Name)})
            elif isinstance(node, ast.ImportFrom):
                done.update({alias.asname or alias.name: True for alias in node.names})
    return done


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what the parser counts as a line's end (str.splitlines counts more)


def _lines_of(lines: list[str], node: ast.stmt) -> str:
    """The whole lines a top-level statement spans (ast.get_source_segment splits the source each call)."""
    return "\n".join(lines[node.lineno - 1 : node.end_lineno])


def defined_names(entry: Entry, done_only: bool = False) -> set[str]:
    """The top-level names a submission defines, read from its source without running it.

    done_only leaves out functions and classes that still hold a stub's NotImplementedError.
    """
    return {name for name, done in _definitions(entry).items() if done or not done_only}


@dataclass(frozen=True)
class GradedSource:
    """What a submission's source says of its graded names, read without running it."""

    calls: dict[str, set[str]]  # each graded name's other graded names it mentions, directly or through them
    unfinished: frozenset[str]  # graded names whose definition still holds a stub's NotImplementedError


def graded_source(entry: Entry, graded: tuple[str, ...]) -> GradedSource:
    """For each graded name the submission defines as a function or class (the last
    definition counts): the graded names it calls, and whether it is still a stub."""
    mentions: dict[str, set[str]] = {}
    unfinished: set[str] = set()
    for source, tree in _trees(entry, graded):
        lines = _LINE_BREAK.split(source)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in graded:
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                mentions[node.name] = names & set(graded) - {node.name}
                if holds_stub(_lines_of(lines, node)):
                    unfinished.add(node.name)
                else:
                    unfinished.discard(node.name)
    reached = {}
    for name in mentions:
        found: set[str] = set()
        pending = set(mentions[name])
        while pending:
            callee = pending.pop()
            found.add(callee)
            pending |= mentions.get(callee, set()) - found - {name}
        reached[name] = found
    return GradedSource(reached, frozenset(unfinished))


def definitions(entry: Entry, graded: tuple[str, ...]) -> dict[str, str]:
    """The text of each graded name's last top-level definition, then that of the submission's
    own helpers it names (top-level functions and classes that are not graded): where a
    slip of that name may be written. Read without running anything."""
    texts: dict[str, str] = {}
    names: dict[str, set[str]] = {}
    for source, tree in _trees(entry):
        lines = _LINE_BREAK.split(source)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                texts[node.name] = _lines_of(lines, node)
                names[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return {
        name: "\n".join([texts[name], *(texts[h] for h in sorted(names[name]) if h in texts and h not in graded)])
        for name in graded
        if name in texts
    }


def _skipped(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts
    return any(part in SKIP_DIRS or part.startswith(".") for part in parts[:-1]) or parts[-1].startswith(".")


def _files_in(folder: Path) -> list[Path]:
    """The regular files under a submitted folder; SubmissionError for one nested deeper than the kit reads."""
    try:
        return trees.regular_files(folder)
    except trees.TreeTooDeep as error:
        raise SubmissionError(str(error)) from None


def _everything_in(folder: Path) -> list[Path]:
    """Every file and folder under a submitted folder, sorted, links left out; SubmissionError as _files_in."""
    found = []
    try:
        for here, folders, files in trees.walk(folder):
            folders[:] = [name for name in folders if not (here / name).is_symlink()]
            found += [here / name for name in folders + files]
    except trees.TreeTooDeep as error:
        raise SubmissionError(str(error)) from None
    return sorted(found)


def candidates(path: Path) -> list[Entry]:
    """Every notebook, .py file and package in a folder that could be the submission."""
    found = []
    for item in _everything_in(path):
        if item.is_symlink() or _skipped(item, path) or any(part in SKIP_DIRS for part in item.relative_to(path).parts):
            continue
        if item.is_file() and item.suffix == ".ipynb":
            found.append(Entry("notebook", item))
        elif (
            item.is_file()
            and item.suffix == ".py"
            and item.name != "__init__.py"
            and not (item.parent / "__init__.py").exists()
        ):
            found.append(Entry("module", item))
        elif item.is_dir() and (item / "__init__.py").exists() and not (item.parent / "__init__.py").exists():
            found.append(Entry("package", item))
    return found


def find_entry(path: Path, graded: tuple[str, ...]) -> Entry:
    """The file or package of a submission that holds the most work on the graded names.

    Work means a graded name defined by more than its stub: the untouched release
    notebook beside a student's own notebook is never taken for the submission.
    """
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"{path} does not exist; give the path of a notebook, a .py file or a folder")
    if path.is_file():
        kinds = {".ipynb": "notebook", ".py": "module"}
        if path.suffix not in kinds:
            raise SubmissionError(
                f"{path.name}: a submission is an .ipynb notebook, a .py file or a folder, not {path.suffix or 'a file without extension'}"
            )
        return Entry(kinds[path.suffix], path)
    if (path / "__init__.py").exists():
        return Entry("package", path)
    scored = []
    for entry in candidates(path):
        try:
            definitions = _definitions(entry)
            done = len({name for name, finished in definitions.items() if finished} & set(graded))
            defined = len(definitions.keys() & set(graded))
        except (SubmissionError, OSError):
            continue
        scored.append(((done, defined), entry))
    best = max((score for score, _ in scored), default=(0, 0))
    if best[1] == 0:
        raise SubmissionError(
            f"{path.name} holds no notebook, .py file or package defining any of {', '.join(graded)}; "
            f"put your work in one of them"
        )
    top = [entry for score, entry in scored if score == best]
    if len(top) > 1:
        names = ", ".join(str(e.path.relative_to(path)) for e in top)
        raise SubmissionError(
            f"{path.name} holds several files with the same work on the graded names ({names}); "
            f"keep your work in one of them, or grade that file directly"
        )
    return top[0]


# ------------------------------------------------------------------ loading (runs the student's code)


@dataclass
class Loaded:
    namespace: dict
    notes: list[str] = field(default_factory=list)  # cells or statements that failed, for the feedback


def cell_digest(source: str) -> str:
    return hashlib.sha256(source.strip().encode()).hexdigest()


def load(entry: Entry, skip: frozenset[str] = frozenset()) -> Loaded:
    """Run the submission and return its top-level names.

    skip holds the digests of cells not to run: the course's own demonstration cells,
    when a notebook still has them unchanged. They only illustrate (plots, prints), no
    graded name depends on them, and running them would cost every submission the
    same seconds of plotting. The self-check bundle's cell never runs: while grading,
    its check() and needs() do nothing.
    """
    module = types.ModuleType("submission")
    module.__file__ = str(entry.path)
    sys.modules["submission"] = module
    folder = entry.path.parent
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    namespace = module.__dict__
    namespace["display"] = _display  # IPython's display(), which scripts lack
    namespace["check"] = _silent
    namespace["needs"] = _ready
    if entry.kind == "notebook":
        cells = [
            c
            for c in code_cells(entry.path)
            if cell_digest(c.source) not in skip and not c.source.startswith(BUNDLE_MARKER)
        ]
        notes = _run_pieces([(c.label, c.source, c.describe()) for c in cells], namespace)
    elif entry.kind == "module":
        notes = _run_pieces(_statements(entry.path), namespace)
    else:
        notes = []
        try:
            package = __import__(entry.path.name)
            namespace.update(vars(package))
        except BaseException as error:  # whatever the student's code raises is noted, never obeyed
            notes.append(f"importing the package {entry.path.name} raised {describe_exception(error)}")
    return Loaded(namespace, notes)


def _display(*objects, **kwargs):
    return None


def _silent(*args, **kwargs):
    """A check cell while grading: the hidden graders check instead."""
    return None


def _ready(*args, **kwargs):
    """needs(...) while grading: demos are not run for their figures."""
    return False


def _statements(path: Path) -> list[tuple[str, str, str]]:
    """A .py file as one piece per top-level statement, each compiled with its true line numbers
    (label, source, and how a note names it: the file, whose line numbers it gives)."""
    source = read_text(path)
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError, RecursionError):
        return [(path.name, source, path.name)]  # compiling it reports the error as a note
    lines = source.splitlines(keepends=True)
    linecache.cache[path.name] = (len(source), None, lines, path.name)
    pieces = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n" * (start - 1) + "".join(lines[start - 1 : node.end_lineno])
        pieces.append((path.name, text, path.name))
    return pieces


def _run_pieces(pieces: list[tuple[str, str, str]], namespace: dict) -> list[str]:
    """Run each piece (label, source, how a note names it); a note for each that raised."""
    notes = []
    for label, source, described in pieces:
        if label not in linecache.cache:  # so tracebacks can quote the student's line
            linecache.cache[label] = (len(source), None, source.splitlines(keepends=True), label)
        try:
            code = compile(source, label, "exec")
            exec(code, namespace)
        except BaseException as error:  # SystemExit too: a scratch cell must not end the loading
            notes.append(f"{described} raised {describe_exception(error)}; loading went on after it")
    return notes
