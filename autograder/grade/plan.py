"""The hidden graders, collected once and run for each submission without a pytest session.

Grader modules are pytest modules (``solutions/<name>/graders/test_*.py``): plain
pytest runs them too (grade/pytest_plugin.py). The kit reads them the way pytest does,
once per grader process, into a plan of checks, each one test function with one set
of parameters; grading a submission replays the plan. What a grader may use:

* ``GRADED = "<graded name>"`` at module level, naming what the module checks;
* test functions taking the fixtures ``student``, ``reference`` and ``submission``
  and their parameters;
* the marks ``parametrize`` (argument names, values, ``ids``, ``pytest.param``),
  ``weight(w)`` and ``gate``.

Anything else is refused when the plan is made, with the reason: a grader the kit
would run differently from pytest must not exist.
"""

from __future__ import annotations

import codecs
import enum
import importlib
import inspect
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..assignments import Assignment
from ..errors import KitError

FIXTURES = ("student", "reference", "submission")
MARKS = ("parametrize", "weight", "gate")


@dataclass(frozen=True)
class Check:
    """One test function with one set of parameters: pytest's test item."""

    name: str  # the graded name it checks
    module: str  # the grader module's file stem
    function_name: str
    title: str  # what it verifies, from the docstring's first line
    case: str  # the parameters' id, "" when there are none
    weight: float
    gate: bool
    function: Callable = field(compare=False, repr=False)
    arguments: dict = field(compare=False, repr=False, default_factory=dict)
    fixtures: tuple[str, ...] = ()

    @property
    def check(self) -> str:
        return f"{self.module}::{self.function_name}"

    @property
    def test_id(self) -> str:
        """The id pytest gives this item, relative to the graders folder."""
        return f"{self.module}.py::{self.function_name}" + (f"[{self.case}]" if self.case else "")

    def call(self, fixtures: dict) -> None:
        self.function(**{name: fixtures[name] for name in self.fixtures}, **self.arguments)


def collect(assignment: Assignment) -> list[Check]:
    """Every check of the assignment's graders, in pytest's order (file, then definition order)."""
    checks: list[Check] = []
    files = sorted(assignment.graders_dir.glob("test_*.py"))
    if not files:
        raise KitError(f"{assignment.graders_dir} holds no grader (test_*.py)")
    for path in files:
        module = importlib.import_module(f"{assignment.package}.graders.{path.stem}")
        graded = getattr(module, "GRADED", None)
        if graded not in assignment.graded:
            raise KitError(
                f"{path}: set GRADED to the graded name it checks, one of {', '.join(assignment.graded)}; it is {graded!r}"
            )
        for attribute, function in list(vars(module).items()):
            if attribute.startswith("test") and inspect.isfunction(function) and function.__module__ == module.__name__:
                checks += _items(path, graded, attribute, function)
    names = {check.name for check in checks}
    missing = [name for name in assignment.graded if name not in names]
    if missing:
        raise KitError(
            f"no grader checks {', '.join(missing)}: every graded name needs at least one check in {assignment.graders_dir}"
        )
    _refuse_weightless(assignment, checks)
    return checks


def _refuse_weightless(assignment: Assignment, checks: list[Check]) -> None:
    """Every graded name's points must rest on some check: a name whose checks are all gates or
    weigh 0 would have nothing to split its points by."""
    for name in assignment.graded:
        mine = [check for check in checks if check.name == name]
        if not any(check.weight > 0 and not check.gate for check in mine):
            files = ", ".join(sorted({f"{assignment.graders_dir / check.module}.py" for check in mine}))
            raise KitError(
                f"{files}: every check of {name} is a gate or has weight 0, so its {assignment.points[name]:g} points "
                f"rest on nothing; give one of its checks a weight above 0 (@pytest.mark.weight(1), the default) "
                f"that is not a gate"
            )


