"""The lesson: Markdown with fenced cells, and what its demo cells need.

    ```{setup}             the imports cell (the reference's code outside the exercises is
                           put before what the fence holds)
    ```{exercise} NAME     an exercise cell, empty: its code comes from the reference
    ```{check} NAME        the visible check cell under it, e.g. check(split_heads)
    ```python              a demo cell
    +++                    splits prose into two Markdown cells

A demo cell that uses an exercise (directly, or through a name an earlier demo cell
made with one) gets a first line ``# needs: NAME, ...`` written by the build: in the
student's notebook it waits until those exercises pass their checks.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..assignment import Assignment
from ..errors import KitError
from ..public.notebook import NEEDS


@dataclass(frozen=True)
class LessonCell:
    kind: str  # "markdown", "code", "setup", "exercise", "check"
    text: str
    name: str | None = None  # the graded name, for exercise and check cells


FENCE = re.compile(r"^```(.*)$")


def parse_lesson(text: str, path: Path) -> list[LessonCell]:
    """Markdown with fenced cells: ```python, ```{setup}, ```{exercise} NAME, ```{check} NAME.

    Prose between fences is a markdown cell; a line ``+++`` splits prose into two cells.
    """
    cells: list[LessonCell] = []
    prose: list[str] = []

    def flush_prose():
        chunk = "\n".join(prose).strip("\n")
        if chunk.strip():
            cells.append(LessonCell("markdown", chunk))
        prose.clear()

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if lines[i].strip() == "+++":
            flush_prose()
        elif match and match.group(1).strip():
            flush_prose()
            info = match.group(1).strip()
            body = []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise KitError(f"{path}: the fence ```{info} is never closed")
            cells.append(_lesson_fence(info, "\n".join(body), path))
        else:
            prose.append(lines[i])
        i += 1
    flush_prose()
    return cells


def _lesson_fence(info: str, body: str, path: Path) -> LessonCell:
    if info == "python":
        return LessonCell("code", body)
    match = re.fullmatch(r"\{(setup|exercise|check)\}\s*(\w*)", info)
    if not match:
        raise KitError(
            f"{path}: unknown fence ```{info}; use ```python, ```{{setup}}, ```{{exercise}} NAME or ```{{check}} NAME"
        )
    kind, name = match.group(1), match.group(2) or None
    if kind in ("exercise", "check") and name is None:
        raise KitError(f"{path}: ```{{{kind}}} needs the graded name it is for: ```{{{kind}}} NAME")
    if kind == "exercise" and body.strip():
        raise KitError(f"{path}: ```{{exercise}} {name} must be empty: its code comes from the reference")
    return LessonCell(kind, body, name)


def check_contract(assignment: Assignment, lesson: list[LessonCell]) -> None:
    path = assignment.lesson_path
    if [c.kind for c in lesson].count("setup") != 1:
        raise KitError(f"{path}: needs exactly one ```{{setup}} fence (the reference's imports)")
    for kind in ("exercise", "check"):
        names = [c.name or "" for c in lesson if c.kind == kind]
        if sorted(names) != sorted(assignment.graded):
            raise KitError(
                f"{path}: each graded name needs exactly one ```{{{kind}}} NAME fence; "
                f"has {names}, the contract is {list(assignment.graded)}"
            )
    exercises = [c.name for c in lesson if c.kind == "exercise"]
    if exercises != list(assignment.graded):
        raise KitError(
            f"{path}: the exercises come in the order {exercises}; the contract (and their numbers) say {list(assignment.graded)}"
        )
    order = [(c.kind, c.name) for c in lesson if c.kind in ("exercise", "check")]
    for name in assignment.graded:
        if order.index(("exercise", name)) > order.index(("check", name)):
            raise KitError(f"{path}: the check of {name} comes before its exercise")


def with_needs(assignment: Assignment, cells: list[LessonCell]) -> list[LessonCell]:
    """Each demo cell with its "# needs:" line: the exercises it uses, directly or through earlier demos."""
    graded = list(assignment.graded)
    made_from: dict[str, set[str]] = {}  # a name a demo cell defined -> the exercises it was made with
    result = []
    for cell in cells:
        if cell.kind != "code":
            result.append(cell)
            continue
        body = "\n".join(line for line in cell.text.split("\n") if not NEEDS.match(line.strip()))
        try:
            tree = ast.parse(body)
        except SyntaxError as error:
            raise KitError(f"{assignment.lesson_path}: a demo cell does not parse ({error}):\n{body}") from None
        needs: set[str] = set()
        for statement in tree.body:  # statement by statement: `d_model = 8` needs nothing
            mine = {name for name in _reads(statement) if name in graded}
            for name in _reads(statement):
                mine |= made_from.get(name, set())
            for name in _defined(statement):
                # A binding makes the name anew (a demo's loops run); `x += ...` keeps what x was made from.
                keep = made_from.get(name, set()) if isinstance(statement, ast.AugAssign) else set()
                made_from[name] = keep | mine
            needs |= mine
        ordered = [name for name in graded if name in needs]
        text = (f"# needs: {', '.join(ordered)}\n" if ordered else "") + body.lstrip("\n")
        result.append(replace(cell, text=text))
    return result


def _reads(statement: ast.stmt) -> set[str]:
    """The names a statement reads: for an assignment, those of its value (and of its targets' indices);
    for other statements, the names it loads without binding them itself (a loop's variable is its own)."""
    loads = {node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return loads | (
            {statement.target.id}
            if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
            else set()
        )
    return loads - _defined(statement)


def _defined(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names
