"""The release: real ``nbgrader generate_assignment``, then a check that nothing secret got through.

nbgrader turns the master notebook (source/<name>/) into the students' notebook
(release/<name>/), clearing the solution regions and the hidden tests. The leak check
then reads everything the release holds, the packed self-check bundle included:
only the notebook, no solution line, no hidden test, no marker of either, and in the
bundle only the public engine, the probes and the visible data.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from .. import KIT_ROOT
from ..assignments import BEGIN_SOLUTION, Assignment
from ..errors import KitError
from ..public.loader import BUNDLE_MARKER
from .blocks import END_SOLUTION, solution_lines
from .bundle import PUBLIC, files_of_cell
from .notebook import BEGIN_HIDDEN, END_HIDDEN


def nbgrader_env() -> dict[str, str]:
    """nbgrader runs the `alembic` script by name: put this environment's scripts first on PATH."""
    scripts = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    return {**os.environ, "PATH": path if path.split(os.pathsep)[0] == scripts else scripts + os.pathsep + path}


def run_nbgrader(assignment: Assignment, course_root: Path, *extra: str) -> None:
    """Real ``nbgrader generate_assignment``, with the kit's nbgrader_config.py, in course_root."""
    command = [
        sys.executable,
        "-m",
        "nbgrader",
        "generate_assignment",
        assignment.name,
        "--force",
        f"--CourseDirectory.root={course_root}",
        "--log-level=WARN",
        *extra,
    ]
    done = subprocess.run(command, cwd=KIT_ROOT, env=nbgrader_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise KitError(f"nbgrader generate_assignment failed:\n{done.stdout}\n{done.stderr}")


def release_in(assignment: Assignment, master: str, scratch: Path, *extra: str) -> Path:
    """The release nbgrader makes of a master notebook's text, in a scratch course; its folder."""
    source = scratch / "source" / assignment.name
    source.mkdir(parents=True)
    (source / assignment.notebook_name).write_text(master)
    run_nbgrader(assignment, scratch, *extra)
    (scratch / "gradebook.db").unlink(missing_ok=True)
    return scratch / "release" / assignment.name


# ------------------------------------------------------------------ the course's gradebook


def gradebook_url(course: Path) -> str:
    return f"sqlite:///{(Path(course) / 'gradebook.db').resolve()}"


def open_gradebook(course: Path):
    """nbgrader's Gradebook of a course (created if missing), with nbgrader's scripts on PATH."""
    from nbgrader.api import Gradebook  # here: nbgrader.api loads SQLAlchemy (seconds), for the gradebook steps only

    os.environ["PATH"] = nbgrader_env()["PATH"]
    return Gradebook(gradebook_url(course))


def registered(assignment: Assignment, master: nbformat.NotebookNode, course: Path) -> bool:
    """Does the course's gradebook.db hold the assignment's notebook as this master defines it?

    The same nbgrader cells, each grade cell with the master's points, each locked cell
    (the grade cells with their hidden tests) with the master's source: what nbgrader
    autograde restores into every submission.
    """
    from nbgrader.api import MissingEntry  # here: as in open_gradebook

    if not (Path(course) / "gradebook.db").exists():
        return False
    cells = [cell for cell in master.cells if _is_nbgrader_cell(cell)]
    want_points = {
        c.metadata.nbgrader.grade_id: float(c.metadata.nbgrader.points)
        for c in cells
        if c.metadata.nbgrader.get("grade")
    }
    want_locked = {c.metadata.nbgrader.grade_id: c.source for c in cells if not c.metadata.nbgrader.get("solution")}
    with open_gradebook(course) as gradebook:
        try:
            notebook = gradebook.find_notebook(Path(assignment.notebook_name).stem, assignment.name)
        except MissingEntry:
            return False
        points = {cell.name: cell.max_score for cell in notebook.grade_cells}
        names = {cell.name for cell in notebook.source_cells}
        locked = {cell.name: cell.source for cell in notebook.source_cells if cell.name in want_locked}
    return points == want_points and names == {c.metadata.nbgrader.grade_id for c in cells} and locked == want_locked


def _is_nbgrader_cell(cell: nbformat.NotebookNode) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade") or meta.get("solution") or meta.get("locked"))


def register(assignment: Assignment, master: nbformat.NotebookNode, course: Path) -> bool:
    """Put the assignment, as the master defines it, into the course's gradebook.db; False when it was there.

    nbgrader generate_assignment records the notebook's cells (the hidden tests included)
    in the gradebook, which nbgrader autograde needs; it runs here in a scratch course
    whose gradebook is the course's, so that the course's release/ is left to the build.
    """
    if registered(assignment, master, course):
        return False
    with tempfile.TemporaryDirectory() as scratch:
        release_in(
            assignment, nbformat.writes(master), Path(scratch), f"--CourseDirectory.db_url={gradebook_url(course)}"
        )
    return True


def bundle_cell(notebook: dict) -> str | None:
    for cell in notebook.get("cells", []):
        source = "".join(cell["source"]) if isinstance(cell.get("source"), list) else cell.get("source", "")
        if cell.get("cell_type") == "code" and source.startswith(BUNDLE_MARKER):
            return source
    return None


def check_release(assignment: Assignment, release_dir: Path) -> None:
    """Fail unless the release holds only student material: no solution, hidden test or reference code."""
    files = sorted(p.relative_to(release_dir).as_posix() for p in release_dir.rglob("*") if p.is_file())
    if files != [assignment.notebook_name]:
        extra = sorted(set(files) - {assignment.notebook_name})
        raise KitError(
            f"{release_dir} holds files that are not part of the release: {extra}. nbgrader copies every "
            f"non-notebook file of source/{assignment.name}/ into the release; only the notebook belongs there"
        )
    path = release_dir / assignment.notebook_name
    text = path.read_text()
    notebook = json.loads(text)
    cell = bundle_cell(notebook)
    if cell is None:
        raise KitError(f"{path} has no self-check cell (its first line: {BUNDLE_MARKER!r})")
    bundle = files_of_cell(cell)
    check_bundle(assignment, bundle, path)
    secrets = solution_lines(assignment)
    markers = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN, "grade_in_notebook", "autograder.deliver")
    for where, content in [(str(path), text)] + [(f"{path} [bundle: {name}]", body) for name, body in bundle.items()]:
        for marker in markers:
            if marker in content:
                raise KitError(f"{where} contains {marker!r}: hidden material leaked")
        for line in secrets:
            if line in content:
                raise KitError(f"{where} contains the solution line {line!r}")


def check_bundle(assignment: Assignment, bundle: dict[str, str], where: Path) -> None:
    """The bundle holds the public engine and the probes as they are, the visible data, and its own glue."""
    public = {f"public/{p.name}": p.read_text() for p in PUBLIC.glob("*.py")}
    probes = {f"course/{assignment.name}/probes.py": assignment.probes_path.read_text()}
    glue = {
        "__init__.py",
        "bootstrap.py",
        "visible.json",
        "course/__init__.py",
        f"course/{assignment.name}/__init__.py",
    }
    allowed = set(public) | set(probes) | glue
    unknown = sorted(set(bundle) - allowed)
    if unknown:
        raise KitError(f"{where}: the self-check bundle holds files that must not ship: {unknown}")
    for name, body in {**public, **probes}.items():
        if name in bundle and bundle[name] != body:
            raise KitError(f"{where}: the bundle's {name} differs from the kit's: run `python -m autograder build`")


def copy_release(release: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(release, target)
