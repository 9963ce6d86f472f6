"""From check results to points.

Each graded name's points (points.toml) are split across its checks by their weights;
a check over several cases earns its share times the fraction of cases that pass;
failing a gate check costs the name all its points. A gate earns nothing itself: it
decides, so a name whose code crashes earns nothing by not having called a built-in. Where
no check of a name weighs anything (all gates, or weight 0), its checks share its
points equally, a failing gate still costing them all (the kit's plan refuses such
graders; pytest's route may still meet one). Points are kept as exact
fractions, so the checks of a name add up to its points exactly (2/3 + 1/3 is 1, not
0.99999994), and are rounded only where they are shown.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from fractions import Fraction

from .model import CheckResult, CheckSummary, Report


def exact(value: float) -> Fraction:
    """A number from points.toml as the decimal it was written as (0.1 is 1/10)."""
    return Fraction(str(value))


def summarize(points: dict[str, float], results: list[CheckResult], names=None, **report_fields) -> Report:
    """The report of one grading; names limits the graded names expected (default: all of points)."""
    names = tuple(names or points)
    groups: dict[tuple[str, str, str], list[CheckResult]] = defaultdict(list)
    for result in results:
        groups[(result.kind, result.name, result.check)].append(result)
    weight_of_name: dict[str, Fraction] = defaultdict(Fraction)
    for (kind, name, _), cases in groups.items():
        if kind == "hidden":
            weight_of_name[name] += _weight(cases[0])
    missing = [name for name in names if name not in weight_of_name]
    if missing and results:
        raise RuntimeError(f"no grader checked {missing}: every graded name needs at least one check")
    checks_of_name = {name: sum(1 for kind, n, _ in groups if kind == "hidden" and n == name) for name in names}
    gated = {
        name
        for (kind, name, _), cases in groups.items()
        if kind == "hidden" and cases[0].gate and not all(c.passed for c in cases)
    }
    checks = []
    for name in names:
        for (kind, check_name, _), cases in groups.items():
            if check_name != name:
                continue
            share = (
                _share(points[name], cases[0], weight_of_name[name], checks_of_name[name])
                if kind == "hidden"
                else Fraction(0)
            )
            checks.append(_summary(name, kind, cases, share, gated=name in gated))
    return Report(checks=checks, order=names, **report_fields)


def _share(points: float, case: CheckResult, total_weight: Fraction, checks: int) -> Fraction:
    """A check's share of its name's points: by weight; equal shares where no check of the name weighs anything."""
    if total_weight == 0:
        return exact(points) / checks
    return exact(points) * _weight(case) / total_weight


def _weight(case: CheckResult) -> Fraction:
    return Fraction(0) if case.gate else exact(case.weight)


def _summary(name: str, kind: str, cases: list[CheckResult], share: Fraction, gated: bool) -> CheckSummary:
    passed = sum(c.passed for c in cases)
    failures = [c for c in cases if not c.passed]
    message = _message(failures[0], len(failures), len(cases)) if failures else f"passed ({_cases(len(cases))})"
    notes = [c.message for c in cases if c.passed and c.message]  # a check that only advises (it costs nothing)
    if not failures and notes:
        message += f"; note: {notes[0]}"
    score = Fraction(0) if gated else share * Fraction(passed, len(cases))
    if gated and not failures:
        message += f"; but {name} earns no points because a check it must pass failed"
    return CheckSummary(
        name=name,
        check=cases[0].check,
        title=cases[0].title,
        kind=kind,
        passed=passed,
        total=len(cases),
        score=score,
        max_score=share,
        message=message,
        mistakes=sorted({m for c in cases for m in c.mistakes}),
        gate=cases[0].gate,
        internal_error=any(c.internal_error for c in cases),
        process_failure=any(c.process_failure for c in failures),
        behaviour=_behaviour(failures),
        carried=sorted({n for c in cases for n in c.carried}),
    )


def _behaviour(failures: list[CheckResult]) -> str:
    """The failing cases' behaviours as one digest (each case by its id); "" when any is unknown."""
    if not failures or not all(c.behaviour for c in failures):
        return ""
    cases = "\n".join(f"{c.case}={c.behaviour}" for c in failures)
    return hashlib.sha256(cases.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _cases(n: int) -> str:
    return "1 case" if n == 1 else f"{n} cases"


def _message(first: CheckResult, failed: int, total: int) -> str:
    where = f" [{first.case}]" if first.case else ""
    head = f"failed {failed} of {_cases(total)}" if total > 1 else "failed"
    return f"{head}. First failure{where}: {first.message}"


_HEAD = re.compile(r"^failed(?: \d+ of \d+ cases?)?\. First failure(?: \[[^\]\n]*\])?: ")


def first_failure(message: str) -> str:
    """What a check's message says went wrong, without the counts and case _message puts first."""
    return _HEAD.sub("", message, count=1)


def points_text(value: Fraction) -> str:
    """Points as people read them: at most two decimals, no trailing zeros (37.37, 40, 0.5)."""
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def points_json(value: Fraction) -> float:
    """Points in a file: six decimals, enough to add back up."""
    return round(float(value), 6)
