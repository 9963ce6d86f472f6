"""Find and load a student's submission: a notebook, a .py file, a package or a repository.

Finding (``find_entry``) only parses files, never runs them, so the trusted grader may
call it (on a bounded copy of the submission: sandbox/host/bounded_copy.py). Loading (``load``)
runs the student's code and belongs in the student's process.

Loading is forgiving, as a fair grader must be: a notebook's cells run in order and a
cell that fails is noted and skipped, so that a broken scratch cell does not cost the
exercises defined after it; the top-level statements of a .py file are treated alike.
It goes in steps (``LOAD_STEPS``): reading the files, parsing them, extracting the
code, then running it; ``load`` says as each begins, so that the sandbox can tell the
grader whether a failure came before the student's code ran or from it.

What is read is bounded, each bound named in the refusal with what to do:

* a notebook's file, ``NOTEBOOK_BYTES`` (20 MiB): its outputs (a figure is some 50 KB)
  and pasted images make it large, never its code; the course's release notebooks are
  under 0.3 MiB, so the bound holds hundreds of figures, and clearing the outputs, which
  grading never reads, always brings a notebook of code under it. The trusted side
  checks it before the student's process starts (``find_entry``).
* the code, ``CODE_BYTES`` (1 MiB): a notebook's code cells together (the course's
  self-check cell, under 0.2 MiB, included), a .py file, or a package's .py files
  together. A full solution is some 13 KB; the bound keeps what the grader parses of a
  submission (it reads the code to find what it defines, and a syntax tree can take
  hundreds of bytes for each byte of code) within what a trusted process can hold.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import linecache
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import trees
from .probing import describe_exception

NOTEBOOK_BYTES = 20 * 2**20  # a notebook's file, outputs and written answers included (see above)
CODE_BYTES = 2**20  # the code of a submission: a notebook's code cells, a .py file, a package's .py files
# The steps of loading, in order; a kind of submission may skip some ("parsing" and "extracting" for a package).
LOAD_STEPS = ("reading", "parsing", "extracting", "running")
STUDENT_CODE = "running"  # the step from which the submission's own code runs
# Never a student's work: tools' folders, and the course's own self-check bundle.
SKIP_DIRS = {".git", ".ipynb_checkpoints", "__pycache__", ".venv", "venv", "env", "node_modules", ".github"}
# Every stub's NotImplementedError says this: "Exercise 3 (softmax): <marker>.". It is
# printed under the check cell, so it says which line, in which cell.
STUB_MARKER = "replace the `raise NotImplementedError` line in the exercise cell with your code"
# What the stubs of earlier releases say, which notebooks already handed out still hold.
STUB_MARKERS = (STUB_MARKER, "replace this line with your code")
_STUB_RAISED = re.compile(
    r"NotImplementedError: Exercise \d+ \(([A-Za-z_]\w*)\): (?:" + "|".join(map(re.escape, STUB_MARKERS)) + ")"
)


def holds_stub(text: str) -> bool:
    """Whether a piece of text holds a stub's message (of this release or an earlier one)."""
    return any(marker in text for marker in STUB_MARKERS)


def stub_raised(error: str | None) -> str | None:
    """The exercise whose stub's NotImplementedError an error (as a probe reports it) is: the one its message
    names ("Exercise 3 (softmax): replace ..."); None for any other error.

    Whether an exercise is done is decided by what its code does: its own stub's error
    raised when it runs (grade/unfinished.py, public/selfcheck.py), never by the stub's
    line left in its text, which a finished function often keeps, unreachable, under its
    return."""
    found = _STUB_RAISED.search(error or "")
    return found.group(1) if found else None


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


def read_text(path: Path, bound: int | None = None) -> str:
    """A file's text, refusing one over its bound (CODE_BYTES, or NOTEBOOK_BYTES for a notebook's) and reading no
    further than that: a file that grows while read is refused too."""
    return _read(path, CODE_BYTES if bound is None else bound).decode("utf-8", errors="replace")


def _read(path: Path, bound: int) -> bytes:
    with open(path, "rb") as file:
        data = file.read(bound + 1)
    if len(data) > bound:
        raise SubmissionError(too_large(path, max(len(data), _size_of(path))))
    return data


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def too_large(path: Path, size: int) -> str:
    """Why a file over its bound is refused, and what to do."""
    if path.suffix == ".ipynb":
        return (
            f"the notebook {path.name} is {_mib(size)}, over the {NOTEBOOK_BYTES // 2**20} MiB bound: clear its "
            f"outputs (in Jupyter, Edit > Clear Outputs of All Cells) and remove large pasted images, save it and "
            f"hand it in again"
        )
    return f"{path.name} is {_mib(size)}, over the {CODE_BYTES // 2**20} MiB bound for code: keep data out of code"


