"""The lesson: Markdown with fenced cells, and what its demo cells need.

    ```{setup}             the imports cell (the reference's code outside the exercises is
                           put before what the fence holds)
    ```{exercise} NAME     an exercise cell, empty: its code comes from the reference
    ```{check} NAME        the visible check cell under it, e.g. check(split_heads)
    ```{answer} ID         a written answer, graded by hand: a Markdown cell "YOUR ANSWER HERE"
                           under the question (the Markdown cell just above the fence); the
                           fence holds what a grader looks for, for the TA, never shipped;
                           its points are points.toml's [written] ID
    ```python              a demo cell
    +++                    splits prose into two Markdown cells

A demo cell that uses an exercise (directly, or through a name an earlier demo cell
made with one) gets a first line ``# needs: NAME, ...`` written by the build: in the
student's notebook it waits until those exercises pass their checks.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..assignments import Assignment
from ..errors import KitError
from ..public.notebook import NEEDS


@dataclass(frozen=True)
class LessonCell:
    kind: str  # "markdown", "code", "setup", "exercise", "check", "answer"
    text: str
    name: str | None = None  # the graded name, for exercise and check cells; the answer's id


@dataclass(frozen=True)
class Question:
    """A written answer: the question above its cell, what a grader looks for, and its points."""

    id: str
    prompt: str
    guide: str
    points: float


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
    match = re.fullmatch(r"\{(setup|exercise|check|answer)\}\s*(\w*)", info)
    if not match:
        raise KitError(
            f"{path}: unknown fence ```{info}; use ```python, ```{{setup}}, ```{{exercise}} NAME, ```{{check}} NAME "
            "or ```{answer} ID"
        )
    kind, name = match.group(1), match.group(2) or None
    if kind in ("exercise", "check") and name is None:
        raise KitError(f"{path}: ```{{{kind}}} needs the graded name it is for: ```{{{kind}}} NAME")
    if kind == "answer" and (name is None or not body.strip()):
        raise KitError(
            f"{path}: ```{{answer}} needs its id (a key of points.toml's [written]) and, inside, what a grader looks for"
        )
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
    answers = [c.name or "" for c in lesson if c.kind == "answer"]
    if sorted(answers) != sorted(assignment.written):
        raise KitError(
            f"{path}: each written answer needs exactly one ```{{answer}} ID fence; "
            f"has {answers}, points.toml's [written] has {list(assignment.written)}"
        )
    for before, cell in zip(lesson, lesson[1:]):
        if cell.kind == "answer" and before.kind != "markdown":
            raise KitError(f"{path}: ```{{answer}} {cell.name} must come right after its question, a Markdown cell")


def questions(assignment: Assignment) -> list[Question]:
    """The written answers of an assignment, in the lesson's order, each with its question."""
    lesson = parse_lesson(assignment.lesson_path.read_text(), assignment.lesson_path)
    check_contract(assignment, lesson)
    return [
        Question(cell.name or "", before.text, cell.text.strip(), assignment.written[cell.name or ""])
        for before, cell in zip(lesson, lesson[1:])
        if cell.kind == "answer"
    ]


def with_needs(assignment: Assignment, cells: list[LessonCell]) -> list[LessonCell]:
    """Each demo cell with its "# needs:" line: the exercises it uses, directly or through earlier demos.

    A waiting cell runs all or nothing, so every name a cell binds carries the needs of
    the whole cell: a later cell that reads one of them waits as long as this one does.
    """
    graded = list(assignment.graded)
    made_from: dict[str, set[str]] = {}  # a name a demo cell bound -> the exercises its cell needs
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
        # Statement by statement, what the cell needs: `d_model = 8; print(d_model)` needs nothing,
        # though an earlier cell made d_model with an exercise.
        flow = dict(made_from)
        needs: set[str] = set()
        bound: set[str] = set()
        for statement in tree.body:
            reads, binds = _reads(statement), _defined(statement)
            mine = {name for name in reads if name in graded}
            for name in reads:
                mine |= flow.get(name, set())
            for name in binds:
                # A binding makes the name anew (a demo's loops run); `x += ...` keeps what x was made from.
                keep = flow.get(name, set()) if isinstance(statement, ast.AugAssign) else set()
                flow[name] = keep | mine
            needs |= mine
            bound |= binds
        for name in bound:
            made_from[name] = set(needs)
        ordered = [name for name in graded if name in needs]
        text = (f"# needs: {', '.join(ordered)}\n" if ordered else "") + body.lstrip("\n")
        result.append(replace(cell, text=text))
    return result


