"""Does the kit's code run on Python 3.10, the oldest Python it supports?

Gradescope's default image is Ubuntu 22.04, whose python3 is 3.10. No registry the course
machines reach ships a CPython 3.10 interpreter (Debian 12 has none; PyPI and npm offer
only installers that download one from elsewhere). Where a machine has one anyway (this
image's pyenv does), CI runs the whole suite on it as well (.ci/run). Everywhere, and for
code the tests do not reach, two static checks say whether 3.10 can run the kit:

- vermin says which Python each module, function, keyword argument and annotation needs
  (``import tomllib``: 3.11), over every .py file and every notebook's code cells;
- ruff parses the same code as Python 3.10 and reports syntax added later (``except*``,
  ``type X = ...``, f-strings that reuse their quotes).

A module newer than 3.10 needs a fallback vermin can see: a ``sys.version_info`` guard at
module level (vermin does not read try/except ImportError, nor guards inside a function)::

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import KIT_ROOT

TARGET = "3.10"
# What runs on the grader's Python: the kit, the references, the generated stubs, the
# tests with their held-out and hostile submissions, and the notebooks.
PATHS = ["autograder", "solutions", "assignments", "tests"]
NOTEBOOKS = ["release", "samples", "source", "tests"]


def notebook_code(notebooks: list[Path], into: Path) -> list[Path]:
    """Each notebook's code cells as a .py file under `into` (IPython's %magics and !shell lines blanked)."""
    written = []
    for index, notebook in enumerate(notebooks):
        cells = json.loads(notebook.read_text())["cells"]
        lines = []
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            lines += ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
            lines.append("")
        target = into / f"nb{index}_{notebook.stem}.py"
        target.write_text("\n".join(lines) + "\n")
        written.append(target)
    return written


def problems_on_3_10(paths: list[Path]) -> str:
    """What vermin and ruff find in `paths` that Python 3.10 cannot run ('' when nothing)."""
    vermin = shutil.which("vermin", path=str(Path(sys.executable).parent))
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if vermin is None or ruff is None:
        pytest.fail("vermin and ruff come with the kit's dev extra (requirements.lock): run `make test`")
    found = []
    done = subprocess.run(
        [vermin, f"--target={TARGET}-", "--violations", "--eval-annotations", "--no-tips", "--quiet", *map(str, paths)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        found.append(f"vermin (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    done = subprocess.run(
        [
            ruff,
            "check",
            "--select",
            "E9",
            "--target-version",
            "py" + TARGET.replace(".", ""),
            "--output-format",
            "concise",
            "--no-cache",
            "--isolated",
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        found.append(f"ruff (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return "\n".join(found)


@pytest.mark.slow
def test_code_runs_on_python_3_10(tmp_path):
    # The checks catch what they are here for: a 3.11 module without a fallback, 3.11 syntax...
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "needs_311_module.py").write_text("import tomllib\n\nprint(tomllib.loads(''))\n")
    assert "tomllib" in problems_on_3_10([probe / "needs_311_module.py"])
    (probe / "needs_311_syntax.py").write_text("try:\n    pass\nexcept* ValueError:\n    pass\n")
    assert "except*" in problems_on_3_10([probe / "needs_311_syntax.py"])
    # ...and accept the fallback the kit uses.
    (probe / "with_fallback.py").write_text(
        "import sys\n\nif sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli as tomllib\n"
    )
    assert problems_on_3_10([probe / "with_fallback.py"]) == ""

    notebooks = sorted({path for folder in NOTEBOOKS for path in (KIT_ROOT / folder).rglob("*.ipynb")})
    assert notebooks, "no notebooks found"
    cells = tmp_path / "notebooks"
    cells.mkdir()
    paths = [KIT_ROOT / path for path in PATHS] + notebook_code(notebooks, cells)
    assert problems_on_3_10(paths) == ""
