"""The feedback as Markdown (GitHub's flavour): feedback.md.

Every text from the results goes through results/text.py: prose, names and table cells
through md_text or md_name (backslash-escaped, on one line), messages through md_block
(fenced beyond any backtick run they hold). So the only headings, tables, links and
HTML in the file are the ones written here.
"""

from __future__ import annotations

from ...results.read import Results
from ...results.text import md_block, md_name, md_text
from .model import (
    DID_NOT_RUN,
    KIT_FAILED,
    NOT_GRADED,
    NOT_STARTED_LINE,
    NOTE_HEAD,
    SAME_FAILURE,
    STATE_MARKS,
    STATE_WORDS,
    Exercise,
    Feedback,
    carried_text,
    cases_text,
    check_cost,
    feedback,
    hidden_note,
    percent,
    points,
    score_text,
    share,
)


def render_markdown(results: Results, *, show_hidden: bool = False, student: str = "") -> str:
    """The student's feedback as Markdown, what to do first (inert however the results read)."""
    fb = feedback(results, show_hidden=show_hidden, student=student)
    out = [f"# {md_text(fb.headline)}", ""]
    if not fb.graded:
        out += [f"**Not graded.** {NOT_GRADED}", "", "Why:", "", md_block(fb.reason or "no reason was recorded"), ""]
    else:
        total = f"{score_text(fb.score, fb.max_score)} of {points(fb.max_score)} points"
        if fb.max_score:
            total += f" ({share(fb.score, fb.max_score)})"
        out += [f"**Total: {total}**", ""]
        if fb.late_text:
            out += [f"> {md_text(fb.late_text)}", ""]
        if fb.exercises:
            out += [md_text(fb.tally), ""]
    if fb.internal_errors:
        out += ["## The grading kit failed", "", md_text(KIT_FAILED), ""]
        for error in fb.internal_errors:
            out += [md_block(error), ""]
    if fb.graded and fb.exercises:
        out += _points_table(fb)
    elif fb.graded and fb.summary:
        out += ["## Summary", "", md_block(fb.summary), ""]
    out += _did_not_run(fb)
    out += _mistakes(fb)
    if fb.graded:
        out += _failed(fb)
        out += _checked(fb)
    if fb.details:
        out += ["---", "", " · ".join(f"{key}: {md_text(value)}" for key, value in fb.details), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _bar(score: float | None, max_score: float | None, cells: int = 10) -> str:
    filled = round(percent(score, max_score) / 100 * cells)
    return "█" * filled + "░" * (cells - filled)


def _points_table(fb: Feedback) -> list[str]:
    out = ["## Points per exercise", "", "| exercise | points | | result |", "|---|---:|---|---|"]
    for exercise in fb.exercises:
        out.append(
            f"| {md_name(exercise.name)} | {score_text(exercise.score, exercise.max_score)} / {points(exercise.max_score)} "
            f"| {_bar(exercise.score, exercise.max_score)} "
            f"| {STATE_MARKS[exercise.state]} {STATE_WORDS[exercise.state]} |"
        )
    out.append("")
    carried = [carried_text(exercise) for exercise in fb.exercises if exercise.carried]
    return out + ([f"- {md_text(text)}." for text in carried] + [""] if carried else [])


def _did_not_run(fb: Feedback) -> list[str]:
    if not fb.notes:
        return []
    out = ["## Code that did not run", "", "The rest of your code was loaded without it: fix these first.", ""]
    return out + [f"- {md_text(note)}" for note in fb.notes] + [""]


def _mistakes(fb: Feedback) -> list[str]:
    if not fb.mistakes:
        return []
    out = ["## Known mistakes in your code", ""]
    for mistake, where in fb.mistakes:
        place = f" (in {', '.join(md_name(name) for name in where)})" if where else ""
        out.append(f"- {md_name(mistake)}{place}: {md_text(fb.explanation(mistake))}")
    return out + [""]


def _failed(fb: Feedback) -> list[str]:
    if not fb.exercises:
        return []
    out = ["## Checks that failed", ""]
    if not fb.to_fix:
        return out + ["None: every check passed.", ""]
    not_started = [e for e in fb.to_fix if e.not_started]
    for exercise in not_started:
        out.append(f"- {md_name(exercise.name)}: {NOT_STARTED_LINE} ({_points_of(exercise)} points).")
    if not_started:
        out.append("")
    for exercise in fb.to_fix:
        if not exercise.not_started:
            out += _exercise_failures(fb, exercise)
    return out


def _points_of(exercise: Exercise) -> str:
    return f"{score_text(exercise.score, exercise.max_score)} of {points(exercise.max_score)}"


def _exercise_failures(fb: Feedback, exercise: Exercise) -> list[str]:
    out = [f"### {md_name(exercise.name)}: {_points_of(exercise)} points", ""]
    if exercise.did_not_run:
        out += [md_text(DID_NOT_RUN), ""]
    if exercise.note:
        out += [f"> **{NOTE_HEAD}:** {md_text(exercise.note)}", ""]
    said: set[str] = set()
    for check in exercise.failed:
        head = f"**{check_cost(check)}** · {md_text(check.title)}"
        if check.cases and not check.visible:
            head += f" · {cases_text(check)}"
        if not fb.shows_message(check):
            head += f" · {hidden_note(check)}"
        out += [head, ""]
        message = fb.message_of(check, said)
        if message == SAME_FAILURE:
            out += [md_text(message), ""]
        elif message:
            out += [md_block(message), ""]
    return out


def _checked(fb: Feedback) -> list[str]:
    """Every check, passed or not, and what the hidden checks cover: last, for reference."""
    out = ["## What was checked", ""]
    for exercise in fb.exercises:
        if not (exercise.checks or exercise.hidden_titles):
            continue
        out += [f"### {md_name(exercise.name)}", ""]
        for check in exercise.checks:
            kind = "notebook check" if check.visible else "hidden check"
            out.append(f"- {'✓' if check.passed and not check.lost else '✗'} {md_text(check.title)} ({kind})")
        others = exercise.untested_titles
        if others:
            cases = f" ({exercise.hidden_cases} cases)" if exercise.hidden_cases is not None else ""
            out.append(f"- the hidden checks{cases} also cover: " + "; ".join(md_text(title) for title in others))
        out.append("")
    return out if len(out) > 2 else []
