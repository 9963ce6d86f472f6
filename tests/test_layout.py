"""Does the import graph follow the pipeline and respect the trust boundary?

The folders of autograder/ are layers, from what ships to students up to the command
line. A layer may import only layers before it (so there are no cycles), and two
folders are boundaries: `public/` ships inside every release notebook, so it imports
nothing else of the kit; `sandbox/guest/` runs beside student code, so it imports only
itself and `public/`. The self-check bundle a release carries is checked the same way:
every import in it resolves inside the bundle or to a library.
"""

import ast
import sys
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.assignments import discover
from autograder.author.bundle import bundle_files

PACKAGE = KIT_ROOT / "autograder"

# Each layer may import the layers before it. Base modules first, front ends last.
LAYERS = [
    "autograder",  # KIT_ROOT and __version__ only
    "errors",
    "interrupts",
    "public",
    "sandbox",  # the package itself: its docstring
    "sandbox.guest",
    "sandbox.host",
    "config",
    "assignments",
    "results",
    "grade",
    "course",  # solutions/<name>/, imported as autograder.course.<name>: it imports grade.authoring only
    "author",
    # deliver/ is one layer: grade_all/batch.py runs class_view/ and routes/lms_grades.py, which read grade_all's class
    # folder and summary.csv back, so its folders have no order; its modules import one way (no cycle, tested below)
    "deliver",
    "synthetic",  # a class as grading leaves it, for the benchmark and the tests of the class views
    "doctor",
    "bench",
    "demo",
    "cli",
    "__main__",
]

