"""A student's feedback from their graded results: one self-contained HTML page and Markdown.

The input is a results dict in Gradescope's results.json format as the kit writes it
(see autograder/results/files.py): ``score``, ``tests[]`` and the kit's own figures in
``extra_data``. Any optional key may be missing or malformed; what is there is shown.

What a student reads, in this order: the total; the points per exercise with a bar
each (full, partial, none); the checks that lost points; then exercise by exercise the
visible checks with their messages and the hidden checks (what they cover, their points,
and their messages only with ``show_hidden``), each named mistake with its explanation;
the notes from loading the code. A submission that was not graded says so, with the
reason, instead of showing a score of 0; a failure of the kit itself asks the student to
tell the instructor.

Everything taken from the results is untrusted text (a message can quote the student's
output): terminal and bidirectional control characters are shown escaped (``\\x1b``),
each text is cut to a bounded length, and all of it is escaped for HTML or Markdown.
The page needs nothing else: no script (its Content-Security-Policy forbids any), no
external font, image or style sheet, so it opens offline and prints.
"""

from __future__ import annotations

import html
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MESSAGE_LIMIT", "render_html", "render_markdown", "write_feedback"]

from ..results.text import clean as _clean

MESSAGE_LIMIT = 4000  # characters of one message (a check's output, a note, an error)
NAME_LIMIT = 300  # characters of a name or a check's title
LIST_LIMIT = 100  # notes, errors or mistakes listed, at most


def clean(value, limit: int = MESSAGE_LIMIT) -> str:
    """Text from the results made safe to show: control characters escaped visibly, cut to limit."""
    return _clean(value, limit)


def _line(value, limit: int = NAME_LIMIT) -> str:
    """A name or title on one line."""
    return " ".join(clean(value, limit).split())


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _points(value: float | None, places: int = 2) -> str:
    """37.5, 40, 0.67: at most two decimals, no trailing zeros."""
    if value is None:
        return "–"
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _score(score: float | None, top: float | None) -> str:
    """A score beside its maximum: 39.9999 of 40 reads 39.9999, not 40, and 0.001 reads 0.001, not 0."""
    text = _points(score)
    if _state(score, top) == PARTIAL and text in (_points(top), "0"):
        text = _points(score, 6)
    return text


def _share(score: float | None, top: float | None) -> str:
    """82%; rounded down, so that only full marks read 100%."""
    return f"{math.floor(_percent(score, top) + _EPSILON)}%"


def _lost(check: Check) -> str:
    text = _points(check.lost)
    return _points(check.lost, 6) if text == "0" and check.lost > _EPSILON else text


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []


def _strings(value) -> list[str]:
    return [item for item in _list(value) if isinstance(item, str)]


# ------------------------------------------------------------------ what the page says


OTHER = "(other checks)"  # the exercise of a check whose name and tags give none
FULL, PARTIAL, ZERO, NONE = "full", "partial", "zero", "none"
STATE_WORDS = {FULL: "full marks", PARTIAL: "partial", ZERO: "no points", NONE: "no points to earn"}
STATE_MARKS = {FULL: "✓", PARTIAL: "◐", ZERO: "✗", NONE: "–"}
_EPSILON = 1e-9


def _state(score: float | None, max_score: float | None) -> str:
    if not max_score or max_score <= 0:
        return NONE
    score = score or 0.0
    if score >= max_score - _EPSILON:
        return FULL
    return ZERO if score <= _EPSILON else PARTIAL


def _percent(score: float | None, max_score: float | None) -> float:
    if score is None or not max_score or max_score <= 0:
        return 0.0
    return max(0.0, min(100.0, 100.0 * score / max_score))


@dataclass
class Check:
    exercise: str
    title: str
    score: float | None
    max_score: float | None
    passed: bool
    visible: bool
    visibility: str
    message: str
    cases: tuple[int, int] | None
    mistakes: list[str]
    anchor: str = ""

    @property
    def lost(self) -> float:
        if self.score is None or self.max_score is None:
            return 0.0
        return max(0.0, self.max_score - self.score)

    @property
    def lost_points(self) -> bool:
        return self.lost > _EPSILON or not self.passed


