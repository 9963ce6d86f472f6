"""The self-check bundle, packed into the release notebook's first code cell.

A student who has only the notebook (Colab, JupyterHub, a laptop) runs that cell and
gets ``check(...)`` and the demos' ``# needs:`` lines: the cell holds the kit's public
engine (autograder/public/, every module of it, unchanged), the assignment's probes,
and its visible data, compressed. Its modules are served from memory under a package
of the assignment's own (``selfcheck_<name>``), so two notebooks never clash, and
nothing is written to disk.

The bundle exists only inside the notebook: the engine's files live once, in
autograder/public/, and every build packs them again.
"""

from __future__ import annotations

import base64
import json
import textwrap
import zlib

from .. import KIT_ROOT
from ..assignments import Assignment
from ..public.loader import BUNDLE_MARKER

PUBLIC = KIT_ROOT / "autograder" / "public"

BOOTSTRAP = '''
def _start(files, package):
    """Serve the bundle's modules from memory as the package ``package``; return check and needs."""
    import importlib.abc
    import importlib.util
    import json
    import sys

    class Bundle(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name != package and not name.startswith(package + "."):
                return None
            stem = name[len(package) :].lstrip(".").replace(".", "/")
            is_package = (stem + "/__init__.py" if stem else "__init__.py") in files
            key = (stem + "/__init__.py" if stem else "__init__.py") if is_package else stem + ".py"
            if key not in files:
                return None
            spec = importlib.util.spec_from_loader(name, self, origin="<selfcheck>/" + key, is_package=is_package)
            spec.has_location = False
            return spec

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            key = module.__spec__.origin[len("<selfcheck>/") :]
            module.__file__ = module.__spec__.origin
            exec(compile(files[key], module.__file__, "exec"), module.__dict__)

    sys.meta_path[:] = [finder for finder in sys.meta_path if getattr(finder, "package", None) != package]
    finder = Bundle()
    finder.package = package
    sys.meta_path.insert(0, finder)
    for name in [name for name in sys.modules if name == package or name.startswith(package + ".")]:
        del sys.modules[name]
    return importlib.import_module(package).start(json.loads(files["visible.json"]))
'''


def package_name(assignment: Assignment) -> str:
    return f"selfcheck_{assignment.name}"


def bundle_files(assignment: Assignment, visible_json: str) -> dict[str, str]:
    """The bundle's files by path inside its package: the public engine, the probes, the visible data."""
    files = {f"public/{path.name}": path.read_text() for path in sorted(PUBLIC.glob("*.py"))}
    files["course/__init__.py"] = ""
    files[f"course/{assignment.name}/__init__.py"] = ""
    files[f"course/{assignment.name}/probes.py"] = assignment.probes_path.read_text()
    files["visible.json"] = visible_json
    files["__init__.py"] = textwrap.dedent(
        f'''\
        """The self-checks of the assignment {assignment.name}: check(...) and needs(...)."""
        from .course.{assignment.name} import probes  # noqa: F401  (registers the probes)
        from .public.notebook import SelfCheck, setup_notebook


        def start(data):
            selfcheck = SelfCheck(data)
            setup_notebook(selfcheck)
            return selfcheck.check, selfcheck.needs
        '''
    )
    return files


def packed_files(files: dict[str, str]) -> dict[str, str]:
    """What the cell packs: the bundle's files and the bootstrap that serves them."""
    return {**files, "bootstrap.py": BOOTSTRAP.strip() + "\n"}


def cell_source(assignment: Assignment, files: dict[str, str]) -> str:
    """The notebook cell that unpacks the bundle and defines check and needs."""
    files = packed_files(files)
    packed = base64.b64encode(zlib.compress(json.dumps(files, sort_keys=True).encode(), 9)).decode()
    chunks = "\n".join(f'    "{packed[i : i + 100]}"' for i in range(0, len(packed), 100))
    return "\n".join(
        [
            f'{BUNDLE_MARKER} {{ display-mode: "form" }}',
            "# It sets up check(...), which compares your code with the instructor's on a few small inputs,",
            "# and lets the demos wait until the exercises they use are done. Nothing in it needs reading:",
            f"# it holds the self-checks of this assignment, packed (the package {package_name(assignment)}).",
            "import base64 as _base64, json as _json, zlib as _zlib",
            "",
            f"_files = _json.loads(_zlib.decompress(_base64.b64decode(\n{chunks}\n)))",
            'exec(_files["bootstrap.py"])',
            f'check, needs = _start(_files, "{package_name(assignment)}")',
            "del _base64, _json, _zlib, _files, _start",
        ]
    )


CELL_METADATA = {"jupyter": {"source_hidden": True}, "cellView": "form"}  # code folded in Jupyter, a form in Colab


def files_of_cell(source: str) -> dict[str, str]:
    """The bundle's files, read back from its cell (for the leak check and the freshness test)."""
    body = source.split("b64decode(", 1)[1].split(")", 1)[0]
    packed = "".join(part.strip().strip('"') for part in body.split("\n") if part.strip())
    return json.loads(zlib.decompress(base64.b64decode(packed)))
