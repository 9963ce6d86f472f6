"""Is the self-check bundle the public engine, the probes and the visible data, packed into one cell and read back?"""

import json
from pathlib import Path

from autograder import KIT_ROOT
from autograder.author import bundle, release


def bundle_of(notebook: Path) -> dict:
    return bundle.files_of_cell(release.bundle_cell(json.loads(notebook.read_text())))


def test_release_is_one_notebook_with_the_engine_packed_inside(assignment):
    """Is the notebook the only file of the release, its bundle the kit's public engine unchanged, and nothing else?"""
    assert [p.name for p in assignment.release_dir.iterdir()] == [assignment.notebook_name]
    files = bundle_of(assignment.release_dir / assignment.notebook_name)
    public = sorted(p.name for p in (KIT_ROOT / "autograder" / "public").glob("*.py"))
    assert sorted(name.split("/")[1] for name in files if name.startswith("public/")) == public
    assert files[f"course/{assignment.name}/probes.py"] == assignment.probes_path.read_text()
