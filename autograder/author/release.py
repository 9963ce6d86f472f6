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
from pathlib import Path

from .. import KIT_ROOT
from ..assignment import BEGIN_SOLUTION, Assignment
from ..errors import KitError
from ..public.loader import BUNDLE_MARKER
from .blocks import END_SOLUTION, solution_lines
from .bundle import PUBLIC, files_of_cell
from .notebook import BEGIN_HIDDEN, END_HIDDEN


def nbgrader_env() -> dict[str, str]:
    """nbgrader runs the `alembic` script by name: put this environment's scripts first on PATH."""
    scripts = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": scripts + os.pathsep + os.environ.get("PATH", "")}


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


def release_in(assignment: Assignment, master: str, scratch: Path) -> Path:
    """The release nbgrader makes of a master notebook's text, in a scratch course; its folder."""
    source = scratch / "source" / assignment.name
    source.mkdir(parents=True)
    (source / assignment.notebook_name).write_text(master)
    run_nbgrader(assignment, scratch)
    (scratch / "gradebook.db").unlink(missing_ok=True)
    return scratch / "release" / assignment.name


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
