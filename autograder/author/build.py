"""Build what students get from the instructor's one source per assignment.

The steps, in order (``python -m autograder build``):

1. ``stub_module``      the reference with its solutions cleared   -> assignments/<name>.py
2. ``visible_data``     the reference's outputs on the visible inputs, and its known
                        mistakes' outputs, for the self-checks
3. ``cell_source``      the self-check bundle, packed into one notebook cell
4. ``master_notebook``  lesson + exercises + checks + grade cells -> source/<name>/<name>.ipynb
5. ``release_digest``   a hash of everything that ends up in the release: the master as
                        nbgrader clears it (metadata included: points, locks, ids), nbgrader's
                        version and its configuration, recorded in the master's metadata
                        (which nbgrader copies into the release); the release is up to date
                        when it records the same hash, and only then is nbgrader not run
6. ``release_in``       real nbgrader generate_assignment         -> release/<name>/<name>.ipynb
7. ``check_release``    the release holds nothing secret
8. ``register``         the course's gradebook.db (the repository root is nbgrader's course)
                        holds the assignment as the master defines it, for nbgrader autograde
                        (written by step 6's nbgrader run where the release is made too)

source/ is rebuilt on demand and not committed; assignments/ and release/ are what
students receive and are committed. release/ is always exactly what nbgrader
generate_assignment makes of the master in source/. Floats that a reference run on
another CPU gives in other last digits never make a committed file change: the master
keeps the committed release's self-check cell when its visible data equal the new ones
within the graders' tolerances.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from importlib.metadata import version
from pathlib import Path

import nbformat

from .. import KIT_ROOT, assignments
from ..assignments import Assignment
from .blocks import _blocks_of, given_code_names, stub_module
from .bundle import bundle_files, cell_source, files_of_cell, packed_files
from .notebook import BEGIN_HIDDEN, METADATA_KEY, master_notebook, notebook_text
from .release import bundle_cell, check_release, copy_release, gradebook_url, register, registered, release_in
from .visible import equivalent, visible_data, visible_json

DIGEST_KEY = "release_digest"  # in the release's notebook metadata, under METADATA_KEY
NBGRADER_CONFIG = KIT_ROOT / "nbgrader_config.py"


def build(assignment: Assignment, course: Path = KIT_ROOT) -> list[str]:
    """Write the stubs, the master notebook and the release, and register the assignment in the
    course's gradebook; return what changed (paths from the repository)."""
    changed = []
    if _write(assignment.stub_path, stub_module(assignment)):
        changed.append(assignment.stub_path)
    made = master(assignment)
    _write(master_file(assignment), notebook_text(made))
    unregistered = not registered(assignment, made, course)
    if recorded_digest(assignment.release_dir / assignment.notebook_name) != made.metadata[METADATA_KEY][DIGEST_KEY]:
        # one nbgrader run makes the release and, where the gradebook needs it, registers the master there too
        # (a release the leak check then refuses leaves the gradebook holding that master: the next build mends both)
        into_gradebook = (f"--CourseDirectory.db_url={gradebook_url(course)}",) if unregistered else ()
        with tempfile.TemporaryDirectory() as scratch:
            release = release_in(assignment, notebook_text(made), Path(scratch), *into_gradebook)
            check_release(assignment, release)
            copy_release(release, assignment.release_dir)
        changed.append(assignment.release_dir)
    elif unregistered:
        register(assignment, made, course)
    if unregistered:
        changed.append(course / "gradebook.db")
    return [_relative(path) for path in changed]


def release_digest(assignment: Assignment, notebook: nbformat.NotebookNode) -> str:
    """A hash of everything that ends up in the release, computed from the sources alone.

    The master notebook's cells as nbgrader's ClearSolutions and ClearHiddenTests leave
    them (ids, types, sources, metadata: points, locks, grade ids), its notebook metadata
    (but the hash it records), nbgrader's major.minor version and the settings of
    nbgrader_config.py (its comments aside).
    """
    cells = [[cell.get("id"), cell.cell_type, _as_released(cell, assignment), cell.metadata] for cell in notebook.cells]
    ours = {key: value for key, value in notebook.metadata.get(METADATA_KEY, {}).items() if key != DIGEST_KEY}
    config = [
        line for line in NBGRADER_CONFIG.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    text = json.dumps(
        {
            "cells": cells,
            "metadata": {**notebook.metadata, METADATA_KEY: ours},
            "nbgrader": _feature_version(version("nbgrader")),
            "config": config,
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _feature_version(version: str) -> str:
    """nbgrader's major.minor: its patch releases change no release format, and the lock gives
    Python 3.10 another patch than 3.11 (0.9.5, 0.9.6), which must not make the release stale."""
    return ".".join(version.split(".")[:2])


def recorded_digest(release: Path) -> str | None:
    """The hash the committed release was built from, if it records one."""
    try:
        return json.loads(release.read_text())["metadata"][METADATA_KEY][DIGEST_KEY]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def given_away(assignment: Assignment) -> list[str]:
    """Lines for the instructor: exercises of other assignments that this one's release gives complete."""
    given = set(given_code_names(assignment))
    lines = []
    for other in assignments.discover().values():
        shared = [name for name in other.graded if name in given and other.name != assignment.name]
        if shared:
            lines.append(
                f"note: {assignment.name}'s release gives {', '.join(shared)} complete (given code), an exercise of "
                f"{other.name}: hand {assignment.name} out only after {other.name} is due"
            )
    return lines


def master(assignment: Assignment) -> nbformat.NotebookNode:
    """nbgrader's master notebook of the assignment, as the build makes it now, recording the hash of
    what ends up in its release (nbgrader copies the notebook's metadata into the release)."""
    notebook = master_notebook(assignment, fresh_bundle_cell(assignment))
    notebook.metadata[METADATA_KEY][DIGEST_KEY] = release_digest(assignment, notebook)
    return notebook


def write_master(assignment: Assignment) -> Path:
    """Write source/<name>/<name>.ipynb, nbgrader's master notebook, built now from the assignment's folder; its path.

    source/ is never committed, so a fresh clone has none until something builds it; every
    command that hands the master to nbgrader asks for it here rather than expecting it.
    """
    path = master_file(assignment)
    _write(path, notebook_text(master(assignment)))
    return path


def master_file(assignment: Assignment) -> Path:
    """Where the master notebook lies (written by ``write_master``)."""
    return assignment.source_dir / assignment.notebook_name


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
    if committed is not None and committed[1] == packed_files(files):
        return committed[0]  # same contents: keep the committed bytes (another zlib may pack them otherwise)
    return cell_source(assignment, files)


def stale(assignment: Assignment) -> list[str]:
    """Committed files the build would change now, found without running nbgrader (fast):
    the stubs where they differ from the reference's, the release where it records another
    hash of its sources than they give now."""
    problems = []
    if not assignment.stub_path.exists() or assignment.stub_path.read_text() != stub_module(assignment):
        problems.append(_relative(assignment.stub_path))
    release = assignment.release_dir / assignment.notebook_name
    if recorded_digest(release) != master(assignment).metadata[METADATA_KEY][DIGEST_KEY]:
        problems.append(_relative(release))
    return problems


def _as_released(cell: nbformat.NotebookNode, assignment: Assignment) -> str:
    """A master cell's source as nbgrader's ClearSolutions and ClearHiddenTests leave it."""
    if cell.get("id") in assignment.graded:
        return _stub_block(stub_module(assignment), cell.id)
    return cell.source.split("\n" + BEGIN_HIDDEN)[0]


def _stub_block(stubs: str, name: str) -> str:
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