@dataclass
class Exercise:
    name: str
    score: float | None
    max_score: float | None
    anchor: str
    checks: list[Check] = field(default_factory=list)
    hidden_cases: int | None = None
    hidden_titles: list[str] = field(default_factory=list)
    note: str = ""  # the instructor's note for the group of students whose code fails it this way

    @property
    def state(self) -> str:
        return _state(self.score, self.max_score)

    @property
    def mistakes(self) -> list[str]:
        """The known mistakes its failed checks name, each once."""
        return list(dict.fromkeys(m for c in self.checks if c.lost_points for m in c.mistakes))


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
    loose_mistakes: list[str]  # named in the results but on none of the checks shown
    notes: list[str]
    internal_errors: list[str]
    submission: str
    device: str
    isolation: str
    show_hidden: bool
    summary: str  # the results' own text, shown only when there is nothing else

    @property
    def checks(self) -> list[Check]:
        return [check for exercise in self.exercises for check in exercise.checks]

    def shows_message(self, check: Check) -> bool:
        return check.visible or self.show_hidden

    def explanation(self, mistake: str) -> str:
        return self.explanations.get(mistake, "")


def _exercise_of(test: dict) -> tuple[str, str]:
    """(exercise, check title) of a test named "<exercise>: <title>" and tagged with the exercise."""
    name = test.get("name")
    name = name if isinstance(name, str) else ""
    tags = _strings(test.get("tags"))
    if tags:
        exercise = tags[0]
        title = name[len(exercise) + 2 :] if name.startswith(exercise + ": ") else name
    elif ": " in name:
        exercise, title = name.split(": ", 1)
    else:
        exercise, title = "", name
    return exercise, title


def _check(test: dict) -> Check:
    extra = _dict(test.get("extra"))
    exercise, title = _exercise_of(test)
    score, max_score = _number(test.get("score")), _number(test.get("max_score"))
    status = test.get("status")
    if status in ("passed", "failed"):
        passed = status == "passed"
    else:
        passed = score is not None and max_score is not None and score >= max_score - _EPSILON
    raw_visibility = test.get("visibility")
    visibility = raw_visibility if isinstance(raw_visibility, str) else ""
    kind = extra.get("kind")
    visible = kind == "visible" if kind in ("visible", "hidden") else visibility == "visible"
    cases = _list(extra.get("cases"))
    counts = None
    if len(cases) == 2 and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in cases):
        counts = (cases[0], cases[1])
    return Check(
        exercise=_line(exercise) or OTHER,
        title=_line(title) or "(untitled check)",
        score=score,
        max_score=max_score,
        passed=passed,
        visible=visible,
        visibility=visibility,
        message=clean(test.get("output")),
        cases=counts,
        mistakes=[_line(m) for m in _strings(extra.get("mistakes"))[:LIST_LIMIT]],
    )


def _capped(items: list, what: str) -> list[str]:
    lines = [clean(item) for item in items[:LIST_LIMIT]]
    if len(items) > LIST_LIMIT:
        lines.append(f"… and {len(items) - LIST_LIMIT} more {what}")
    return lines


