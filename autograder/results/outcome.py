"""What grading one submission came to, and the one mapping from it to a status and an exit code.

Every route that grades a submission (``grade``, grade-all's workers, Gradescope's
run_autograder, which runs ``grade``, and the pytest front end) turns what happened
into an ``Outcome`` here, and nowhere else:

=================================================  ============  ===========  ====
what happened                                      status        results.json exit
=================================================  ============  ===========  ====
graded                                             graded        "graded"     0
graded, but a check of the kit itself broke        error         "error"      3
nothing gradable submitted (the student's fault)   not graded    "not graded" 2
the kit could not grade (host, set-up, any crash)  error         "not graded" 3
=================================================  ============  ===========  ====

Loading a submission in the sandbox goes in steps (sandbox/host/loading.py), and a
failure is mapped by the step it happened in: in the student's code, it fails the
checks (graded); before it, a notebook that does not parse or is over a bound is
nothing gradable (a SubmissionError), and a file the sandbox cannot read, or a step of
the kit's that died, is the kit's (a KitError).

A failure of the kit is never a score: results.json then has none (results/write.py),
and says "not graded" with the reason. ``grade --fail-under`` turns a graded outcome
into exit status 1 (cli.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import KitError
from ..public.loader import SubmissionError
from .model import Report
from .text import clean

GRADED, KIT_ERROR, NOT_GRADED = "graded", "error", "not graded"
EXIT_CODES = {GRADED: 0, NOT_GRADED: 2, KIT_ERROR: 3}
REASON_LIMIT = 300  # characters of the reason a table (summary.csv) shows


@dataclass(frozen=True)
class Outcome:
    """One submission's grading: its status, the report when it was graded, and why when it was not."""

    status: str  # GRADED, KIT_ERROR or NOT_GRADED
    report: Report | None = None  # None when nothing was graded
    message: str = ""  # why it was not graded, in full (results.json's reason); "" when graded

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    @property
    def student_fault(self) -> bool:
        """Is the submission itself the reason it was not graded (it scores 0), rather than the kit?"""
        return self.status == NOT_GRADED

    @property
    def reason(self) -> str:
        """Why it is not simply graded, on a table's line ("" when it is)."""
        if self.report is not None and self.status == KIT_ERROR:
            return "the kit failed on some checks: " + "; ".join(internal_errors(self.report))[:REASON_LIMIT]
        return clean(self.message, REASON_LIMIT)


def internal_errors(report: Report) -> list[str]:
    """One line per check that broke inside the kit, as results.json lists them."""
    return [f"{c.name}: {c.title}: {clean(c.message, 500)}" for c in report.internal_errors()]


def status_of(report: Report) -> str:
    """A grading's status: graded, or an error of the kit when any of its checks broke inside the kit."""
    return KIT_ERROR if report.internal_errors() else GRADED


def outcome_of(report: Report) -> Outcome:
    return Outcome(status_of(report), report)


def outcome_of_error(error: BaseException) -> Outcome:
    """The outcome of an exception raised while grading: the student's when nothing gradable was
    submitted, the kit's otherwise (the host, the set-up, or a bug: never the student's zero)."""
    if isinstance(error, SubmissionError):
        return Outcome(NOT_GRADED, message=str(error))
    if isinstance(error, KitError):
        return Outcome(KIT_ERROR, message=str(error))
    return Outcome(KIT_ERROR, message=f"{type(error).__name__}: {error}")


def not_gradable(message: str) -> Outcome:
    """The student's submission cannot be graded, for a reason found before any grader ran."""
    return Outcome(NOT_GRADED, message=message)
