"""The assignments of the course, each discovered from its folder ``solutions/<name>/``.

An assignment is one folder, written by the instructor; nothing else in the kit names it:

    reference.py   the reference: each exercise's code between ### BEGIN SOLUTION and
                   ### END SOLUTION; the docstrings are the students' spec
    lesson.md      the notebook's text and demos (autograder/author/lesson.py)
    points.toml    points per exercise, and per written answer ([written])
    probes.py      how each exercise is called (public: ships to students)
    visible.py     the visible checks' inputs (their expected outputs ship)
    mistakes.py    known mistakes, as edits of the reference (never ships)
    graders/       the hidden graders, pytest modules (never ship)

Its graded names are the reference's exercises, in file order; its framework is
PyTorch when the reference imports torch, else NumPy. Stubs, notebooks and the
release are generated from these files.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType

from . import KIT_ROOT
from .errors import KitError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

BEGIN_SOLUTION = "### BEGIN SOLUTION"
WRITTEN = "written"  # points.toml's table of written answers, graded by hand
SOLUTIONS = KIT_ROOT / "solutions"
CARRY_FORWARD = "carry_forward"  # points.toml's switch of error carried forward (grade/carry.py)
FILES = ("reference.py", "lesson.md", "points.toml", "probes.py", "visible.py", "mistakes.py", "graders")


@dataclass(frozen=True)
class Assignment:
    name: str

    # ---------------------------------------------------------------- where its files are

    @property
    def folder(self) -> Path:
        return SOLUTIONS / self.name

    @property
    def reference_path(self) -> Path:
        return self.folder / "reference.py"

    @property
    def lesson_path(self) -> Path:
        return self.folder / "lesson.md"

    @property
    def points_path(self) -> Path:
        return self.folder / "points.toml"

    @property
    def probes_path(self) -> Path:
        return self.folder / "probes.py"

    @property
    def graders_dir(self) -> Path:
        return self.folder / "graders"

    @property
    def stub_path(self) -> Path:
        return KIT_ROOT / "assignments" / f"{self.name}.py"

    @property
    def source_dir(self) -> Path:
        return KIT_ROOT / "source" / self.name

    @property
    def release_dir(self) -> Path:
        return KIT_ROOT / "release" / self.name

    @property
    def notebook_name(self) -> str:
        return f"{self.name}.ipynb"

    @property
    def package(self) -> str:
        """The import name of its folder: autograder.course.<name>."""
        return f"autograder.course.{self.name}"

    def module(self, part: str) -> ModuleType:
        """Its ``probes``, ``visible`` or ``mistakes`` module."""
        return importlib.import_module(f"{self.package}.{part}")

    # ---------------------------------------------------------------- what it is

    @cached_property
    def graded(self) -> tuple[str, ...]:
        """The exercises: the reference's definitions that hold a solution region, in file order."""
        text = self.reference_path.read_text()
        lines = text.split("\n")
        names = []
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                if BEGIN_SOLUTION in body:
                    names.append(node.name)
        if not names:
            raise KitError(
                f"{self.reference_path} has no exercise: mark each one's code with {BEGIN_SOLUTION} ... ### END SOLUTION"
            )
        return tuple(names)

    @cached_property
    def framework(self) -> str:
        """'torch' when the reference imports PyTorch, else 'numpy': what the probes hand the student's code."""
        for node in ast.walk(ast.parse(self.reference_path.read_text())):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
                return "torch"
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
                return "torch"
        return "numpy"

    @cached_property
    def title(self) -> str:
        """The lesson's first heading."""
        for line in self.lesson_path.read_text().splitlines():
            match = re.match(r"#\s+(.+)", line)
            if match:
                return match.group(1).strip()
        return self.name

    @cached_property
    def _points_table(self) -> dict:
        """points.toml as read: a number per graded name, the [written] table and carry_forward."""
        path = self.points_path
        try:
            return tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise KitError(f"{path}: {error}") from None

    @cached_property
    def carry_forward(self) -> bool:
        """Whether a caller of a name that fails its own checks is also graded with the reference standing
        in for that name, earning the better of the two runs (points.toml's ``carry_forward``, true by default)."""
        value = self._points_table.get(CARRY_FORWARD, True)
        if not isinstance(value, bool):
            raise KitError(f"{self.points_path}: {CARRY_FORWARD} must be true or false, got {value!r}")
        return value

    @cached_property
    def points(self) -> dict[str, float]:
        """Points per graded name, from the table an instructor edits (points.toml)."""
        path = self.points_path
        table = {key: value for key, value in self._points_table.items() if key not in (CARRY_FORWARD, WRITTEN)}
        unknown = sorted(set(table) - set(self.graded))
        missing = [name for name in self.graded if name not in table]
        if unknown or missing:
            raise KitError(
                f"{path}: every graded name needs exactly one entry; "
                f"unknown: {unknown or 'none'}, missing: {missing or 'none'}"
            )
        for name, value in table.items():
            _check_points(path, name, value)
        return {name: float(table[name]) for name in self.graded}

    @cached_property
    def written(self) -> dict[str, float]:
        """Points per written answer (points.toml's [written] table), in the table's order: graded by hand.

        Each is a Markdown answer cell of the notebook (the lesson's ```{answer} ID fence),
        which nbgrader's formgrader and grade-all's answers page leave to a person.
        """
        path = self.points_path
        table = self._points_table.get(WRITTEN, {})
        if not isinstance(table, dict):
            raise KitError(f"{path}: [{WRITTEN}] must be a table of answer ids and their points")
        for answer, value in table.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", answer) or answer in self.graded:
                raise KitError(
                    f"{path}: written answer id {answer!r} must be letters, digits and '_' (starting with a letter), "
                    "and not the name of an exercise"
                )
            _check_points(path, f"{WRITTEN}.{answer}", value)
        return {answer: float(value) for answer, value in table.items()}

    @cached_property
    def demo_mistake(self) -> str:
        """The known mistake of the demo's sample submission (mistakes.py's DEMO)."""
        return self.module("mistakes").DEMO


def _check_points(path: Path, name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise KitError(f"{path}: points for {name} must be a number >= 0, got {value!r}")


def discover() -> dict[str, Assignment]:
    """Every folder of solutions/ that holds a reference.py, by name."""
    found = {}
    for folder in sorted(SOLUTIONS.iterdir()) if SOLUTIONS.is_dir() else []:
        if (folder / "reference.py").is_file() and folder.name.isidentifier():
            found[folder.name] = Assignment(folder.name)
    return found


def names() -> list[str]:
    return sorted(discover())


def get(name: str) -> Assignment:
    found = discover()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise KitError(f"unknown assignment {name!r}: the kit has {known} (folders of {SOLUTIONS} with a reference.py)")
    return found[name]