_REDOWNLOAD = "re-download it from Jupyter (File > Download) and hand that in"


def parse_notebook(text: str, name: str) -> list:
    """The cells of a notebook's text, or SubmissionError saying why it is no notebook and what to do."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        if not text[error.pos :].strip() or error.msg.startswith("Unterminated string"):
            reason = f"it ends after {len(text)} characters, before its JSON does: it was cut off, saving or uploading"
        else:
            reason = f"it is not valid JSON ({error.msg}, line {error.lineno} column {error.colno})"
        raise SubmissionError(f"the notebook {name} could not be parsed: {reason}; {_REDOWNLOAD}") from None
    except (ValueError, RecursionError) as error:
        reason = "it nests deeper than a notebook does" if isinstance(error, RecursionError) else str(error)[:200]
        raise SubmissionError(f"the notebook {name} could not be parsed: {reason}; {_REDOWNLOAD}") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise SubmissionError(
            f"the notebook {name} could not be parsed: it is JSON, but not a Jupyter notebook (it has no list of "
            f"cells); {_REDOWNLOAD}"
        )
    return cells


def notebook_code(cells: list, name: str) -> list[Cell]:
    """A notebook's code cells, with IPython magics and shell lines turned into comments; SubmissionError when
    they hold more than CODE_BYTES of code together."""
    found: list[Cell] = []
    size = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(str(s) for s in source) if isinstance(source, list) else str(source)
        size += len(source.encode("utf-8", errors="replace"))
        if size > CODE_BYTES:
            raise SubmissionError(
                f"the notebook {name}'s code cells hold more than {CODE_BYTES // 2**20} MiB of code, the bound for "
                f"code: keep data out of code cells"
            )
        count = cell.get("execution_count")
        label = (
            f"cell In [{count}]"
            if isinstance(count, int) and not isinstance(count, bool)
            else f"code cell {len(found) + 1}"
        )
        found.append(Cell(label, strip_magics(source)))
    return found


def code_cells(notebook_path: Path) -> list[Cell]:
    """The code cells of a notebook file (notebook_code), or SubmissionError saying what to do."""
    try:
        text = read_text(notebook_path, NOTEBOOK_BYTES)
    except OSError as error:
        raise SubmissionError(f"the notebook {notebook_path.name} could not be read ({error.strerror})") from None
    return notebook_code(parse_notebook(text, notebook_path.name), notebook_path.name)


_MAGIC = "pass  # "  # what an IPython line is turned into


# Every line strip_magics changes, and some it does not: a line that starts with % or ! after white space (searched
# in "\n" + the cell), or ends with ?. Two patterns that each begin with a character to look for, which re finds
# fast: one ^\s*[%!]|\?$ tried at each place took 3 ms of the release's 286 kB self-check cell, in each grading.
_MAY_START_MAGIC = re.compile(r"\n\s*[%!]")
_MAY_ASK_HELP = re.compile(r"\?$", re.M)


def strip_magics(source: str) -> str:
    """'%matplotlib inline', '!pip install x' and '%%time' are IPython, not Python: comment them out."""
    if not (_MAY_START_MAGIC.search("\n" + source) or _MAY_ASK_HELP.search(source)):
        return source  # most cells: two searches, not a look at each line
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
    return package_sources(entry.path)


def package_sources(folder: Path) -> list[str]:
    """The text of each .py file of a package, refusing more than CODE_BYTES of them together."""
    sources: list[str] = []
    left = CODE_BYTES
    for path in _files_in(folder):
        if path.suffix == ".py" and not _skipped(path, folder):
            try:
                data = _read(path, left)
            except SubmissionError:
                raise SubmissionError(
                    f"the package {folder.name} holds more than {CODE_BYTES // 2**20} MiB of code in its .py files, "
                    f"the bound for code: keep data out of code"
                ) from None
            sources.append(data.decode("utf-8", errors="replace"))
            left -= len(data)
    return sources


def _trees(entry: Entry, defining: tuple[str, ...] = ()) -> list[ast.Module]:
    """The syntax tree of each source of the submission; a source that does not parse is left out.

    defining: only the sources that may define one of these names as a function or
    class (a notebook's other cells are most of its text, and parsing costs).
    """
    return [tree for _, tree in _parsed(entry, defining)]


def _parsed(entry: Entry, defining: tuple[str, ...] = ()) -> list[tuple[str, ast.Module]]:
    """Each source of the submission with its syntax tree (as _trees)."""
    wanted = _defines_any(defining) if defining else None
    parsed = []
    for source in _sources(entry):
        if wanted is not None and not wanted.search(source):
            continue
        try:
            parsed.append((source, ast.parse(source)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return parsed


@functools.lru_cache(maxsize=16)
def _defines_any(names: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(?:" + "|".join(map(re.escape, names)) + r")\b", re.M)


def _definitions(entry: Entry) -> dict[str, bool]:
    """Each top-level name a submission defines, and whether any of its definitions is done
    (an assignment, an import, or a function or class that holds no stub's raise that can run)."""
    done: dict[str, bool] = {}
    for source in _sources(entry):
        for name, finished in _source_definitions(source):
            done[name] = done.get(name, False) or finished
    return done


_KEPT_DEFINITIONS: dict[bytes, tuple[tuple[str, bool], ...]] = {}  # by the source's digest
KEPT_DEFINITIONS = 4096  # sources whose definitions a process keeps


def _source_definitions(source: str) -> tuple[tuple[str, bool], ...]:
    """(name, done) of each top-level definition of one source, in order; none where it does not parse. Kept for
    the process by the source's digest: a class's notebooks share most of their cells (the release's self-check
    cell alone is 285 kB), and grading a folder reads them twice (the entry to grade, the code the class views
    read), so each is parsed once."""
    key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).digest()
    found = _KEPT_DEFINITIONS.get(key)
    if found is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            tree = ast.Module(body=[], type_ignores=[])
        except MemoryError:
            return ()
        found = tuple(_top_level_definitions(tree))
        if len(_KEPT_DEFINITIONS) >= KEPT_DEFINITIONS:
            _KEPT_DEFINITIONS.clear()
        _KEPT_DEFINITIONS[key] = found
    return found


def _top_level_definitions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, not _runs_a_stub(node.body)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from ((t.id, True) for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            yield from ((alias.asname or alias.name, True) for alias in node.names)


def _runs_a_stub(block: list[ast.stmt]) -> bool:
    """Whether a block (a function's body, a class's, nested ones included) holds a stub's raise that can run:
    one that no return, raise, break or continue before it skips. Choosing the file to grade runs no code, so
    it reads this from the syntax tree; the stub's line a finished function keeps under its return is dead
    code, and no stub."""
    for statement in block:
        if isinstance(statement, ast.Raise) and any(
            isinstance(node, ast.Constant) and isinstance(node.value, str) and holds_stub(node.value)
            for node in ast.walk(statement)
        ):
            return True
        if any(_runs_a_stub(inner) for inner in _inner_blocks(statement)):
            return True
        if _leaves(statement):
            return False
    return False


def _leaves(statement: ast.stmt) -> bool:
    """Whether the statements after this one in its block never run: it returns, raises, breaks or
    continues, or so does each branch of an if/else (the block of a with)."""
    if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    if isinstance(statement, ast.If):
        return bool(statement.orelse) and _block_leaves(statement.body) and _block_leaves(statement.orelse)
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return _block_leaves(statement.body)
    return False


def _block_leaves(block: list[ast.stmt]) -> bool:
    return any(_leaves(statement) for statement in block)


def _inner_blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks a statement holds: a def's or a class's body, an if's two branches, a try's handlers ..."""
    blocks = []
    for _, value in ast.iter_fields(statement):
        if isinstance(value, list) and value:
            if isinstance(value[0], ast.stmt):
                blocks.append(value)
            else:  # an except's handlers, a match's cases
                blocks += [item.body for item in value if isinstance(getattr(item, "body", None), list)]
    return blocks


def defined_names(entry: Entry, done_only: bool = False) -> set[str]:
    """The top-level names a submission defines, read from its source without running it.

    done_only leaves out functions and classes that still hold a stub's raise that can run.
    """
    return {name for name, done in _definitions(entry).items() if done or not done_only}


def graded_calls(entry: Entry, graded: tuple[str, ...]) -> dict[str, set[str]]:
    """For each graded name the submission defines as a function or class (the last definition counts), the
    other graded names it mentions, directly or through them; read from its source without running it."""
    mentions: dict[str, set[str]] = {}
    for tree in _trees(entry, graded):
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in graded:
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                mentions[node.name] = names & set(graded) - {node.name}
    reached = {}
    for name in mentions:
        found: set[str] = set()
        pending = set(mentions[name])
        while pending:
            callee = pending.pop()
            found.add(callee)
            pending |= mentions.get(callee, set()) - found - {name}
        reached[name] = found
    return reached


def definitions(entry: Entry, graded: tuple[str, ...]) -> dict[str, str]:
    """The text of each graded name's last top-level definition, then that of the submission's
    own helpers it names (top-level functions and classes that are not graded): where a
    slip of that name may be written. Read without running anything."""
    texts: dict[str, str] = {}
    names: dict[str, set[str]] = {}
    for source, tree in _parsed(entry):
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


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what the parser counts as a line's end (str.splitlines counts more)


def _lines_of(lines: list[str], node: ast.stmt) -> str:
    """The whole lines a top-level statement spans (ast.get_source_segment splits the source each call)."""
    return "\n".join(lines[node.lineno - 1 : node.end_lineno])


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
    notebook beside a student's own notebook is never taken for the submission. A file
    over its bound (NOTEBOOK_BYTES, CODE_BYTES) is refused here, by its size alone.
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
        size = path.stat().st_size
        if size > (NOTEBOOK_BYTES if path.suffix == ".ipynb" else CODE_BYTES):
            raise SubmissionError(too_large(path, size))
        return Entry(kinds[path.suffix], path)
    if (path / "__init__.py").exists():
        return Entry("package", path)
    scored = []
    refused: list[str] = []
    for entry in candidates(path):
        try:
            definitions = _definitions(entry)
            done = len({name for name, finished in definitions.items() if finished} & set(graded))
            defined = len(definitions.keys() & set(graded))
        except SubmissionError as error:
            refused.append(str(error))
            continue
        except OSError:
            continue
        scored.append(((done, defined), entry))
    best = max((score for score, _ in scored), default=(0, 0))
    if best[1] == 0:
        left_out = f" (left out: {'; '.join(refused[:3])})" if refused else ""
        raise SubmissionError(
            f"{path.name} holds no notebook, .py file or package defining any of {', '.join(graded)}{left_out}; "
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


def _no_report(step: str) -> None:
    return None


def load(entry: Entry, skip: frozenset[str] = frozenset(), step: Callable[[str], None] = _no_report) -> Loaded:
    """Run the submission and return its top-level names.

    step is told as each of LOAD_STEPS begins. Until it is told "running", only the
    kit's code has run: a failure then (a file the sandbox cannot read, a notebook
    that does not parse or is over its bound) is raised, never the student's code's.

    skip holds the digests of cells not to run: the course's own demonstration cells,
    when a notebook still has them unchanged. They only illustrate (plots, prints), no
    graded name depends on them, and running them would cost every submission the
    same seconds of plotting. The self-check bundle's cell never runs: while grading,
    its check() and needs() do nothing.
    """
    step("reading")
    if entry.kind == "notebook":
        text = read_text(entry.path, NOTEBOOK_BYTES)
        step("parsing")
        cells = parse_notebook(text, entry.path.name)
        del text  # the kit's reading is not the student's memory
        step("extracting")
        code = [
            c
            for c in notebook_code(cells, entry.path.name)
            if cell_digest(c.source) not in skip and not c.source.startswith(BUNDLE_MARKER)
        ]
        del cells
        pieces = [(c.label, c.source, c.describe()) for c in code]
    elif entry.kind == "module":
        source = read_text(entry.path)
        step("parsing")
        pieces = _statements(entry.path, source)
    else:
        package_sources(entry.path)  # each file read, and their size bounded; the import reads them again
        pieces = []
    step(STUDENT_CODE)
    # From here on the student's code runs: its folder is on the path only now.
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
    if entry.kind != "package":
        notes = _run_pieces(pieces, namespace)
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


def _statements(path: Path, source: str) -> list[tuple[str, str, str]]:
    """A .py file's source as one piece per top-level statement, each compiled with its true line numbers
    (label, source, and how a note names it: the file, whose line numbers it gives)."""
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
