"""Self-checks in the student's notebook: ``check(split_heads)`` and the demos' ``# needs:`` line.

The release notebook's first code cell holds the self-check bundle (this engine, the
assignment's probes and its visible data) and makes ``check`` and ``needs`` from it.
Nothing here raises into the notebook: a failed check prints what is wrong and where
to look, and Run All goes on to the next cell.

A demo cell whose first line is ``# needs: Embeddings, MultiHeadAttention`` runs only
once those exercises pass their visible checks; until then it says what it waits for.
"""

from __future__ import annotations

import re

from .probing import FRAME_NAMES, Implementation
from .selfcheck import VisibleChecks, exercises_called, globals_of, report, stub_message

NEEDS = re.compile(r"^#\s*needs:\s*(.*)$")


class SelfCheck:
    """check() and needs() of one assignment's visible checks."""

    def __init__(self, data: dict):
        self.visible = VisibleChecks(data)
        self._passed: dict[str, tuple[object, bool]] = {}  # name -> (the object checked, whether it passed)

    def check(self, exercise, device: str = "cpu") -> None:
        """Run the visible checks of one exercise (the function or class itself: check(tokenize)) and print them."""
        name = getattr(exercise, "__name__", "")
        if name not in self.visible.names:
            known = ", ".join(self.visible.names)
            print(f"check() takes one of the exercises themselves ({known}), not {exercise!r}")
            return
        failing = self.failing_callees(name, exercise)
        impl = Implementation({name: exercise}, device=device)
        outcomes = self.visible.run(impl, name, failing)
        self._passed[name] = (exercise, all(o.passed for o in outcomes))  # its own run: what the demos wait for
        if failing and self.visible.carry_forward and not all(o.passed for o in outcomes):
            again = self.visible.run_carried(impl, name, failing, globals_of(exercise))
            if sum(o.passed for o in again) > sum(o.passed for o in outcomes):
                outcomes = again
        print(report(name, outcomes, self.visible.hidden_summary(name), failing))

    def failing_callees(self, name: str, exercise) -> tuple[str, ...]:
        """The other exercises the code of ``exercise`` calls, directly or through them, that fail their own checks."""
        if stub_message(exercise) is not None:
            return ()  # not done itself: nothing it calls is run
        called = exercises_called(exercise, name, self.visible.names, globals_of(exercise))
        return tuple(callee for callee in self.visible.names if callee in called and not self.passes(called[callee]))

    def passes(self, exercise) -> bool:
        """Whether an exercise passes its visible checks (run once per version of its code)."""
        name = getattr(exercise, "__name__", "")
        if name not in self.visible.names:
            return True  # not an exercise: nothing to wait for
        seen = self._passed.get(name)
        if seen is None or seen[0] is not exercise:
            outcomes = self.visible.run(Implementation({name: exercise}), name)
            self._passed[name] = (exercise, all(o.passed for o in outcomes))
        return self._passed[name][1]

    def needs(self, *exercises) -> bool:
        """True when every exercise given passes its visible checks; else say which do not, and False."""
        missing = [getattr(e, "__name__", str(e)) for e in exercises if not self.passes(e)]
        if missing:
            print(
                f"This cell waits for {', '.join(missing)}: run this cell again once "
                f"{'they pass their' if len(missing) > 1 else 'it passes its'} checks."
            )
        return not missing


def needed_names(source: str) -> list[str] | None:
    """The exercises a cell's first line says it needs, or None when it has no such line."""
    first = source.lstrip("\n").split("\n", 1)[0]
    match = NEEDS.match(first.strip())
    if match is None:
        return None
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def setup_notebook(selfcheck: SelfCheck) -> None:
    """In IPython (Jupyter, Colab): guard the demo cells and name cells as Jupyter does."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    FRAME_NAMES.append(_cell_name(shell))

    def wait_for_exercises(line: str, cell: str):
        names = [name.strip() for name in line.split(",") if name.strip()]
        missing = [name for name in names if name not in shell.user_ns]
        if missing:
            print(f"This cell waits for {', '.join(missing)}: run the cells above it first.")
            return None
        if selfcheck.needs(*(shell.user_ns[name] for name in names)):
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
