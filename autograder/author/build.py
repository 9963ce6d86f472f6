"""Build what students get from the instructor's one source per assignment.

The steps, in order (``python -m autograder build``):

1. ``stub_module``      the reference with its solutions cleared   -> assignments/<name>.py
2. ``visible_data``     the reference's outputs on the visible inputs, and its known
                        mistakes' outputs, for the self-checks
3. ``cell_source``      the self-check bundle, packed into one notebook cell
4. ``master_notebook``  lesson + exercises + checks + grade cells -> source/<name>/<name>.ipynb
5. ``release_in``       real nbgrader generate_assignment         -> release/<name>/<name>.ipynb
6. ``check_release``    the release holds nothing secret

source/ is rebuilt on demand and not committed; assignments/ and release/ are what
students receive and are committed. Floats that a reference run on another CPU gives
in other last digits never make a committed file change: the visible data are kept
when they equal the new ones within the graders' tolerances.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .. import KIT_ROOT
from ..assignment import Assignment
from .blocks import stub_module
from .bundle import bundle_files, cell_source, files_of_cell
from .notebook import BEGIN_HIDDEN, master_notebook, notebook_text
from .release import bundle_cell, check_release, copy_release, release_in
from .visible import equivalent, visible_data, visible_json


def build(assignment: Assignment) -> list[str]:
    """Write the stubs, the master notebook and the release; return what changed (paths from the repository)."""
    changed = []
    if _write(assignment.stub_path, stub_module(assignment)):
        changed.append(assignment.stub_path)
    master = master_path(assignment).read_text()  # generated, not committed
    with tempfile.TemporaryDirectory() as scratch:
        release = release_in(assignment, master, Path(scratch))
        check_release(assignment, release)
        if not same_release(release / assignment.notebook_name, assignment.release_dir / assignment.notebook_name):
            copy_release(release, assignment.release_dir)
            changed.append(assignment.release_dir)
    return [_relative(path) for path in changed]


def master_path(assignment: Assignment) -> Path:
    """source/<name>/<name>.ipynb, nbgrader's master notebook: built now from the assignment's folder.

    source/ is never committed, so a fresh clone has none until something builds it; every
    command that hands the master to nbgrader asks for it here rather than expecting it.
    """
    path = assignment.source_dir / assignment.notebook_name
    _write(path, notebook_text(master_notebook(assignment, fresh_bundle_cell(assignment))))
    return path


def committed_bundle(assignment: Assignment) -> tuple[str, dict[str, str]] | None:
    """(cell, files) of the self-check bundle in the committed release, if there is one."""
    path = assignment.release_dir / assignment.notebook_name
    if not path.exists():
        return None
    cell = bundle_cell(json.loads(path.read_text()))
    if cell is None:
        return None
    try:
        return cell, files_of_cell(cell)
    except (ValueError, KeyError, IndexError):
        return None


def fresh_bundle_cell(assignment: Assignment) -> str:
    """The bundle's cell as the build makes it now, keeping the committed one where it is equivalent."""
    visible = visible_data(assignment)
    committed = committed_bundle(assignment)
    text = visible_json(visible)
    if (
        committed is not None
        and "visible.json" in committed[1]
        and equivalent(json.loads(committed[1]["visible.json"]), visible)
    ):
        text = committed[1]["visible.json"]
    files = bundle_files(assignment, text)
    if committed is not None and {k: v for k, v in committed[1].items() if k != "bootstrap.py"} == files:
        return committed[0]  # same contents: keep the committed bytes (another zlib may pack them otherwise)
    return cell_source(assignment, files)


def cells_of(path: Path) -> list[tuple]:
    """(id, type, source) of each cell; the bundle's cell by its files."""
    cells = []
    for cell in json.loads(path.read_text())["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and cell.get("id") == "selfcheck":
            source = json.dumps(files_of_cell(source), sort_keys=True)
        cells.append((cell.get("id"), cell["cell_type"], source))
    return cells


def same_release(made: Path, committed: Path) -> bool:
    return committed.exists() and cells_of(made) == cells_of(committed)


def stale(assignment: Assignment) -> list[str]:
    """Committed files the build would change now, found without running nbgrader (fast).

    The release is compared with the master notebook as nbgrader clears it: solution
    regions become the stubs, grade cells keep their first comment, and the bundle must
    equal a fresh one, its floats within the graders' tolerances.
    """
    problems = []
    if not assignment.stub_path.exists() or assignment.stub_path.read_text() != stub_module(assignment):
        problems.append(_relative(assignment.stub_path))
    release = assignment.release_dir / assignment.notebook_name
    if not release.exists():
        return problems + [_relative(release)]
    with tempfile.TemporaryDirectory() as scratch:
        expected = Path(scratch) / "expected.ipynb"
        expected.write_text(notebook_text(master_notebook(assignment, fresh_bundle_cell(assignment))))
        want = [_as_released(cell, assignment) for cell in cells_of(expected)]
    if cells_of(release) != want:
        problems.append(_relative(release))
    return problems


def _as_released(cell: tuple, assignment: Assignment) -> tuple:
    """A master cell as nbgrader's ClearSolutions and ClearHiddenTests leave it."""
    cell_id, kind, source = cell
    if cell_id in assignment.graded:
        return cell_id, kind, _stub_block(stub_module(assignment), cell_id)
    if BEGIN_HIDDEN in source:
        return cell_id, kind, source.split("\n" + BEGIN_HIDDEN)[0]
    return cell


def _stub_block(stubs: str, name: str) -> str:
    from .blocks import _blocks_of

    return next(b.source for b in _blocks_of(stubs) if b.name == name).rstrip("\n")


def _write(path: Path, text: str) -> bool:
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True


def _relative(path: Path) -> str:
    path = Path(path)
    return path.relative_to(KIT_ROOT).as_posix() if path.is_relative_to(KIT_ROOT) else str(path)
