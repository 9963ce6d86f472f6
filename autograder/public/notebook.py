"""Self-checks in the student's notebook: ``check(split_heads)`` and the demos' ``# needs:`` line.

The release notebook's first code cell holds the self-check bundle (this engine, the
assignment's probes and its visible data) and makes ``check`` and ``needs`` from it.
Nothing here raises into the notebook: a failed check prints what is wrong and where
to look, and Run All goes on to the next cell.

A demo cell whose first line is ``# needs: Embeddings, MultiHeadAttention`` runs only
once those exercises pass their visible checks, judged again whenever their code or
the code of an exercise they call changes, and once every name it reads is defined;
until then it says what it waits for and what to fix: an exercise that passes only
with the reference standing in for one it calls names that one. Under ``nbgrader
autograde`` it does not run at all, unless it defines an exercise (a student's code
written there): it earns no points, and the hidden cells that follow grade the
exercises (a correct notebook's demos, the training run among them, are most of its
autograde's time).
"""

from __future__ import annotations

import ast
import builtins
import os
import re

from .probing import FRAME_NAMES, Implementation
from .selfcheck import VisibleChecks, exercises_called, globals_of, not_started, report

NEEDS = re.compile(r"^#\s*needs:\s*(.*)$")
# nbgrader autograde sets NBGRADER_EXECUTION=autograde in the kernel, for cells to skip there (its FAQ).
AUTOGRADING = (
    "This cell does not run while nbgrader autogrades the notebook: a demonstration earns no points, and the "
    "hidden cells grade the exercises themselves."
)