def feedback(results: dict, *, show_hidden: bool = False, student: str = "") -> Feedback:
    """What the page says, read from a results dict (tolerant of missing or malformed keys)."""
    results = _dict(results)
    extra = _dict(results.get("extra_data"))
    checks = [_check(test) for test in _list(results.get("tests")) if isinstance(test, dict)]

    exercises: dict[str, Exercise] = {}

    def exercise(name: str) -> Exercise:
        if name not in exercises:
            exercises[name] = Exercise(name=name, score=None, max_score=None, anchor=f"exercise-{len(exercises) + 1}")
        return exercises[name]

    for name, points in _dict(extra.get("by_name")).items():
        entry = exercise(_line(name))
        if isinstance(points, dict):
            entry.score, entry.max_score = _number(points.get("score")), _number(points.get("max_score"))
        elif isinstance(points, (list, tuple)) and len(points) == 2:
            entry.score, entry.max_score = _number(points[0]), _number(points[1])
    for number, check in enumerate(checks, 1):
        check.anchor = f"check-{number}"
        exercise(check.exercise).checks.append(check)
    for entry in exercises.values():  # without by_name, an exercise's points are its checks'
        if entry.max_score is None and entry.checks:
            entry.score = sum(c.score or 0.0 for c in entry.checks)
            entry.max_score = sum(c.max_score or 0.0 for c in entry.checks)
    for name, summary in _dict(extra.get("hidden_summary")).items():
        entry = exercise(_line(name))
        summary = _dict(summary)
        cases = _number(summary.get("cases"))
        entry.hidden_cases = int(cases) if cases is not None and cases >= 0 else None
        entry.hidden_titles = [_line(t) for t in _strings(summary.get("titles"))[:LIST_LIMIT]]

    for name, note in _dict(extra.get("cluster_notes")).items():
        exercise(_line(name)).note = clean(note)

    explanations = {
        _line(key): clean(value) for key, value in list(_dict(extra.get("mistake_messages")).items())[: 10 * LIST_LIMIT]
    }
    on_checks = {m for c in checks if c.lost_points for m in c.mistakes}
    named = [_line(m) for m in _strings(extra.get("mistakes"))]
    loose = list(dict.fromkeys(m for m in named if m not in on_checks))[:LIST_LIMIT]

    score = _number(results.get("score"))
    max_score = _number(extra.get("max_score"))
    if max_score is None:
        tops = [e.max_score for e in exercises.values() if e.max_score is not None]
        max_score = sum(tops) if tops else None
    status = extra.get("status")
    graded = status != "not graded" if isinstance(status, str) else score is not None
    reason = clean(extra.get("error")) if not graded else ""

    return Feedback(
        assignment=_line(extra.get("assignment")),
        student=_line(student),
        graded=graded,
        reason=reason,
        score=score,
        max_score=max_score,
        exercises=[e for e in exercises.values() if e.name or e.checks],
        explanations=explanations,
        loose_mistakes=loose,
        notes=_capped(_list(extra.get("notes")), "notes"),
        internal_errors=_capped(_list(extra.get("internal_errors")), "errors"),
        submission=_line(extra.get("submission")),
        device=_line(extra.get("device")),
        isolation=_line(extra.get("isolation") or extra.get("sandbox")),
        show_hidden=show_hidden,
        summary=clean(results.get("output")),
    )


def _hidden_note(check: Check) -> str:
    if check.visibility == "after_due_date":
        return "This is a hidden check: its details are shown after the due date."
    if check.visibility == "after_published":
        return "This is a hidden check: its details are shown once grades are published."
    return "This is a hidden check: its details are not shown."


def _cases_text(check: Check) -> str:
    if check.cases is None:
        return ""
    passed, total = check.cases
    return f"{passed} of {total} case{'' if total == 1 else 's'} passed"


def _check_points(check: Check) -> str:
    return f"{_score(check.score, check.max_score)} / {_points(check.max_score)}"


def _untested_titles(exercise: Exercise) -> list[str]:
    """Hidden-check titles of the summary that no hidden check in the results carries."""
    shown = {c.title for c in exercise.checks if not c.visible}
    return [title for title in exercise.hidden_titles if title not in shown]


NO_EXPLANATION = "no explanation was recorded for it"
NOTE_HEAD = "A note from your instructor"
NOT_GRADED = "Your submission was not graded, so it has no score yet: this is not a score of 0."
KIT_FAILED = (
    "The grading kit itself failed on the checks below. This is not a fault in your code, "
    "and the points of these checks may be wrong: please tell your instructor, and quote these lines."
)


def _headline(fb: Feedback) -> str:
    subject = f"{fb.assignment} feedback" if fb.assignment else "Feedback"
    return f"{subject} for {fb.student}" if fb.student else subject


def _tally(fb: Feedback) -> str:
    counts = {state: 0 for state in (FULL, PARTIAL, ZERO)}
    for exercise in fb.exercises:
        if exercise.state in counts:
            counts[exercise.state] += 1
    parts = [
        f"{counts[FULL]} with full marks",
        f"{counts[PARTIAL]} partial",
        f"{counts[ZERO]} with no points",
    ]
    total = sum(counts.values())
    return f"{total} exercise{'' if total == 1 else 's'}: " + ", ".join(parts)


