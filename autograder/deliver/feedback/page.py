"""The feedback as one self-contained HTML page: feedback.html.

Every text from the results goes through results/text.py's html_text (control
characters shown escaped, then ``& < > " '`` as entities). The page needs nothing else:
no script (its Content-Security-Policy forbids any), no external font, image or style
sheet (page.css is inlined), so it opens offline and prints; the last section is a
``<details>`` element, which opens without a script.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ...results.read import Results
from ...results.text import html_text
from ..html_page import html_page
from .model import (
    DID_NOT_RUN,
    KIT_FAILED,
    NOT_GRADED,
    NOT_STARTED,
    NOT_STARTED_WHY,
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
    state,
)

STYLE_SHEET = Path(__file__).with_name("page.css")


@functools.cache
def style_sheet() -> str:
    return STYLE_SHEET.read_text(encoding="utf-8")


_h = html_text


def _h_name(name: str) -> str:
    """An identifier, escaped, that may wrap after an underscore or before a capital (scaled_dot_<wbr>product)."""
    escaped = _h(name)
    if not re.fullmatch(r"[A-Za-z0-9_.]+", name):
        return escaped
    return re.sub(r"(?<=_)(?=[^_])|(?<=[a-z])(?=[A-Z])", "<wbr>", escaped)


def _bar(css: str, score: float | None, max_score: float | None, label: str) -> str:
    width = percent(score, max_score)
    return f'<div class="{css}" role="img" aria-label="{_h(label)}"><span style="width:{width:.1f}%"></span></div>'


def render_html(results: Results, *, show_hidden: bool = False, student: str = "") -> str:
    """The student's feedback as one self-contained HTML page (no script, no external asset), what to do first."""
    fb = feedback(results, show_hidden=show_hidden, student=student)
    body = _header(fb)
    if fb.internal_errors:
        body.append(f'<div class="callout bad" id="kit-failed"><p><strong>{_h(KIT_FAILED)}</strong></p>')
        body += [f"<pre>{_h(error)}</pre>" for error in fb.internal_errors]
        body.append("</div>")
    if fb.graded and fb.exercises:
        body += _points_table(fb)
    elif fb.graded and fb.summary:
        body += ["<section><h2>Summary</h2>", f"<pre>{_h(fb.summary)}</pre></section>"]
    body += _did_not_run(fb)
    body += _mistakes(fb)
    if fb.graded:
        body += _failed(fb)
        body += _checked(fb)
    if fb.details:
        body.append(
            "<footer>" + "".join(f"<span>{_h(key)}: {_h(value)}</span>" for key, value in fb.details) + "</footer>"
        )
    return html_page(_h(fb.headline), style_sheet(), body)


def _header(fb: Feedback) -> list[str]:
    out = [f"<header>\n<h1>{_h(fb.headline)}</h1>"]
    if not fb.graded:
        out.append('<div class="total"><span class="big">Not graded</span></div>')
        out.append(
            f'<div class="callout warn"><p><strong>{_h(NOT_GRADED)}</strong></p><p>Why:</p>'
            f"<pre>{_h(fb.reason or 'no reason was recorded')}</pre></div>"
        )
        return out + ["</header>"]
    total_state = state(fb.score, fb.max_score)
    total = f"{score_text(fb.score, fb.max_score)} of {points(fb.max_score)} points"
    out.append(
        f'<div class="total"><span class="big" id="total">{score_text(fb.score, fb.max_score)}</span>'
        f'<span class="of">of {points(fb.max_score)} points</span>'
        + (f'<span class="pct {total_state}">{share(fb.score, fb.max_score)}</span>' if fb.max_score else "")
        + "</div>"
    )
    if fb.max_score:
        out.append(_bar(f"meter {total_state}", fb.score, fb.max_score, total))
    if fb.late_text:
        out.append(f'<div class="callout warn" id="late"><p>{_h(fb.late_text)}</p></div>')
    if fb.exercises:
        out.append(f'<p class="tally">{_h(fb.tally)}</p>')
    return out + ["</header>"]


def _name(exercise: Exercise) -> str:
    """The exercise's name, a link to its failed checks where it has some."""
    if exercise.to_fix and not exercise.not_started:
        return f'<a class="name" href="#{exercise.anchor}">{_h_name(exercise.name)}</a>'
    return f'<span class="name">{_h_name(exercise.name)}</span>'


def _points_of(exercise: Exercise) -> str:
    return f"{score_text(exercise.score, exercise.max_score)} / {points(exercise.max_score)}"


def _points_table(fb: Feedback) -> list[str]:
    out = [
        '<section id="points"><h2>Points per exercise</h2>',
        '<table><thead><tr><th>exercise</th><th class="pts">points</th>'
        '<th class="barcell"><span class="sr">share</span></th><th>result</th></tr></thead><tbody>',
    ]
    for exercise in fb.exercises:
        shown = exercise.state
        bar_state = state(exercise.score, exercise.max_score)
        out.append(
            f'<tr class="row-{shown}"><td>{_name(exercise)}</td><td class="pts">{_h(_points_of(exercise))}</td>'
            f'<td class="barcell {bar_state}">{_bar("bar", exercise.score, exercise.max_score, _points_of(exercise))}</td>'
            f'<td><span class="badge {shown}">{STATE_MARKS[shown]} {STATE_WORDS[shown]}</span></td></tr>'
        )
    out.append("</tbody></table>")
    out += [f'<p class="carried">{_h(carried_text(e))}.</p>' for e in fb.exercises if e.carried]
    return out + ["</section>"]