class SelfCheck:
    """check() and needs() of one assignment's visible checks.

    A verdict (whether an exercise passes its visible checks, run with the exercises it
    calls as they are) is kept for one version of its code and of the code of every
    exercise it calls: a demo that waits for MultiHeadAttention runs as soon as the
    split_heads it calls is fixed, with no need to run MultiHeadAttention's cells again.
    """

    def __init__(self, data: dict):
        self.visible = VisibleChecks(data)
        # name -> (the code judged, (whether it passed, whether it is not started))
        self._passed: dict[str, tuple[tuple, tuple[bool, bool]]] = {}
        self._carried: dict[str, tuple[tuple, bool]] = {}  # name -> (the code judged, whether it passed so)
        self.check = self._notebook_check()

    def _notebook_check(self):
        """The notebook's check(), whose help names this assignment's exercises."""

        def check(*exercises, **unexpected):
            if unexpected or not exercises:
                given = ", ".join(
                    [*(getattr(e, "__name__", repr(e)) for e in exercises), *(f"{k}=" for k in unexpected)]
                )
                print(
                    f"check() takes only exercises, e.g. check({names[0]}) or check({', '.join(names[:2])}); not ({given})"
                )
                return
            for exercise in exercises:
                self.check_one(exercise)

        names = self.visible.names
        check.__doc__ = (
            f"Run the visible checks of each exercise given and print what they find: check({names[0]}), or "
            f"several at once, check({', '.join(names[:2])}). Give the function or class itself, not its name "
            f"in quotes. The exercises: {', '.join(names)}. It never raises: a check that fails says why."
        )
        return check

    def check_one(self, exercise) -> None:
        """Run the visible checks of one exercise (the function or class itself) and print them."""
        name = getattr(exercise, "__name__", "")
        if name not in self.visible.names:
            known = ", ".join(self.visible.names)
            print(f"check() takes one of the exercises themselves ({known}), not {exercise!r}")
            return
        failing = self.failing_callees(name, exercise)
        called = tuple(exercises_called(exercise, name, self.visible.names, globals_of(exercise)))
        impl = Implementation({name: exercise})
        outcomes = self.visible.run(impl, name, failing, called)
        passed, unstarted = all(o.passed for o in outcomes), not_started(outcomes)
        self._passed[name] = (self._version(name, exercise), (passed, unstarted))  # what demos wait for
        if failing and self.visible.carry_forward and not passed and not unstarted:
            again = self.visible.run_carried(impl, name, failing, globals_of(exercise), called)
            if sum(o.passed for o in again) > sum(o.passed for o in outcomes):
                outcomes = again
        print(report(name, outcomes, self.visible.hidden_summary(name), failing))

    def _version(self, name: str, exercise) -> tuple:
        """The code a verdict holds for: the exercise and every exercise it calls, as they are now."""
        called = exercises_called(exercise, name, self.visible.names, globals_of(exercise))
        return (exercise, *sorted(called.items(), key=lambda item: item[0]))

    def _kept(self, verdicts: dict, name: str, version: tuple):
        """The verdict kept for this version of the code, or None."""
        seen = verdicts.get(name)
        if seen is None or len(seen[0]) != len(version) or seen[0][0] is not version[0]:
            return None
        if any(a[0] != b[0] or a[1] is not b[1] for a, b in zip(seen[0][1:], version[1:])):
            return None
        return seen[1]

    def failing_callees(self, name: str, exercise) -> tuple[str, ...]:
        """The other exercises the code of ``exercise`` calls, directly or through them, that fail their own checks."""
        verdict = self._kept(self._passed, name, self._version(name, exercise))
        if verdict is not None and verdict[1]:
            return ()  # not started itself (its checks said so): nothing it calls is run
        called = exercises_called(exercise, name, self.visible.names, globals_of(exercise))
        return tuple(callee for callee in self.visible.names if callee in called and not self.passes(called[callee]))

    def passes(self, exercise) -> bool:
        """Whether an exercise passes its visible checks (run once per version of its code and its callees')."""
        name = getattr(exercise, "__name__", "")
        if name not in self.visible.names:
            return True  # not an exercise: nothing to wait for
        version = self._version(name, exercise)
        verdict = self._kept(self._passed, name, version)
        if verdict is None:
            outcomes = self.visible.run(Implementation({name: exercise}), name)
            verdict = (all(o.passed for o in outcomes), not_started(outcomes))
            self._passed[name] = (version, verdict)
        return verdict[0]

    def passes_carried(self, exercise, callees: tuple[str, ...]) -> bool:
        """Whether an exercise passes its visible checks with the reference standing in for ``callees``."""
        name = exercise.__name__
        version = self._version(name, exercise)
        verdict = self._kept(self._carried, name, version)
        if verdict is None:
            impl = Implementation({name: exercise})
            verdict = all(o.passed for o in self.visible.run_carried(impl, name, callees, globals_of(exercise)))
            self._carried[name] = (version, verdict)
        return verdict

    def needs(self, *exercises) -> bool:
        """True when every exercise given passes its visible checks; else say what it waits for, and False."""
        missing = [e for e in exercises if not self.passes(e)]
        if missing:
            print(self.waiting(missing))
        return not missing

    def waiting(self, missing: list) -> str:
        """What a demo waits for: each exercise that fails its checks, and, where it fails because an exercise it
        calls does, that exercise to fix (the blocker), saying whether the reference's would let it pass."""
        groups: dict[tuple, list[str]] = {}  # (callees failing, passes with the reference's) -> exercises
        for exercise in missing:
            name = getattr(exercise, "__name__", str(exercise))
            failing = self.failing_callees(name, exercise) if name in self.visible.names else ()
            carried = bool(failing) and self.visible.carry_forward and self.passes_carried(exercise, failing)
            groups.setdefault((failing, carried), []).append(name)
        to_fix = list(dict.fromkeys(callee for failing, _ in groups for callee in failing))
        parts, pending = [], []
        for (failing, carried), names in groups.items():
            one = len(names) == 1
            if not failing:
                names = [name for name in names if name not in to_fix]  # said where it is to fix
                if names:
                    parts.append(_listed(names))
            elif carried:
                verb = "passes its" if one else "pass their"
                parts.append(f"{_listed(names)}, which {verb} checks only with the reference's {_listed(failing)}")
            elif self.visible.carry_forward:
                verb = "fails its" if one else "fail their"
                parts.append(f"{_listed(names)}, which {verb} checks even with the reference's {_listed(failing)}")
            else:
                verb = "fails" if len(failing) == 1 else "fail"
                parts.append(f"{_listed(names)}, which call{'s' if one else ''} {_listed(failing)} ({verb} too)")
            if not (failing and carried):
                pending += names
        text = "This cell waits for " + ("; " if len(parts) > 1 and any("," in p for p in parts) else ", ").join(parts)
        verb = "passes its" if len(pending) == 1 else "pass their"
        if not to_fix:
            return f"{text}: run this cell again once {'it' if len(pending) == 1 else 'they'} {verb} checks."
        once = f" once {_listed(pending)} {verb} checks" if pending else ""
        return f"{text}: fix {_listed(to_fix)}, then run this cell again{once}."


