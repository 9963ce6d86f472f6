"""What a submission is: which assignment it is for, and which of its cells are the release's own.

Both are read without running anything: from a notebook's metadata and the names its
code defines, and from the committed release notebook.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import assignments
from ..assignments import Assignment
from ..errors import KitError
from ..public import trees
from ..public.loader import NOTEBOOK_BYTES, SubmissionError, cell_digest, defined_names, find_entry


def demo_cell_digests(assignment: Assignment) -> tuple[str, ...]:
    """The release notebook's own demonstration cells (neither exercises nor grade cells)."""
    path = assignment.release_dir / assignment.notebook_name
    if not path.exists():
        return ()
    cells = json.loads(path.read_text()).get("cells", [])
    digests = set()
    for cell in cells:
        if cell.get("cell_type") == "code" and "nbgrader" not in cell.get("metadata", {}):
            source = cell.get("source", "")
            digests.add(cell_digest("".join(source) if isinstance(source, list) else source))
    return tuple(sorted(digests))


def infer_assignment(path: Path) -> Assignment:
    """The assignment a submission is for: from the notebook's metadata, else from the names it defines."""
    path = Path(path)
    known = assignments.discover()
    notebooks = [path] if path.suffix == ".ipynb" else _notebooks_in(path)[:50] if path.is_dir() else []
    for notebook in notebooks:
        try:
            if notebook.is_symlink() or notebook.stat().st_size > NOTEBOOK_BYTES:
                continue
            metadata = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError, RecursionError, AttributeError):
            continue
        name = metadata.get("autograder", {}).get("assignment") if isinstance(metadata, dict) else None
        if name in known:
            return known[name]
    scores = []
    refusals: set[str] = set()
    for assignment in known.values():
        try:
            entry = find_entry(path, assignment.graded)
            scores.append((len(defined_names(entry) & set(assignment.graded)), assignment.name))
        except SubmissionError as error:
            refusals.add(str(error))
            continue
    if not scores and len(refusals) == 1:
        raise SubmissionError(refusals.pop())  # the file itself, whatever the assignment (over a bound, no notebook)
    scores.sort(reverse=True)
    if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        raise KitError(f"cannot tell which assignment {path} is for; pass --assignment (one of {', '.join(known)})")
    return known[scores[0][1]]


def _notebooks_in(folder: Path) -> list[Path]:
    """The notebooks in a submitted folder, sorted; none from a folder nested deeper than the kit reads."""
    try:
        return [p for p in trees.regular_files(folder) if p.suffix == ".ipynb"]
    except trees.TreeTooDeep:
        return []