def _did_not_run(fb: Feedback) -> list[str]:
    if not fb.notes:
        return []
    out = [
        '<section id="did-not-run"><h2>Code that did not run</h2>',
        '<p class="lead">The rest of your code was loaded without it: fix these first.</p>',
    ]
    out += [f'<pre class="note">{_h(note)}</pre>' for note in fb.notes]
    return out + ["</section>"]


def _mistakes(fb: Feedback) -> list[str]:
    if not fb.mistakes:
        return []
    out = ['<section id="mistakes"><h2>Known mistakes in your code</h2>']
    for mistake, where in fb.mistakes:
        place = " in " + ", ".join(f'<span class="name">{_h_name(name)}</span>' for name in where) if where else ""
        out.append(
            f'<div class="callout mistake"><p><strong>Known mistake</strong> <code>{_h(mistake)}</code>{place}</p>'
            f"<p>{_h(fb.explanation(mistake))}</p></div>"
        )
    return out + ["</section>"]


def _failed(fb: Feedback) -> list[str]:
    if not fb.exercises:
        return []
    out = ['<section id="failed"><h2>Checks that failed</h2>']
    if not fb.to_fix:
        return out + ['<p class="full">None: every check passed.</p></section>']
    not_started = [e for e in fb.to_fix if e.not_started]
    if not_started:
        out.append('<ul class="unstarted">')
        out += [
            f'<li><span class="badge {NOT_STARTED}">{STATE_MARKS[NOT_STARTED]} {STATE_WORDS[NOT_STARTED]}</span>'
            f'<span class="name">{_h_name(e.name)}</span>: {_h(NOT_STARTED_WHY)} '
            f'<span class="muted">({_h(_points_of(e))} points)</span></li>'
            for e in not_started
        ]
        out.append("</ul>")
    for exercise in fb.to_fix:
        if not exercise.not_started:
            out += _exercise_failures(fb, exercise)
    return out + ["</section>"]


def _exercise_failures(fb: Feedback, exercise: Exercise) -> list[str]:
    shown = exercise.state
    out = [
        f'<section class="exercise" id="{exercise.anchor}"><h3><span class="name">{_h_name(exercise.name)}</span>'
        f'<span class="pts {shown}">{_h(_points_of(exercise))} · {STATE_WORDS[shown]}</span></h3>'
    ]
    if exercise.did_not_run:
        out.append(f'<p class="zero">{_h(DID_NOT_RUN)}</p>')
    if exercise.note:
        out.append(
            f'<div class="callout instructor-note"><p><strong>{_h(NOTE_HEAD)}</strong></p>'
            f'<p class="note-text">{_h(exercise.note)}</p></div>'
        )
    said: set[str] = set()
    for check in exercise.failed:
        kind = "notebook" if check.visible else "hidden"
        cost = "✗ failed" if check.visible else check_cost(check)
        parts = [
            f'<div class="check {kind}"><div class="check-head"><span class="cost">{_h(cost)}</span>'
            f'<span class="title">{_h(check.title)}</span><span class="kind">{kind}</span></div>'
        ]
        said_of_it = [cases_text(check)] if check.cases and not check.visible else []
        if not fb.shows_message(check):
            said_of_it.append(hidden_note(check))
        if said_of_it:
            parts.append(f'<p class="muted">{_h(" · ".join(said_of_it))}</p>')
        message = fb.message_of(check, said)
        if message == SAME_FAILURE:
            parts.append(f'<p class="muted">{_h(message)}</p>')
        elif message:
            parts.append(f"<pre>{_h(message)}</pre>")
        out.append("".join(parts) + "</div>")
    return out + ["</section>"]


def _checked(fb: Feedback) -> list[str]:
    """Every check, passed or not, and what the hidden checks cover: folded away, for reference."""
    shown = [e for e in fb.exercises if e.checks or e.hidden_titles]
    if not shown:
        return []
    out = ['<details class="checked" id="checked"><summary>What was checked, exercise by exercise</summary>']
    for exercise in shown:
        out.append(f'<h3><span class="name">{_h_name(exercise.name)}</span></h3><ul>')
        for check in exercise.checks:
            passed = check.passed and not check.lost
            mark = '<span class="mark full">✓</span>' if passed else '<span class="mark zero">✗</span>'
            kind = "notebook check" if check.visible else "hidden check"
            out.append(f'<li>{mark}{_h(check.title)} <span class="muted">({kind})</span></li>')
        others = exercise.untested_titles
        if others:
            cases = f" ({exercise.hidden_cases} cases)" if exercise.hidden_cases is not None else ""
            out.append(
                f'<li class="muted">the hidden checks{cases} also cover: ' + "; ".join(_h(t) for t in others) + "</li>"
            )
        out.append("</ul>")
    return out + ["</details>"]