def _listed(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def needed_names(source: str) -> list[str] | None:
    """The exercises a cell's first line says it needs, or None when it has no such line."""
    first = source.lstrip("\n").split("\n", 1)[0]
    match = NEEDS.match(first.strip())
    if match is None:
        return None
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def defined_names(source: str) -> set[str]:
    """The names a cell's own statements define (a def, a class, an assignment, an import): empty where it does not
    parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return found


def unbound_names(source: str, namespace: dict) -> list[str]:
    """The names a cell reads that nothing defines: not the cell itself (anywhere in it: an assignment, a
    def, an import, a loop's or a function's variable), not ``namespace``, not Python's builtins. Empty
    where the cell does not parse (running it says why)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    bound: set[str] = set()
    read: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read[node.id] = None
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return [name for name in read if name not in bound and name not in namespace and not hasattr(builtins, name)]


def not_made_yet(names: list[str]) -> str:
    """What a demo says when an earlier cell that makes what it reads has not run (it waited, or was skipped)."""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
    made = "is made" if len(names) == 1 else "are made"
    return (
        f"This cell needs {listed}, which {made} by a cell above it that has not run since (it waited, or was "
        f"skipped): run the cells above it that define {listed}, then this cell again."
    )


def setup_notebook(selfcheck: SelfCheck) -> None:
    """In IPython (Jupyter, Colab): guard the demo cells and name cells as Jupyter does."""
    try:
        from IPython import get_ipython  # here: the self-checks run outside IPython too (grading, plain Python)
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    FRAME_NAMES.append(_cell_name(shell))

    def wait_for_exercises(line: str, cell: str):
        autograding = os.environ.get("NBGRADER_EXECUTION") == "autograde"
        if autograding and not defined_names(shell.transform_cell(cell)) & set(selfcheck.visible.names):
            print(AUTOGRADING)  # a cell that defines an exercise (a student's) runs as it would otherwise
            return None
        names = [name.strip() for name in line.split(",") if name.strip()]
        missing = [name for name in names if name not in shell.user_ns]
        if missing:
            print(f"This cell waits for {', '.join(missing)}: run the cells above it first.")
            return None
        if not selfcheck.needs(*(shell.user_ns[name] for name in names)):
            return None
        unmade = unbound_names(shell.transform_cell(cell), shell.user_ns)
        if unmade:
            print(not_made_yet(unmade))
            return None
        shell.run_cell(cell, store_history=False)
        return None

    def guard(lines: list[str]) -> list[str]:
        names = needed_names("".join(lines))
        if names is None or not names:
            return lines
        # The cell magic runs the rest of the cell (without this line) once the exercises pass.
        return [f"%%selfcheck_needs {', '.join(names)}\n", *"".join(lines).lstrip("\n").split("\n", 1)[1:2]]

    shell.register_magic_function(wait_for_exercises, magic_kind="cell", magic_name="selfcheck_needs")
    if guard not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(guard)


def _cell_name(shell):
    def name(filename: str) -> str | None:
        number = getattr(shell.compile, "_filename_map", {}).get(filename)
        return f"cell In [{number}]" if number is not None else None

    return name