# What shipped code may import besides itself: the standard library and these.
LIBRARIES = {"numpy", "torch", "matplotlib", "IPython"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(KIT_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool) -> set[str]:
    """The absolute module names a source imports (relative imports resolved against `module`)."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}  # `from . import x` imports a module x
    return found


def layer_of(name: str) -> str:
    """The layer of a module of the kit: autograder.sandbox.host.session -> sandbox.host."""
    parts = name.split(".")[1:]
    if not parts or parts[0] in ("KIT_ROOT", "__version__"):
        return "autograder"
    if parts[0] == "sandbox" and len(parts) > 1:
        return f"sandbox.{parts[1]}"
    return parts[0]


def kit_imports() -> dict[str, set[str]]:
    """Each kit module's imports of other layers of the kit."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        targets = imports(path.read_text(), name, path.name == "__init__.py")
        graph[name] = {t for t in targets if t == "autograder" or t.startswith("autograder.")}
    return graph


def test_every_folder_is_a_layer():
    """Is each module of the kit in a layer of LAYERS (a new folder must be placed in the pipeline)?"""
    unplaced = {name for name in kit_imports() if layer_of(name) not in LAYERS and name != "autograder"}
    assert not unplaced, f"place these in tests/test_layout.py's LAYERS: {sorted(unplaced)}"


def test_layers_import_only_earlier_layers():
    """Does each layer import only layers before it, so the pipeline has no cycles?"""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    backwards = []
    for module, targets in kit_imports().items():
        mine = layer_of(module)
        for target in targets:
            theirs = layer_of(target)
            if theirs in rank and theirs != mine and rank[theirs] > rank[mine]:
                backwards.append(f"{module} imports {target} ({mine} -> {theirs})")
    assert not backwards, "\n".join(backwards)


def runtime_imports(source: str, module: str, is_package: bool) -> set[str]:
    """imports() less those under ``if TYPE_CHECKING:`` (read by type checkers only, never run)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            node.body = [ast.Pass()]
    return imports(ast.unparse(tree), module, is_package)


def cycles_inside(folder: str) -> list[list[str]]:
    """The import cycles among the modules of one folder of the kit (imports inside functions, and those only type
    checkers read under ``if TYPE_CHECKING:``, included: a circle hidden there is a circle of the design)."""
    modules = {module_name(p): p for p in sorted((PACKAGE / folder).rglob("*.py"))}

    def module_of(target: str) -> str:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target

    def targets(name: str, path: Path) -> set[str]:
        found = imports(path.read_text(), name, path.name == "__init__.py")
        # `from . import x` reaches the submodule x, not the package's own __init__
        return {module_of(t) for t in found if not any(u.startswith(t + ".") and u in modules for u in found)}

    edges = {name: targets(name, path) - {"", name} for name, path in modules.items()}
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(edges[name]):
            if state.get(target) == "open":
                found.append(path[path.index(target) :] + [name, target])
            elif target not in state:
                visit(target, path + [name])
        state[name] = "done"

    for name in modules:
        if name not in state:
            visit(name, [])
    return found


def test_no_import_cycle_anywhere():
    """Do the kit's modules import one another one way only, across folders and inside them, inside functions and
    under TYPE_CHECKING too?"""
    assert cycles_inside("") == []


def deferred_imports(source: str) -> list[tuple[int, str]]:
    """The imports a source makes inside functions: (line number, the import's first line)."""
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.append((node.lineno, lines[node.lineno - 1].strip()))
    return sorted(set(found))


def test_deferred_imports_say_why():
    """Does every import inside a function say, in a '# here:' comment, what deferring it buys?

    An import belongs at the top of its module, where a reader sees what it needs. One is
    deferred only to keep an optional or slow library (PyTorch, nbgrader, matplotlib) out of
    the processes that do not need it, and the comment says which.
    """
    silent = [
        f"{path.relative_to(KIT_ROOT)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in deferred_imports(path.read_text())
        if "# here:" not in text
    ]
    assert silent == []


def test_deferred_imports_are_found():
    """Does the check above see imports nested in methods and branches, and read their comments?"""
    source = (
        "import os\n"
        "class A:\n"
        "    def f(self):\n"
        "        if os:\n"
        "            import json\n"
        "        import torch  # here: a reason\n"
    )
    assert deferred_imports(source) == [(5, "import json"), (6, "import torch  # here: a reason")]


def has_logic(source: str) -> bool:
    """Does a module define a function of its own (at top level, or a class's method)?"""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True
        if isinstance(node, ast.ClassDef) and any(
            isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body
        ):
            return True
    return False


def module_tests(path: Path) -> Path:
    """Where the tests of a kit module live: autograder/deliver/intake/canvas.py -> tests/deliver/intake/test_canvas.py."""
    relative = path.relative_to(PACKAGE)
    return KIT_ROOT / "tests" / relative.parent / f"test_{relative.name}"


def test_every_module_with_logic_has_its_test_module():
    """Does each kit module with a function of its own have tests/<its folder>/test_<its name>.py, importing it?

    Tests named for a behaviour that spans modules (the held-out, fairness and hostile sets,
    the routes) come in addition: they do not stand in for a module's own tests.
    """
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py") or not has_logic(path.read_text()):
            continue
        name, test = module_name(path), module_tests(path)
        found = imports(test.read_text(), module_name(test), False) if test.exists() else set()
        if not any(target == name or target.startswith(name + ".") for target in found):
            missing.append(f"{test.relative_to(KIT_ROOT)} (importing {name})")
    assert missing == []


def test_has_logic_tells_code_from_data():
    """Does the rule above count functions and methods, and not constants or a bare exception class?"""
    assert has_logic("def f():\n    pass\n")
    assert has_logic("class A:\n    def f(self):\n        pass\n")
    assert not has_logic('X = 1\nclass E(Exception):\n    """An error."""\n')
    assert (
        module_tests(PACKAGE / "deliver" / "intake" / "canvas.py") == KIT_ROOT / "tests/deliver/intake/test_canvas.py"
    )
    assert (
        module_tests(PACKAGE / "deliver" / "routes" / "nbgrader.py")
        == KIT_ROOT / "tests/deliver/routes/test_nbgrader.py"
    )


def course_modules() -> dict[str, Path]:
    """Every Python file of solutions/, under the name the kit imports it by (autograder.course.<name>...)."""
    root = KIT_ROOT / "solutions"
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        modules[".".join(["autograder", "course", *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path
    return modules


def allowed_for(module: str) -> set[str]:
    """What of the kit an assignment's file may import: the authors' face; probes the shipped engine."""
    if module.endswith(".probes"):
        return {"autograder.public"}  # probes ship inside the release: the public engine only
    if module.endswith(".conftest"):
        return {"autograder.grade.pytest_plugin"}  # plain pytest on graders/: the plugin's hooks
    return {"autograder.grade.authoring"}


def test_assignment_files_import_only_the_authors_face():
    """Do solutions/<name>/ files import the kit only through grade/authoring.py (probes: public/ only)?"""
    strays = []
    for module, path in course_modules().items():
        own = ".".join(module.split(".")[:3])  # autograder.course.<name>: the assignment's own files
        allowed = allowed_for(module)
        for target in runtime_imports(path.read_text(), module, path.name == "__init__.py"):
            if not target.startswith("autograder") or target.startswith(own) or target == "autograder.course":
                continue
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                strays.append(f"{path.relative_to(KIT_ROOT)} imports {target}")
    assert not strays, "\n".join(strays)


def test_grading_never_imports_authoring():
    """Does nothing grading runs (grade/, the sandbox, results/, and every assignment file it loads) import author/?"""
    graph = {
        name: runtime_imports(path.read_text(), name, path.name == "__init__.py")
        for name, path in course_modules().items()
    }
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        graph[name] = runtime_imports(path.read_text(), name, path.name == "__init__.py")
    start = [name for name in graph if layer_of(name) in ("grade", "course")]
    reached, todo = set(), list(start)
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += [t for t in graph.get(name, ()) if t in graph]
    assert sorted(n for n in reached if layer_of(n) == "author") == []


@pytest.mark.parametrize(
    "layer, allowed",
    [("public", {"public"}), ("sandbox.guest", {"sandbox.guest", "public"})],
)
def test_boundary_folders_import_only_their_side(layer, allowed):
    """Does shipped code (public/) import nothing else of the kit, and guest code nothing of the host?"""
    crossing = [
        f"{module} imports {target}"
        for module, targets in kit_imports().items()
        if layer_of(module) == layer
        for target in targets
        if layer_of(target) not in allowed
    ]
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize("assignment", discover().values(), ids=lambda a: a.name)
def test_the_release_bundle_imports_only_itself_and_libraries(assignment):
    """Does every module of the self-check bundle import only the bundle, the standard library and LIBRARIES?"""
    files = {path: text for path, text in bundle_files(assignment, "{}").items() if path.endswith(".py")}

    def module(path: str) -> str:
        return ".".join(["selfcheck", *path.removesuffix(".py").split("/")]).removesuffix(".__init__")

    inside = {module(path) for path in files}
    inside |= {name.rpartition(".")[0] for name in inside}
    outside = []
    for path, text in files.items():
        for target in imports(text, module(path), path.endswith("__init__.py")):
            top = target.split(".")[0]
            if target in inside or target.rpartition(".")[0] in inside:
                continue
            if top in LIBRARIES or top in sys.stdlib_module_names or top == "__future__":
                continue
            outside.append(f"{path} imports {target}")
    assert not outside, "\n".join(outside)
