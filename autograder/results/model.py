"""What a grading found: plain data, from the checks' outcomes to the report of a submission."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction


@dataclass
class CheckResult:
    """One case of one check."""

    name: str  # the graded name
    check: str  # "<grader module>::<test function>": one check, possibly over several cases
    title: str  # what the check verifies
    case: str  # the case's id, "" when there is one
    passed: bool
    message: str = ""  # feedback, when it failed
    mistakes: list[str] = field(default_factory=list)  # ids of the known mistakes named
    weight: float = 1.0
    gate: bool = False  # failing it costs the name all its points
    internal_error: bool = False  # the grader itself broke: a bug of the kit, not of the student
    kind: str = "hidden"  # "hidden" (a grader) or "visible" (a check the student can run; no points)
    process_failure: bool = False  # the student's process died, hung or overflowed (not a wrong value)
    evidence: dict | None = field(default=None, repr=False)  # probe_id, inputs, got, keys: to name a mistake
    behaviour: str = ""  # a digest of what the code did, when it failed (grade/behaviour.py)
    carried: list[str] = field(default_factory=list)  # graded names the reference stood in for (error carried forward)


def by_check(results: list[CheckResult]) -> dict[str, list[CheckResult]]:
    """The results grouped by their check, each group's cases in order, checks in the order they first come."""
    groups: dict[str, list[CheckResult]] = {}
    for result in results:
        groups.setdefault(result.check, []).append(result)
    return groups


@dataclass
class CheckSummary:
    """One check over all its cases, with its points."""

    name: str
    check: str
    title: str
    kind: str
    passed: int
    total: int
    score: Fraction
    max_score: Fraction
    message: str  # feedback of the first failing case, or "passed (...)"
    mistakes: list[str] = field(default_factory=list)
    gate: bool = False
    internal_error: bool = False
    process_failure: bool = False
    behaviour: str = ""  # a digest of what the code did on the failing cases, "" when passed or unknown
    carried: list[str] = field(default_factory=list)  # graded names the reference stood in for (error carried forward)

    @property
    def status(self) -> str:
        return "passed" if self.passed == self.total else "failed"


@dataclass
class Report:
    assignment: str
    submission: str  # what was handed in, as the grader was given it
    checks: list[CheckSummary]
    entry: str = ""  # the file (or package) graded, within the submission
    notes: list[str] = field(default_factory=list)  # what loading the submission reported
    isolation: dict = field(default_factory=dict)  # {"tier", "limits", "why"}
    device: str = "cpu"
    device_why: str = ""  # why this device (--device auto's choice), "" when it was simply the one asked for
    seconds: float = 0.0
    mistake_messages: dict[str, str] = field(default_factory=dict)  # id -> what a student reads
    hidden_summary: dict = field(default_factory=dict)  # name -> {"cases", "titles"}
    order: tuple[str, ...] = ()  # the graded names, in the order students meet them
    not_started: frozenset[str] = frozenset()  # graded names whose code still raises its stub (grade/unfinished.py)

    @property
    def hidden(self) -> list[CheckSummary]:
        return [c for c in self.checks if c.kind == "hidden"]

    def graded_checks(self) -> list[CheckSummary]:
        """The hidden checks that carry points or failed: a gate that passed changed nothing, and its 0/0 says nothing."""
        return [check for check in self.hidden if check.max_score > 0 or check.status != "passed"]

    @property
    def score(self) -> Fraction:
        return sum((c.score for c in self.hidden), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((c.max_score for c in self.hidden), Fraction(0))

    def by_name(self) -> dict[str, tuple[Fraction, Fraction]]:
        """(score, max score) per graded name, in the contract's order."""
        table: dict[str, list[Fraction]] = {name: [Fraction(0), Fraction(0)] for name in self.order}
        for check in self.hidden:
            entry = table.setdefault(check.name, [Fraction(0), Fraction(0)])
            entry[0] += check.score
            entry[1] += check.max_score
        return {name: (s, m) for name, (s, m) in table.items()}

    def mistakes(self) -> list[str]:
        return sorted({m for check in self.hidden for m in check.mistakes})

    def unstarted(self) -> list[str]:
        """The graded names not started (their code still raises its stub) that earned nothing, in order."""
        return [name for name, (score, _) in self.by_name().items() if name in self.not_started and score == 0]

    def internal_errors(self) -> list[CheckSummary]:
        return [check for check in self.checks if check.internal_error]
