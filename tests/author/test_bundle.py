"""Is the self-check bundle the public engine, the probes and the visible data, packed into one cell and read back?"""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder import KIT_ROOT
from autograder.author import bundle, release
from autograder.public.loader import BUNDLE_MARKER


def bundle_of(notebook: Path) -> dict:
    return bundle.files_of_cell(release.bundle_cell(json.loads(notebook.read_text())))


def test_release_is_one_notebook_with_the_engine_packed_inside(assignment):
    """Is the notebook the only file of the release, its bundle the kit's public engine unchanged, and nothing else?"""
    assert [p.name for p in assignment.release_dir.iterdir()] == [assignment.notebook_name]
    files = bundle_of(assignment.release_dir / assignment.notebook_name)
    public = sorted(p.name for p in (KIT_ROOT / "autograder" / "public").glob("*.py"))
    assert sorted(name.split("/")[1] for name in files if name.startswith("public/")) == public
    assert files[f"course/{assignment.name}/probes.py"] == assignment.probes_path.read_text()


TINY = {
    "__init__.py": "from .inner import twice\n\n\ndef start(data):\n    return twice(data['x']), 'needs'\n",
    "inner/__init__.py": "from .core import twice  # noqa: F401\n",
    "inner/core.py": "def twice(value):\n    return 2 * value\n",
    "visible.json": '{"x": 21}',
}


@pytest.fixture
def served():
    """Run a bundle's cell as a notebook does; afterwards, take its finders and modules out of this process."""
    names = []

    def run(name: str, files: dict[str, str]) -> dict:
        names.append(f"selfcheck_{name}")
        namespace: dict = {}
        exec(bundle.cell_source(SimpleNamespace(name=name), files), namespace)
        return namespace

    yield run
    sys.meta_path[:] = [finder for finder in sys.meta_path if getattr(finder, "package", None) not in names]
    for module in [m for m in sys.modules if m.split(".")[0] in names]:
        del sys.modules[module]


def finders_of(package: str) -> int:
    return sum(getattr(finder, "package", None) == package for finder in sys.meta_path)


def test_the_cell_gives_back_the_files_it_packs():
    """Does reading the cell back give exactly the files packed, with the bootstrap beside them?"""
    source = bundle.cell_source(SimpleNamespace(name="tiny"), TINY)
    assert source.startswith(BUNDLE_MARKER)
    assert release.bundle_cell({"cells": [{"cell_type": "code", "source": source}]}) == source
    unpacked = bundle.files_of_cell(source)
    assert unpacked.pop("bootstrap.py") == bundle.BOOTSTRAP.strip() + "\n"
    assert unpacked == TINY


def test_the_cell_serves_its_modules_from_memory_and_leaves_only_check_and_needs(served):
    """Does running the cell import the package (subpackages too) from memory and define check and needs alone?"""
    namespace = served("tiny", TINY)
    assert (namespace["check"], namespace["needs"]) == (42, "needs")
    assert sorted(name for name in namespace if name != "__builtins__") == ["check", "needs"]
    core = sys.modules["selfcheck_tiny.inner.core"]
    assert core.__file__ == "<selfcheck>/inner/core.py" and sys.modules["selfcheck_tiny.inner"].__path__ is not None


def test_running_the_cell_again_serves_the_new_files_and_two_notebooks_do_not_clash(served):
    """Run twice (a rebuilt release), is the new code served by one finder; does another assignment's bundle keep its own?"""
    served("tiny", TINY)
    served("other", {**TINY, "inner/core.py": "def twice(value):\n    return -value\n"})
    again = served("tiny", {**TINY, "inner/core.py": "def twice(value):\n    return 3 * value\n"})
    assert again["check"] == 63 and finders_of("selfcheck_tiny") == 1
    assert sys.modules["selfcheck_other.inner.core"].twice(1) == -1 and finders_of("selfcheck_other") == 1


def test_the_bundle_holds_the_public_engine_the_probes_and_the_visible_data(mha):
    """Are the bundle's files every public module unchanged, the probes, the visible data given, and glue that registers the probes?"""
    files = bundle.bundle_files(mha, '{"visible": true}')
    public = {f"public/{path.name}": path.read_text() for path in (KIT_ROOT / "autograder" / "public").glob("*.py")}
    assert {name: body for name, body in files.items() if name.startswith("public/")} == public
    assert files["course/mha/probes.py"] == mha.probes_path.read_text()
    assert files["visible.json"] == '{"visible": true}'
    assert set(files) - set(public) == {
        "__init__.py",
        "course/__init__.py",
        "course/mha/__init__.py",
        "course/mha/probes.py",
        "visible.json",
    }
    assert "from .course.mha import probes" in files["__init__.py"]
    assert bundle.package_name(mha) == "selfcheck_mha"