def _reads(statement: ast.stmt) -> set[str]:
    """The global names a top-level statement reads: for an assignment, those of its value (and of its
    targets' indices, and ``x`` itself in ``x += ...``); for other statements, the names it loads
    without binding them itself (a loop's variable is its own). A function's parameters and locals,
    a lambda's arguments and a comprehension's variables are not globals."""
    reads = _scan(statement).reads
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        return reads | {statement.target.id}
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return reads
    return reads - _defined(statement)


def _defined(statement: ast.stmt) -> set[str]:
    """The global names a top-level statement binds (not the locals of the functions it defines)."""
    return _scan(statement).binds


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass
class _Globals:
    """The global names some code reads and binds, each name resolved in its scope as Python does.

    A scope is visited with ``local``, the names it binds itself, and ``enclosing``, the
    names local to the functions around it; a class body encloses nothing (its methods
    and comprehensions do not see its names). Written as an AST walk rather than with
    ``symtable``, whose scopes differ between Pythons (3.12 inlines comprehensions).
    """

    reads: set[str] = field(default_factory=set)
    binds: set[str] = field(default_factory=set)

    def visit(self, node: ast.AST, local: frozenset[str], enclosing: frozenset[str], in_function: bool) -> None:
        inner = enclosing | local if in_function else enclosing  # what a nested function sees around it
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                if node.id not in local and node.id not in enclosing:
                    self.reads.add(node.id)
            else:
                self._bind(node.id, local, enclosing)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(node.name, local, enclosing)
            around: list[ast.expr] = [*node.decorator_list]  # evaluated where the definition stands
            if isinstance(node, ast.ClassDef):
                around += [*node.bases, *(k.value for k in node.keywords)]
            else:
                around += [*_argument_defaults(node.args), *_annotations(node)]
            for expression in around:
                self.visit(expression, local, enclosing, in_function)
            if isinstance(node, ast.ClassDef):  # a class body sees its own names; its methods do not
                own, around_body, is_function = _scope_bindings(node.body), enclosing, False
            else:
                own, around_body, is_function = _scope_bindings(node.body) | _parameters(node.args), inner, True
            for statement in node.body:
                self.visit(statement, own, around_body, is_function)
        elif isinstance(node, ast.Lambda):
            for default in _argument_defaults(node.args):
                self.visit(default, local, enclosing, in_function)
            self.visit(node.body, _parameters(node.args), inner, True)
        elif isinstance(node, COMPREHENSIONS):
            first, *rest = node.generators
            self.visit(first.iter, local, enclosing, in_function)  # evaluated where the comprehension stands
            own = frozenset(_stored(g.target for g in node.generators))
            parts: list[ast.expr] = [first.target, *first.ifs]
            for generator in rest:
                parts += [generator.target, generator.iter, *generator.ifs]
            parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for part in parts:
                self.visit(part, own, inner, True)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    self._bind((alias.asname or alias.name).split(".")[0], local, enclosing)
        else:
            name = _pattern_or_handler_name(node)
            if name:
                self._bind(name, local, enclosing)
            for child in ast.iter_child_nodes(node):
                self.visit(child, local, enclosing, in_function)

    def _bind(self, name: str, local: frozenset[str], enclosing: frozenset[str]) -> None:
        if name not in local and name not in enclosing:  # the module's own, or declared global
            self.binds.add(name)


def _scan(statement: ast.stmt) -> _Globals:
    found = _Globals()
    found.visit(statement, frozenset(), frozenset(), False)
    return found


def _scope_bindings(body: list[ast.stmt]) -> frozenset[str]:
    """The names a function's or class's body binds in its own scope, less those it declares global or nonlocal."""
    bound: set[str] = set()
    declared: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)  # its body is a scope of its own
        elif isinstance(node, ast.Lambda):
            pass  # a scope of its own
        elif isinstance(node, COMPREHENSIONS):
            # A scope of its own, but an assignment expression inside it binds here.
            bound |= {n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        else:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            else:
                bound |= set(filter(None, [_pattern_or_handler_name(node)]))
            stack.extend(ast.iter_child_nodes(node))
    return frozenset(bound - declared)


def _pattern_or_handler_name(node: ast.AST) -> str | None:
    """The name ``except E as name`` or a ``match`` pattern binds."""
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name
    if isinstance(node, ast.MatchMapping):
        return node.rest
    return None


def _parameters(args: ast.arguments) -> frozenset[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
    return frozenset(a.arg for a in every)


def _argument_defaults(args: ast.arguments) -> list[ast.expr]:
    return [*args.defaults, *filter(None, args.kw_defaults)]


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
    return [a.annotation for a in every if a.annotation is not None] + ([function.returns] if function.returns else [])


def _stored(targets) -> set[str]:
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