# ------------------------------------------------------------------ Markdown

# Characters that can start markup inside a line: emphasis, code, links, tags, entities,
# table cells, a heading's closing #s. (+, -, ( and ! do nothing where this text goes.)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")


def _md(text: str) -> str:
    """Inline Markdown text: every character that could start markup is backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _md_name(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
        return f"`{name}`"
    return _md(name) or "(unnamed)"


def _md_block(text: str) -> list[str]:
    """A fenced code block that no backtick run in text can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence, ""]


def _md_bar(score: float | None, max_score: float | None, cells: int = 10) -> str:
    filled = round(_percent(score, max_score) / 100 * cells)
    return "█" * filled + "░" * (cells - filled)


def render_markdown(results: dict, *, show_hidden: bool = False, student: str = "") -> str:
    """The student's feedback as Markdown (GitHub's flavour; inert however the results read)."""
    fb = feedback(results, show_hidden=show_hidden, student=student)
    out = [f"# {_md(_headline(fb))}", ""]
    if not fb.graded:
        out += [f"**Not graded.** {NOT_GRADED}", "", "Why:", ""]
        out += _md_block(fb.reason or "no reason was recorded")
    else:
        total = f"{_score(fb.score, fb.max_score)} of {_points(fb.max_score)} points"
        if fb.max_score:
            total += f" ({_share(fb.score, fb.max_score)})"
        out += [f"**Total: {total}**", ""]
        if fb.exercises:
            out += [_md(_tally(fb)), ""]
    if fb.internal_errors:
        out += ["## The grading kit failed", "", _md(KIT_FAILED), ""]
        for error in fb.internal_errors:
            out += _md_block(error)
    if fb.graded and fb.exercises:
        out += ["## Points per exercise", "", "| exercise | points | | result |", "|---|---:|---|---|"]
        for exercise in fb.exercises:
            out.append(
                f"| {_md_name(exercise.name)} | {_score(exercise.score, exercise.max_score)} / {_points(exercise.max_score)} "
                f"| {_md_bar(exercise.score, exercise.max_score)} "
                f"| {STATE_MARKS[exercise.state]} {STATE_WORDS[exercise.state]} |"
            )
        out.append("")
        out += _md_lost(fb)
    elif fb.graded and fb.summary:
        out += ["## Summary", ""] + _md_block(fb.summary)
    if fb.notes:
        out += ["## Notes from loading your code", ""]
        for note in fb.notes:
            out += _md_block(note)
    if fb.loose_mistakes:
        out += ["## Known mistakes found in your code", ""]
        for mistake in fb.loose_mistakes:
            out.append(f"- {_md_name(mistake)}: {_md(fb.explanation(mistake) or NO_EXPLANATION)}")
        out.append("")
    for exercise in fb.exercises:
        out += _md_exercise(fb, exercise)
    details = _details(fb)
    if details:
        out += ["---", "", " · ".join(f"{key}: {_md(value)}" for key, value in details), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _md_lost(fb: Feedback) -> list[str]:
    lost = [c for c in fb.checks if c.lost_points]
    out = ["## Where points were lost", ""]
    if not lost:
        return out + ["No check lost points.", ""]
    for check in lost:
        kind = "visible" if check.visible else "hidden"
        out.append(
            f"- {_md_name(check.exercise)}: {_md(check.title)} ({kind} check): "
            f"lost {_lost(check)} of {_points(check.max_score)}"
        )
    return out + [""]


def _md_exercise(fb: Feedback, exercise: Exercise) -> list[str]:
    if not exercise.checks and not exercise.hidden_titles and exercise.hidden_cases is None:
        return []
    out = [
        f"## {_md_name(exercise.name)}: {_score(exercise.score, exercise.max_score)} / {_points(exercise.max_score)}",
        "",
    ]
    for mistake in exercise.mistakes:
        out += [
            f"> **Known mistake in your code** {_md_name(mistake)}: {_md(fb.explanation(mistake) or NO_EXPLANATION)}",
            "",
        ]
    if exercise.note:
        out += [f"> **{NOTE_HEAD}:** {_md(exercise.note)}", ""]
    visible = [c for c in exercise.checks if c.visible]
    hidden = [c for c in exercise.checks if not c.visible]
    if visible:
        out += ["### Visible checks", ""]
        for check in visible:
            out += _md_check(fb, check)
    if hidden or exercise.hidden_titles or exercise.hidden_cases is not None:
        head = "### Hidden checks"
        if exercise.hidden_cases is not None:
            head += f" ({exercise.hidden_cases} case{'' if exercise.hidden_cases == 1 else 's'})"
        out += [head, ""]
        for check in hidden:
            out += _md_check(fb, check)
        others = _untested_titles(exercise)
        if others:
            out += ["They also cover:", ""] + [f"- {_md(title)}" for title in others] + [""]
    return out


def _md_check(fb: Feedback, check: Check) -> list[str]:
    """A passed check on one line; a failed one under its own heading, with what is known of why."""
    if not check.lost_points:
        line = f"- ✓ {_md(check.title)} ({_check_points(check)})"
        if not fb.shows_message(check) or not check.message:
            return [line, ""]
        if "\n" not in check.message:
            return [f"{line}: {_md(check.message)}", ""]
        return [line, ""] + _md_block(check.message)
    out = [f"#### ✗ {_md(check.title)} ({_check_points(check)})", ""]
    if check.cases:
        out += [_md(_cases_text(check)) + ".", ""]
    if fb.shows_message(check):
        if check.message:
            out += _md_block(check.message)
    else:
        out += [_md(_hidden_note(check)), ""]
    return out


def _details(fb: Feedback) -> list[tuple[str, str]]:
    pairs = [
        ("submission", fb.submission),
        ("assignment", fb.assignment),
        ("device", fb.device),
        ("isolation", fb.isolation),
    ]
    return [(key, value) for key, value in pairs if value]


# ------------------------------------------------------------------ HTML

_CSS = """
:root{--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#fff;--panel:#f6f8fa;--track:#e4e8ec;
--full:#1a7f37;--partial:#9a6700;--zero:#cf222e;--none:#57606a;--link:#0969da;
--warn-bg:#fff8c5;--warn-line:#bf8700;--bad-bg:#ffebe9;--bad-line:#cf222e;--tip-bg:#ddf4ff;--tip-line:#0969da;
color-scheme:light dark}
@media screen and (prefers-color-scheme:dark){:root{--ink:#e6edf3;--muted:#9da7b3;--line:#3d444d;--bg:#0d1117;
--panel:#161b22;--track:#30363d;--full:#3fb950;--partial:#d29922;--zero:#f85149;--none:#9da7b3;--link:#4493f8;
--warn-bg:#272115;--warn-line:#d29922;--bad-bg:#2d1517;--bad-line:#f85149;--tip-bg:#0c2136;--tip-line:#4493f8}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans",Arial,sans-serif;
overflow-wrap:anywhere}
main{max-width:54rem;margin:0 auto;padding:2rem 1.25rem 3rem}
a{color:var(--link)}
a.name{color:inherit;text-decoration:none}
a.name:hover,.lost-list a:hover{text-decoration:underline;text-decoration-color:currentColor}
h1{font-size:1.15rem;font-weight:600;margin:0 0 .25rem;color:var(--muted)}
h2{font-size:1.3rem;margin:2.25rem 0 .75rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1.25rem 0 .5rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
code,pre,.name{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace}
.name{font-size:.95em;font-weight:600}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem;line-height:1.45;background:var(--panel);
border:1px solid var(--line);border-radius:6px;padding:.65rem .8rem;margin:.5rem 0 0;max-width:100%}
.total{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem 1rem;margin:.25rem 0 .5rem}
.total .big{font-size:3rem;font-weight:700;line-height:1.1}
.total .of{font-size:1.35rem;color:var(--muted)}
.total .pct{font-size:1.35rem;font-weight:600}
.meter{height:.9rem;background:var(--track);border-radius:99px;overflow:hidden;border:1px solid var(--line);margin:.25rem 0 .6rem}
.meter span{display:block;height:100%;background:currentColor;border-radius:99px}
.tally{margin:0;color:var(--muted)}
.full{color:var(--full)}.partial{color:var(--partial)}.zero{color:var(--zero)}.none{color:var(--none)}
table{border-collapse:collapse;width:100%}
th,td{padding:.45rem .5rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
td.pts,th.pts{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.barcell{width:38%}
td .name{overflow-wrap:break-word}
.bar{height:.7rem;background:var(--track);border-radius:99px;overflow:hidden;border:1px solid var(--line)}
.bar span{display:block;height:100%;background:currentColor}
.badge{display:inline-block;white-space:nowrap;font-size:.85rem;font-weight:600;padding:.05rem .5rem;border-radius:99px;
border:1.5px solid currentColor}
.lost-list{list-style:none;padding:0;margin:0}
.lost-list li{display:flex;gap:.75rem;align-items:baseline;padding:.35rem 0;border-bottom:1px solid var(--line)}
.lost-list .minus{flex:none;min-width:7rem;font-weight:700;color:var(--zero);font-variant-numeric:tabular-nums}
.lost-list .minus small{font-size:.85rem;font-weight:400;color:var(--muted)}
.lost-list a{color:inherit;text-decoration:underline;text-decoration-color:var(--line);text-underline-offset:.15em}
.kind{font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);
border:1px solid var(--line);border-radius:4px;padding:0 .3rem;white-space:nowrap}
.exercise{margin-top:2rem}
.exercise h2{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;align-items:baseline}
.exercise h2 .pts{font-size:1rem;font-weight:600;font-variant-numeric:tabular-nums}
.check{border-left:4px solid var(--full);padding:.3rem .8rem;margin:.35rem 0}
.check.failed{border:1px solid var(--line);border-left:4px solid var(--zero);border-radius:6px;padding:.55rem .8rem;margin:.6rem 0}
.check:not(.failed) .title{font-weight:400}
.check-head{display:flex;gap:.6rem;align-items:baseline}
.check-head .mark{flex:none;font-weight:700;width:1.1rem}
.check-head .title{flex:1;font-weight:600}
.check-head .pts{flex:none;white-space:nowrap;font-variant-numeric:tabular-nums;color:var(--muted)}
.check p{margin:.35rem 0 0}
.muted{color:var(--muted)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.callout{border:1px solid;border-left-width:4px;border-radius:6px;padding:.6rem .85rem;margin:.6rem 0}
.callout p{margin:.2rem 0}
.mistake{background:var(--tip-bg);border-color:var(--tip-line)}
.note{background:var(--panel);border-color:var(--full)}.note p+p{white-space:pre-line}
.warn{background:var(--warn-bg);border-color:var(--warn-line)}
.bad{background:var(--bad-bg);border-color:var(--bad-line)}
.covers{margin:.1rem 0 0;padding-left:1.25rem;color:var(--muted)}
p.lead{margin:.6rem 0 0}
footer{margin-top:2.5rem;padding-top:.75rem;border-top:1px solid var(--line);color:var(--muted);font-size:.85rem}
footer span+span::before{content:" · "}
@media (max-width:40rem){main{padding:1.25rem .8rem 2rem}td.barcell,th.barcell{display:none}.total .big{font-size:2.4rem}}
@media print{body{font-size:10.5pt}main{max-width:none;padding:0}a{color:inherit;text-decoration:none}
h2{break-after:avoid}.check,.callout,tr,.lost-list li{break-inside:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"""


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def _h_name(name: str) -> str:
    """An identifier, escaped, that may wrap after an underscore or before a capital (scaled_dot_<wbr>product)."""
    escaped = _h(name)
    if not re.fullmatch(r"[A-Za-z0-9_.]+", name):
        return escaped
    return re.sub(r"(?<=_)(?=[^_])|(?<=[a-z])(?=[A-Z])", "<wbr>", escaped)


def _bar(css: str, score: float | None, max_score: float | None, label: str) -> str:
    width = _percent(score, max_score)
    return f'<div class="{css}" role="img" aria-label="{_h(label)}"><span style="width:{width:.1f}%"></span></div>'


def render_html(results: dict, *, show_hidden: bool = False, student: str = "") -> str:
    """The student's feedback as one self-contained HTML page (no script, no external asset)."""
    fb = feedback(results, show_hidden=show_hidden, student=student)
    body: list[str] = [f"<header>\n<h1>{_h(_headline(fb))}</h1>"]
    if not fb.graded:
        body.append('<div class="total"><span class="big">Not graded</span></div>')
        body.append(
            f'<div class="callout warn"><p><strong>{_h(NOT_GRADED)}</strong></p><p>Why:</p>'
            f"<pre>{_h(fb.reason or 'no reason was recorded')}</pre></div>"
        )
    else:
        state = _state(fb.score, fb.max_score)
        body.append(
            f'<div class="total"><span class="big" id="total">{_score(fb.score, fb.max_score)}</span>'
            f'<span class="of">of {_points(fb.max_score)} points</span>'
            + (f'<span class="pct {state}">{_share(fb.score, fb.max_score)}</span>' if fb.max_score else "")
            + "</div>"
        )
        if fb.max_score:
            body.append(
                _bar(
                    f"meter {state}",
                    fb.score,
                    fb.max_score,
                    f"{_score(fb.score, fb.max_score)} of {_points(fb.max_score)} points",
                )
            )
        if fb.exercises:
            body.append(f'<p class="tally">{_h(_tally(fb))}</p>')
    body.append("</header>")
    if fb.internal_errors:
        body.append(f'<div class="callout bad" id="kit-failed"><p><strong>{_h(KIT_FAILED)}</strong></p>')
        body += [f"<pre>{_h(error)}</pre>" for error in fb.internal_errors]
        body.append("</div>")
    if fb.graded and fb.exercises:
        body += _html_table(fb)
        body += _html_lost(fb)
    elif fb.graded and fb.summary:
        body += ["<section><h2>Summary</h2>", f"<pre>{_h(fb.summary)}</pre></section>"]
    if fb.notes:  # before the details: a note (a cell that raised) often explains a loss
        body.append('<section id="notes"><h2>Notes from loading your code</h2>')
        body += [f"<pre>{_h(note)}</pre>" for note in fb.notes]
        body.append("</section>")
    if fb.loose_mistakes:
        body.append('<section id="mistakes"><h2>Known mistakes found in your code</h2>')
        for mistake in fb.loose_mistakes:
            body.append(_html_mistake(fb, mistake))
        body.append("</section>")
    for exercise in fb.exercises:
        body += _html_exercise(fb, exercise)
    details = _details(fb)
    if details:
        body.append(
            "<footer>" + "".join(f"<span>{_h(key)}: {_h(value)}</span>" for key, value in details) + "</footer>"
        )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # No script, no fetch: the page shows only what it holds.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
            '<meta name="referrer" content="no-referrer">',
            f"<title>{_h(_headline(fb))}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _html_table(fb: Feedback) -> list[str]:
    out = [
        '<section id="points"><h2>Points per exercise</h2>',
        '<table><thead><tr><th>exercise</th><th class="pts">points</th>'
        '<th class="barcell"><span class="sr">share</span></th><th>result</th></tr></thead><tbody>',
    ]
    for exercise in fb.exercises:
        state = exercise.state
        points = f"{_score(exercise.score, exercise.max_score)} / {_points(exercise.max_score)}"
        name = (
            f'<a class="name" href="#{exercise.anchor}">{_h_name(exercise.name)}</a>'
            if _has_details(exercise)
            else (f'<span class="name">{_h_name(exercise.name)}</span>')
        )
        out.append(
            f'<tr class="row-{state}"><td>{name}</td><td class="pts">{_h(points)}</td>'
            f'<td class="barcell {state}">{_bar("bar", exercise.score, exercise.max_score, points)}</td>'
            f'<td><span class="badge {state}">{STATE_MARKS[state]} {STATE_WORDS[state]}</span></td></tr>'
        )
    out.append("</tbody></table></section>")
    return out


def _html_lost(fb: Feedback) -> list[str]:
    lost = [c for c in fb.checks if c.lost_points]
    out = ['<section id="lost"><h2>Where points were lost</h2>']
    if not lost:
        return out + ['<p class="full">No check lost points.</p></section>']
    out.append('<ul class="lost-list">')
    for check in lost:
        kind = "visible" if check.visible else "hidden"
        out.append(
            f'<li><span class="minus">−{_lost(check)} <small>of {_points(check.max_score)}</small></span><span>'
            f'<span class="name">{_h_name(check.exercise)}</span>: <a href="#{check.anchor}">{_h(check.title)}</a> '
            f'<span class="kind">{kind}</span></span></li>'
        )
    out.append("</ul></section>")
    return out


def _has_details(exercise: Exercise) -> bool:
    return bool(exercise.checks or exercise.hidden_titles or exercise.hidden_cases is not None)


def _html_exercise(fb: Feedback, exercise: Exercise) -> list[str]:
    if not _has_details(exercise):
        return []
    state = exercise.state
    out = [
        f'<section class="exercise" id="{exercise.anchor}"><h2><span class="name">{_h_name(exercise.name)}</span>'
        f'<span class="pts {state}">{_score(exercise.score, exercise.max_score)} / {_points(exercise.max_score)} · {STATE_WORDS[state]}</span></h2>'
    ]
    out += [_html_mistake(fb, mistake) for mistake in exercise.mistakes]
    if exercise.note:
        out.append(f'<div class="callout note"><p><strong>{NOTE_HEAD}</strong></p><p>{_h(exercise.note)}</p></div>')
    visible = [c for c in exercise.checks if c.visible]
    hidden = [c for c in exercise.checks if not c.visible]
    if visible:
        out.append("<h3>Visible checks</h3>")
        out += [_html_check(fb, check) for check in visible]
    if hidden or exercise.hidden_titles or exercise.hidden_cases is not None:
        head = "Hidden checks"
        if exercise.hidden_cases is not None:
            head += f" · {exercise.hidden_cases} case{'' if exercise.hidden_cases == 1 else 's'}"
        out.append(f"<h3>{_h(head)}</h3>")
        out += [_html_check(fb, check) for check in hidden]
        others = _untested_titles(exercise)
        if others:
            lead = "They also cover:" if hidden else "They cover:"
            out.append(
                f'<p class="muted lead">{lead}</p><ul class="covers">'
                + "".join(f"<li>{_h(t)}</li>" for t in others)
                + "</ul>"
            )
    out.append("</section>")
    return out


def _html_check(fb: Feedback, check: Check) -> str:
    failed = check.lost_points
    mark = '<span class="mark zero">✗</span>' if failed else '<span class="mark full">✓</span>'
    shown = fb.shows_message(check) and check.message
    inline = shown and not failed and "\n" not in check.message and len(check.message) <= 120
    after = f' <span class="muted">· {_h(check.message)}</span>' if inline else ""
    parts = [
        f'<div class="check{" failed" if failed else ""}" id="{check.anchor}"><div class="check-head">{mark}'
        f'<span class="title">{_h(check.title)}{after}</span><span class="pts">{_h(_check_points(check))}</span></div>'
    ]
    if failed and check.cases:
        parts.append(f'<p class="muted">{_h(_cases_text(check))}</p>')
    if shown and not inline:
        parts.append(f"<pre>{_h(check.message)}</pre>")
    elif not fb.shows_message(check) and failed:
        parts.append(f'<p class="muted">{_h(_hidden_note(check))}</p>')
    parts.append("</div>")
    return "".join(parts)


def _html_mistake(fb: Feedback, mistake: str) -> str:
    explanation = fb.explanation(mistake) or NO_EXPLANATION
    return (
        f'<div class="callout mistake"><p><strong>Known mistake in your code</strong> <code>{_h(mistake)}</code></p>'
        f"<p>{_h(explanation)}</p></div>"
    )


# ------------------------------------------------------------------ files


def _write_atomically(path: Path, text: str) -> None:
    """Write beside path, then rename: a reader never sees half a file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; the page is meant to be served or handed out
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_feedback(results: dict, folder: Path, *, show_hidden: bool = False, student: str = "") -> tuple[Path, Path]:
    """Write folder/feedback.html and folder/feedback.md; return their paths (html, md)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "feedback.html"
    markdown = folder / "feedback.md"
    _write_atomically(page, render_html(results, show_hidden=show_hidden, student=student))
    _write_atomically(markdown, render_markdown(results, show_hidden=show_hidden, student=student))
    return page, markdown
