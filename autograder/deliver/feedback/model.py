"""What a student's feedback says, in the order they act on it; markdown.py and page.py only render it.

From a results.json read by results/read.py (tolerant of missing or malformed keys):

1. the total and the points per exercise (an exercise not started says so); where the
   course's late policy took points off, the total after it, with the line saying why
   ("Submitted 10 h late (due ...): −10% of the points possible ...") and the points before it;
2. the code that did not run, each cell named by the exercise it defines (or its first
   line), with its error;
3. each known mistake named in the code, with its explanation and where it is;
4. the checks that failed, exercise by exercise: an exercise not started is one line;
   a hidden check with the points it lost, a notebook check with what it found (and no
   points: it carries none);
5. what every exercise's checks cover, passed or not, last.

A submission that was not graded says so, with the reason, instead of showing a score
of 0; a failure of the kit itself asks the student to tell the instructor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...public.carry import carried_note
from ...public.loader import note_defines
from ...results.read import CheckRecord, Results, line
from ...results.scoring import first_failure
from ...results.write import NOT_STARTED_WHY, SAME_FAILURE

FULL, PARTIAL, ZERO, NONE, NOT_STARTED = "full", "partial", "zero", "none", "not-started"
STATE_WORDS = {
    FULL: "full marks",
    PARTIAL: "partial",
    ZERO: "no points",
    NONE: "no points to earn",
    NOT_STARTED: "not started",
}
STATE_MARKS = {FULL: "✓", PARTIAL: "◐", ZERO: "✗", NONE: "–", NOT_STARTED: "○"}
EPSILON = 1e-9

NO_EXPLANATION = "no explanation was recorded for it"
NOT_GRADED = "Your submission was not graded, so it has no score yet: this is not a score of 0."
KIT_FAILED = (
    "The grading kit itself failed on the checks below. This is not a fault in your code, "
    "and the points of these checks may be wrong: please tell your instructor, and quote these lines."
)
NOT_STARTED_LINE = f"not started: {NOT_STARTED_WHY}"
NOTE_HEAD = "A note from your instructor"
DID_NOT_RUN = "Its cell did not run (see “Code that did not run” above): fix that first."


def state(score: float | None, max_score: float | None) -> str:
    if not max_score or max_score <= 0:
        return NONE
    score = score or 0.0
    if score >= max_score - EPSILON:
        return FULL
    return ZERO if score <= EPSILON else PARTIAL


def percent(score: float | None, max_score: float | None) -> float:
    if score is None or not max_score or max_score <= 0:
        return 0.0
    return max(0.0, min(100.0, 100.0 * score / max_score))


def points(value: float | None, places: int = 2) -> str:
    """37.5, 40, 0.67: at most two decimals, no trailing zeros."""
    if value is None:
        return "–"
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def score_text(score: float | None, top: float | None) -> str:
    """A score beside its maximum: 39.9999 of 40 reads 39.9999, not 40, and 0.001 reads 0.001, not 0."""
    text = points(score)
    if state(score, top) == PARTIAL and text in (points(top), "0"):
        text = points(score, 6)
    return text


def share(score: float | None, top: float | None) -> str:
    """82%; rounded down, so that only full marks read 100%."""
    return f"{math.floor(percent(score, top) + EPSILON)}%"


def lost_text(check: CheckRecord) -> str:
    text = points(check.lost)
    return points(check.lost, 6) if text == "0" and check.lost > EPSILON else text


def loses(check: CheckRecord) -> bool:
    """A check that cost points, or failed (a notebook check, a gate): what the student must look at."""
    return not check.passed or check.lost > EPSILON


@dataclass
class Exercise:
    name: str
    score: float | None
    max_score: float | None
    not_started: bool
    anchor: str
    checks: list[CheckRecord] = field(default_factory=list)
    did_not_run: bool = False  # a loading note says the cell that defines it raised
    hidden_cases: int | None = None
    hidden_titles: list[str] = field(default_factory=list)
    note: str = ""  # the instructor's note for the group of students whose code fails it this way

    @property
    def carried(self) -> list[str]:
        """The graded names the reference stood in for when this one was graded (error carried forward)."""
        return list(dict.fromkeys(name for check in self.checks for name in check.carried))

    @property
    def state(self) -> str:
        return NOT_STARTED if self.not_started else state(self.score, self.max_score)

    @property
    def failed(self) -> list[CheckRecord]:
        """Its checks that cost points or failed: hidden first (they carry the points), then the notebook's."""
        return [c for c in self.checks if loses(c) and not c.visible] + [
            c for c in self.checks if loses(c) and c.visible
        ]

    @property
    def mistakes(self) -> list[str]:
        """The known mistakes its failed checks name, each once."""
        return list(dict.fromkeys(m for c in self.failed for m in c.mistakes))

    @property
    def to_fix(self) -> bool:
        return bool(self.failed or self.did_not_run)

    @property
    def untested_titles(self) -> list[str]:
        """Hidden-check titles of the summary that no hidden check in the results carries."""
        shown = {c.title for c in self.checks if not c.visible}
        return [title for title in self.hidden_titles if title not in shown]