def _items(path, graded: str, attribute: str, function) -> list[Check]:
    where = f"{path.name}::{attribute}"
    marks = list(getattr(function, "pytestmark", []))
    for mark in marks:
        if mark.name not in MARKS:
            raise KitError(f"{where}: the mark {mark.name!r} is not one the kit runs ({', '.join(MARKS)})")
    weight = next((float(m.args[0]) for m in marks if m.name == "weight"), 1.0)
    gate = any(m.name == "gate" for m in marks)
    parameters = list(inspect.signature(function).parameters)
    sets = [_parameter_sets(where, mark) for mark in marks if mark.name == "parametrize"]
    argnames = [name for names, _ in sets for name in names]
    fixtures = tuple(p for p in parameters if p not in argnames)
    unknown = [p for p in fixtures if p not in FIXTURES]
    if unknown:
        raise KitError(
            f"{where}: graders may take only {', '.join(FIXTURES)} and their parameters, not {', '.join(unknown)}"
        )
    doc = (function.__doc__ or "").strip()
    title = doc.splitlines()[0].rstrip(".") if doc else attribute.removeprefix("test_").replace("_", " ")
    items = []
    for combination in itertools.product(*[cases for _, cases in sets]) if sets else [()]:
        arguments: dict[str, object] = {}
        ids: list[str] = []
        for (names, _), (values, case_id) in zip(sets, combination):
            arguments.update(zip(names, values))
            ids.append(case_id)
        items.append(
            Check(graded, path.stem, attribute, title, "-".join(ids), weight, gate, function, arguments, fixtures)
        )
    case_ids = [item.case for item in items]
    if len(set(case_ids)) != len(case_ids):
        raise KitError(f"{where}: two cases share an id; give each case an id of its own (ids=...)")
    return items


def _parameter_sets(where: str, mark) -> tuple[list[str], list[tuple[tuple, str]]]:
    """(argument names, [(values, id), ...]) of one parametrize mark, with pytest's ids."""
    argnames = mark.args[0]
    names = [n.strip() for n in argnames.split(",") if n.strip()] if isinstance(argnames, str) else list(argnames)
    raw = list(mark.args[1] if len(mark.args) > 1 else mark.kwargs["argvalues"])
    given = mark.kwargs.get("ids")
    if given is not None and not isinstance(given, (list, tuple)):
        given = list(given) if not callable(given) else None
    if set(mark.kwargs) - {"argvalues", "ids"}:
        raise KitError(f"{where}: parametrize takes only argument names, values and ids here")
    cases = []
    for index, value in enumerate(raw):
        own_id = None
        if type(value).__name__ == "ParameterSet":  # pytest.param(...)
            if value.marks:
                raise KitError(f"{where}: marks on a single case are not run by the kit")
            own_id, value = value.id, value.values
        elif len(names) == 1:
            value = (value,)
        else:
            value = tuple(value)
        if len(value) != len(names):
            raise KitError(f"{where}: case {index} has {len(value)} values for {len(names)} names")
        case_id = (
            own_id
            if own_id is not None
            else str(given[index])
            if given is not None
            else "-".join(_id_of(v, n, index) for v, n in zip(value, names))
        )
        cases.append((value, case_id))
    return names, cases


def _id_of(value, argname: str, index: int) -> str:
    """pytest's id of one parameter value: _pytest.python's _idval_from_value (the same from pytest 7 to 9),
    else the argument's name and index."""
    if isinstance(value, str):
        return value.encode("unicode_escape").decode("ascii")
    if isinstance(value, bytes):
        return codecs.escape_encode(value)[0].decode("ascii")
    if value is None or isinstance(value, (float, int, complex)):
        return str(value)
    if isinstance(value, re.Pattern):
        return _id_of(value.pattern, argname, index)
    if isinstance(value, enum.Enum):
        return str(value)
    if isinstance(getattr(value, "__name__", None), str):
        return value.__name__  # a class, a function (builtins too), a module
    return f"{argname}{index}"


def hidden_summary(plan: list[Check]) -> dict[str, dict]:
    """Per graded name: how many hidden cases, and the title of each hidden check."""
    summary: dict[str, dict] = {}
    for check in plan:
        entry = summary.setdefault(check.name, {"cases": 0, "titles": []})
        entry["cases"] += 1
        if check.title not in entry["titles"]:
            entry["titles"].append(check.title)
    return summary