@dataclass
class Feedback:
    assignment: str
    student: str
    graded: bool
    reason: str
    score: float | None
    max_score: float | None
    exercises: list[Exercise]
    explanations: dict[str, str]
    loose_mistakes: list[str]  # named in the results but on none of the failed checks
    notes: list[str]
    internal_errors: list[str]
    submission: str
    device: str
    isolation: str
    show_hidden: bool
    summary: str  # the results' own text, shown only when there is nothing else
    late_line: str = ""  # what the late policy made of the submission's time ("" for nothing to say)
    raw_score: float | None = None  # the score before a late penalty; None where none was taken

    @property
    def late_text(self) -> str:
        """The late policy's line, and the points before and after it where it took some."""
        if not self.late_line or self.raw_score is None or self.score is None:
            return self.late_line
        return f"{self.late_line} {points(self.raw_score)} points before the penalty, −{points(self.raw_score - self.score)}."

    def shows_message(self, check: CheckRecord) -> bool:
        return check.visible or self.show_hidden

    def message_of(self, check: CheckRecord, said: set[str]) -> str:
        """The message to show under a failed check: "" where it is hidden or empty, SAME_FAILURE
        where a check above said the same (``said`` holds those, and gets this one)."""
        if not self.shows_message(check) or not check.message:
            return ""
        failure = first_failure(check.message)
        if failure in said:
            return SAME_FAILURE
        said.add(failure)
        return check.message

    def explanation(self, mistake: str) -> str:
        return self.explanations.get(mistake, "") or NO_EXPLANATION

    @property
    def mistakes(self) -> list[tuple[str, list[str]]]:
        """Each known mistake named, with the exercises whose failed checks name it (none for a loose one)."""
        found: dict[str, list[str]] = {}
        for exercise in self.exercises:
            for mistake in exercise.mistakes:
                found.setdefault(mistake, []).append(exercise.name)
        for mistake in self.loose_mistakes:
            found.setdefault(mistake, [])
        return list(found.items())

    @property
    def to_fix(self) -> list[Exercise]:
        return [e for e in self.exercises if e.to_fix]

    @property
    def headline(self) -> str:
        subject = f"{self.assignment} feedback" if self.assignment else "Feedback"
        return f"{subject} for {self.student}" if self.student else subject

    @property
    def tally(self) -> str:
        counts = {s: 0 for s in (FULL, PARTIAL, ZERO, NOT_STARTED)}
        for exercise in self.exercises:
            if exercise.state in counts:
                counts[exercise.state] += 1
        parts = [f"{counts[FULL]} with full marks", f"{counts[PARTIAL]} partial", f"{counts[ZERO]} with no points"]
        if counts[NOT_STARTED]:
            parts.append(f"{counts[NOT_STARTED]} not started")
        total = sum(counts.values())
        return f"{total} exercise{'' if total == 1 else 's'}: " + ", ".join(parts)

    @property
    def details(self) -> list[tuple[str, str]]:
        pairs = [
            ("submission", self.submission),
            ("assignment", self.assignment),
            ("device", self.device),
            ("isolation", self.isolation),
        ]
        return [(key, value) for key, value in pairs if value]


OTHER = "(other checks)"  # the exercise of a check whose name and tags give none


def _exercises(results: Results) -> list[Exercise]:
    exercises: dict[str, Exercise] = {}

    def exercise(name: str) -> Exercise:
        if name not in exercises:
            exercises[name] = Exercise(name, None, None, False, anchor=f"exercise-{len(exercises) + 1}")
        return exercises[name]

    for points_of in results.exercises:
        entry = exercise(points_of.name or OTHER)
        entry.score, entry.max_score, entry.not_started = points_of.score, points_of.max_score, points_of.not_started
    for check in results.checks:
        exercise(check.exercise or OTHER).checks.append(check)
    for name, titles in results.hidden_titles.items():
        exercise(name).hidden_titles = titles
    for name, cases in results.hidden_cases.items():
        exercise(name).hidden_cases = cases
    for name, note in results.cluster_notes.items():
        exercise(name).note = note
    for note in results.notes:
        defined = note_defines(note)
        if defined in exercises:
            exercises[defined].did_not_run = True
    return list(exercises.values())


def feedback(read: Results, *, show_hidden: bool = False, student: str = "") -> Feedback:
    """What the feedback says about a student's results."""
    exercises = _exercises(read)
    on_checks = {m for e in exercises for m in e.mistakes}
    loose = [m for m in read.mistakes if m not in on_checks]
    late = read.late
    penalised = late is not None and late.deducted > 0 and late.score is not None and read.score is not None
    return Feedback(
        assignment=read.assignment,
        student=line(student),
        graded=read.graded,
        reason=read.reason,
        score=late.score if penalised and late is not None else read.score,
        max_score=read.max_score,
        exercises=exercises,
        explanations=read.explanations,
        loose_mistakes=loose,
        notes=read.notes,
        internal_errors=read.internal_errors,
        submission=read.submission,
        device=read.device,
        isolation=read.isolation,
        show_hidden=show_hidden,
        summary=read.output,
        late_line=late.line if late is not None and read.graded else "",
        raw_score=read.score if penalised else None,
    )


def carried_text(exercise: Exercise) -> str:
    """What error carried forward did for an exercise, and what it asks of the student: '' when nothing."""
    if not exercise.carried:
        return ""
    return carried_note(exercise.name, exercise.carried) + ": its points do not count that mistake twice"


def hidden_note(check: CheckRecord) -> str:
    """When a hidden check's details are shown, where they are not shown here."""
    if check.visibility == "after_due_date":
        return "details after the due date"
    if check.visibility == "after_published":
        return "details once grades are published"
    return "details not shown"


def cases_text(check: CheckRecord) -> str:
    if check.cases is None:
        return ""
    passed, total = check.cases
    return f"{passed} of {total} case{'' if total == 1 else 's'} passed"


def check_cost(check: CheckRecord) -> str:
    """What a failed check cost: its lost points, or, for a check that carries none, what it is."""
    if check.visible:
        return "notebook check"
    if not check.max_score:
        return "all of the exercise's points"  # a gate: failing it costs its exercise everything
    return f"−{lost_text(check)} of {points(check.max_score)}"
