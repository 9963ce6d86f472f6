"""The class dashboard grade-all writes: DIR/report.html, one page an instructor reads in a browser.

In order: the scores (how many graded, the distribution of totals as a histogram),
full marks per exercise (where the class struggles), then exercise by exercise the
groups of students whose code fails it the same way (deliver/class_view/clusters.py: how many,
the known mistake it is or that it is none the catalogue knows, the checks that fail,
whether a note is written, one member's code, links to every member's feedback page),
the most alike pairs of submissions (deliver/class_view/similarity.py: a flag, never a verdict),
and the students not graded with why.

The page is one file: inline CSS and SVG, no script (its Content-Security-Policy
forbids any), no font, image or style sheet from elsewhere, so it opens offline from
the results folder, whose students/<key>/feedback.html its links point to. Everything
that comes from a student (names, keys, code, reasons) is escaped. At a class of
hundreds it stays short: a group's code and members fold away (<details>), the
students whose code fails an exercise in a way of their own fold into one line.
"""

from __future__ import annotations

import html
import math
from fractions import Fraction
from statistics import mean, median
from urllib.parse import quote

from ...assignments import Assignment
from ...results.scoring import points_text
from ...results.text import clean
from ..html_page import html_page

PAIRS_SHOWN = 20
MEMBERS_SHOWN = 60  # links listed per group; the rest are counted
LIST_SHOWN = 100  # students not graded, entries left out

_CSS = """
:root{--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#fff;--panel:#f6f8fa;--track:#e4e8ec;
--good:#1a7f37;--warn:#9a6700;--bad:#cf222e;--link:#0969da;--bar:#4c72b0;--tip-bg:#ddf4ff;color-scheme:light dark}
@media screen and (prefers-color-scheme:dark){:root{--ink:#e6edf3;--muted:#9da7b3;--line:#3d444d;--bg:#0d1117;
--panel:#161b22;--track:#30363d;--good:#3fb950;--warn:#d29922;--bad:#f85149;--link:#4493f8;--bar:#6e9bd8;--tip-bg:#0c2136}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","Liberation Sans",Arial,sans-serif;overflow-wrap:anywhere}
main{max-width:72rem;margin:0 auto;padding:1.5rem 1.25rem 3rem}
a{color:var(--link)}
h1{font-size:1.5rem;margin:0 0 .2rem}
h2{font-size:1.2rem;margin:2rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1.4rem 0 .4rem}
h3 small,.muted{color:var(--muted);font-weight:400}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace}
pre{white-space:pre-wrap;font-size:.8rem;line-height:1.4;background:var(--panel);border:1px solid var(--line);
border-radius:6px;padding:.5rem .7rem;margin:.4rem 0;max-height:26rem;overflow:auto}
nav{margin:.4rem 0 0;font-size:.9rem}nav a{margin-right:1rem}
.facts{display:flex;flex-wrap:wrap;gap:.4rem 1.6rem;margin:.8rem 0}
.fact .big{display:block;font-size:1.7rem;font-weight:700;line-height:1.1;font-variant-numeric:tabular-nums}
.fact{color:var(--muted)}.fact .big{color:var(--ink)}
.two{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1.5rem}
@media (max-width:60rem){.two{grid-template-columns:minmax(0,1fr)}}
svg text{fill:var(--muted);font-size:11px}svg .b{fill:var(--bar)}svg .axis{stroke:var(--line)}
table{border-collapse:collapse;width:100%}
th,td{padding:.35rem .45rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600;white-space:nowrap}
td.id{white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.bar{height:.7rem;background:var(--track);border-radius:99px;overflow:hidden;min-width:6rem;margin-top:.3rem}
.bar span{display:block;height:100%;background:var(--good)}
.bar.alike span{background:var(--bad)}
.tag{display:inline-block;font-size:.75rem;font-weight:600;padding:0 .45rem;border-radius:99px;border:1.5px solid;
white-space:nowrap}
.named{color:var(--link)}.unnamed{color:var(--warn)}.stub{color:var(--muted)}.noted{color:var(--good)}
details{margin:.2rem 0}summary{cursor:pointer;color:var(--link)}
.members{font-size:.85rem;line-height:1.7}.members a{margin-right:.6rem;white-space:nowrap}
.checks{margin:0;padding-left:1.1rem}
.callout{background:var(--tip-bg);border-left:4px solid var(--link);border-radius:6px;padding:.5rem .8rem;margin:.5rem 0}
footer{margin-top:2.5rem;color:var(--muted);font-size:.85rem}
@media print{details{display:block}main{max-width:none}}
"""


def _h(value) -> str:
    return html.escape(clean(value, 4000), quote=True)


def _label(key: str, names: dict[str, str]) -> str:
    name = names.get(key) or key
    return _h(name) if name == key else f"{_h(name)} <span class=muted>({_h(key)})</span>"


def _feedback_link(key: str, names: dict[str, str]) -> str:
    return f'<a href="students/{quote(key, safe="")}/feedback.html">{_label(key, names)}</a>'


def _percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else 0.0


def _shown(share: float) -> str:
    """A share of 0 to 1 as a whole percentage rounded down: only all of it reads 100%."""
    return f"{math.floor(100 * share + 1e-9)}%"


def _students(n: int) -> str:
    return f"{n} student" + ("" if n == 1 else "s")


# ------------------------------------------------------------------ the page


def render_dashboard(
    assignment: Assignment,
    figures: dict,
    found: list[dict],
    pairs: list,
    status: dict,
    skipped: list,
    names: dict[str, str],
    pages: set[str] | frozenset[str] | None = None,
) -> str:
    """report.html's text. figures: report.class_figures; found: the clusters; pairs: similarity's, best first;
    status: key -> (what, reason); skipped: what the intake left out; names: key -> a student's name; pages: the
    students who have a feedback page (None: every one), the others named without a link."""
    body = [_header(assignment, figures, found, status)]
    body += _scores(figures)
    body += _clusters(assignment, found, names)
    body += _pairs(pairs, names)
    body += _not_graded(status, skipped, names, pages)
    body.append(
        "<footer>Written by <code>python -m autograder grade-all</code>; each student's own page is "
        "<code>students/&lt;key&gt;/feedback.html</code>. The groups are listed with their ids in "
        "<code>clusters.json</code>, the pairs in <code>similarity.csv</code>, every student in "
        "<code>summary.csv</code>.</footer>"
    )
    return html_page(_h(f"{assignment.name}: class report"), _CSS, body)


def _header(assignment: Assignment, figures: dict, found: list[dict], status: dict) -> str:
    n = figures["students"]
    totals, top = figures["totals"], figures["max_score"]
    not_graded = sum(1 for what, _ in status.values() if what != "graded")
    facts = [(str(n), "students graded")]
    if n:
        facts += [
            (f"{float(mean(totals)):.1f}", f"mean of {points_text(top)}"),
            (f"{float(median(totals)):.1f}", "median"),
            (str(sum(t >= top for t in totals)), "with full marks"),
        ]
    groups = [c for c in found if c["size"] > 1]
    facts += [
        (str(len(groups)), "groups of two or more"),
        (str(sum(1 for c in groups if not c["named"] and not c.get("unfinished"))), "of them no known mistake"),
        (str(not_graded), "not graded"),
    ]
    cells = "".join(f'<div class="fact"><span class="big">{_h(v)}</span>{_h(label)}</div>' for v, label in facts)
    return (
        f"<header><h1>{_h(assignment.name)}: class report</h1>"
        f'<div class="facts">{cells}</div>'
        '<nav><a href="#scores">scores</a><a href="#exercises">full marks per exercise</a>'
        '<a href="#groups">groups of the same wrong behaviour</a><a href="#alike">most alike submissions</a>'
        '<a href="#not-graded">not graded</a></nav></header>'
    )


def _scores(figures: dict) -> list[str]:
    n = figures["students"]
    out = ['<div class="two"><section id="scores"><h2>Scores</h2>']
    out.append(_histogram(figures["totals"], figures["max_score"]) if n else "<p>No student was graded.</p>")
    out.append('</section><section id="exercises"><h2>Full marks per exercise</h2>')
    out.append('<table><thead><tr><th>exercise</th><th class="num">full marks</th><th></th></tr></thead><tbody>')
    for name, count in figures["full_marks"].items():
        share = _percent(count, n)
        out.append(
            f'<tr><td><a href="#ex-{_h(name)}"><code>{_h(name)}</code></a></td>'
            f'<td class="num">{count}/{n} · {share:.0f}%</td>'
            f'<td><div class="bar" role="img" aria-label="{share:.0f}%"><span style="width:{share:.1f}%"></span></div></td></tr>'
        )
    out.append("</tbody></table></section></div>")
    return out


def _histogram(totals: list[Fraction], top: Fraction, bins: int = 20) -> str:
    """The distribution of total scores as an inline SVG bar chart (bins of equal width, the last one closed)."""
    width, height, left, bottom = 560, 210, 34, 28
    counts = [0] * bins
    for total in totals:
        index = int(bins * total / top) if top else 0
        counts[min(max(index, 0), bins - 1)] += 1
    tallest = max(counts) or 1
    step = (width - left - 8) / bins
    plot = height - bottom - 18  # room above the tallest bar for its count
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="histogram of {len(totals)} total scores" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, count in enumerate(counts):
        bar = plot * count / tallest
        x, y = left + i * step, height - bottom - bar
        parts.append(
            f'<rect class="b" x="{x + 1:.1f}" y="{y:.1f}" width="{step - 2:.1f}" height="{bar:.1f}">'
            f"<title>{count} students</title></rect>"
        )
        if count:
            parts.append(f'<text x="{x + step / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle">{count}</text>')
    axis = height - bottom
    parts.append(f'<line x1="{left}" y1="{axis}" x2="{width - 8}" y2="{axis}" class="axis"/>')
    for i in range(5):
        x = left + (width - left - 8) * i / 4
        parts.append(f'<text x="{x:.1f}" y="{axis + 14}" text-anchor="middle">{_h(points_text(top * i / 4))}</text>')
    parts.append(
        f'<text x="{(width + left) / 2:.1f}" y="{height - 2}" text-anchor="middle">points (of {_h(points_text(top))})</text>'
    )
    parts.append(f'<text x="{left - 6}" y="{height - bottom - plot + 4:.1f}" text-anchor="end">{tallest}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _clusters(assignment: Assignment, found: list[dict], names: dict[str, str]) -> list[str]:
    out = [
        '<section id="groups"><h2>Groups of the same wrong behaviour</h2>',
        '<p class="muted">Per exercise, the students whose code fails the same checks on the same cases with the '
        "same outputs (as the checks' tolerances judge them) or the same error. A group's id is the same in every "
        "term: write a note for it once in <code>solutions/"
        f'{_h(assignment.name)}/cluster_notes.toml</code> (<code>"&lt;id&gt;" = "the note"</code>) and the next '
        "grade-all puts it into its members' feedback; <code>python -m autograder cluster-to-mistake</code> turns a "
        "group into a known mistake.</p>",
    ]
    by_exercise: dict[str, list[dict]] = {}
    for cluster in found:
        by_exercise.setdefault(cluster["exercise"], []).append(cluster)
    if not found:
        out.append("<p>No student lost points on a check that could be grouped.</p>")
    for exercise in [name for name in assignment.graded if name in by_exercise] + [
        name for name in by_exercise if name not in assignment.graded
    ]:
        groups = by_exercise[exercise]
        students = sum(c["size"] for c in groups)
        shared = [c for c in groups if c["size"] > 1]
        alone = [c for c in groups if c["size"] == 1]
        out.append(
            f'<h3 id="ex-{_h(exercise)}"><code>{_h(exercise)}</code> <small>{_students(students)} lost points · '
            f"{len(shared)} groups of two or more · {len(alone)} on their own</small></h3>"
        )
        if shared:
            out.append(_cluster_table(shared, names))
        if alone:
            out.append(
                f"<details><summary>{_students(len(alone))} whose code fails it in a way of its own</summary>"
                + _cluster_table(alone, names)
                + "</details>"
            )
    out.append("</section>")
    return out


def _cluster_table(groups: list[dict], names: dict[str, str]) -> str:
    rows = [
        '<table><thead><tr><th class="num">students</th><th>known mistake</th><th>note</th>'
        "<th>checks that fail</th><th>group id</th></tr></thead><tbody>"
    ]
    for cluster in groups:
        if cluster["named"]:
            named = f'<span class="tag named">{_h(cluster["named"])}</span>'
        elif cluster.get("unfinished"):
            named = '<span class="tag stub">still the stub</span>'
        else:
            named = '<span class="tag unnamed">none known</span>'
        note = '<span class="tag noted">written</span>' if cluster.get("note") else '<span class="muted">–</span>'
        checks = "".join(
            f"<li>{_h(check['check'])} <span class=muted>({check['failed']} of {check['of']} "
            f"case{'' if check['of'] == 1 else 's'})</span></li>"
            for check in cluster["checks"]
        )
        members = cluster["students"]
        links = " ".join(_feedback_link(key, names) for key in members[:MEMBERS_SHOWN])
        if len(members) > MEMBERS_SHOWN:
            links += f" <span class=muted>and {len(members) - MEMBERS_SHOWN} more (clusters.json lists them)</span>"
        detail = f'<div class="members">{links}</div>'
        if cluster.get("note"):
            detail += f'<div class="callout"><strong>Note:</strong> {_h(cluster["note"])}</div>'
        if cluster.get("excerpt"):
            detail += f'<p class="muted">The code of {_h(names.get(members[0]) or members[0])}:</p><pre>{_h(cluster["excerpt"])}</pre>'
        rows.append(
            f'<tr id="group-{_h(cluster["id"])}"><td class="num">{cluster["size"]}</td><td>{named}</td><td>{note}</td>'
            f'<td><ul class="checks">{checks}</ul><details><summary>members and code</summary>{detail}</details></td>'
            f'<td class="id"><code>{_h(cluster["id"])}</code></td></tr>'
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def _pairs(pairs: list, names: dict[str, str]) -> list[str]:
    out = [
        '<section id="alike"><h2>Most alike submissions</h2>',
        '<p class="muted">A flag to look at, never a verdict. Students who write the same short idioms look alike '
        "too: read the two submissions before concluding anything. The similarity is the share of the two students' "
        "own code (the release's left out) that the other's holds too, by copydetect's fingerprints: renaming "
        "variables or reordering functions does not change it. <code>similarity.csv</code> lists more pairs.</p>",
    ]
    if not pairs:
        out.append("<p>No two submissions had enough code of their own to compare.</p></section>")
        return out
    out.append(
        '<table><thead><tr><th class="num">similarity</th><th></th><th>student</th><th>student</th>'
        '<th class="num">share of each found in the other</th></tr></thead><tbody>'
    )
    for pair in pairs[:PAIRS_SHOWN]:
        out.append(
            f'<tr><td class="num">{_shown(pair.similarity)}</td><td><div class="bar alike">'
            f'<span style="width:{100 * pair.similarity:.1f}%"></span></div></td>'
            f"<td>{_feedback_link(pair.a, names)}</td><td>{_feedback_link(pair.b, names)}</td>"
            f'<td class="num">{_shown(pair.share_a)} · {_shown(pair.share_b)}</td></tr>'
        )
    out.append("</tbody></table></section>")
    return out


def _not_graded(status: dict, skipped: list, names: dict[str, str], pages) -> list[str]:
    problems = [(key, what, reason) for key, (what, reason) in status.items() if what != "graded"]
    out = ['<section id="not-graded"><h2>Not graded</h2>']
    if not problems:
        out.append("<p>Every student was graded.</p>")
    else:
        out.append("<table><thead><tr><th>student</th><th>status</th><th>why</th></tr></thead><tbody>")
        for key, what, reason in problems[:LIST_SHOWN]:
            who = _feedback_link(key, names) if pages is None or key in pages else _label(key, names)
            out.append(f"<tr><td>{who}</td><td>{_h(what)}</td><td>{_h(reason)}</td></tr>")
        out.append("</tbody></table>")
        if len(problems) > LIST_SHOWN:
            out.append(f"<p class=muted>and {len(problems) - LIST_SHOWN} more: summary.csv lists every student.</p>")
    if skipped:
        out.append(f"<h3>Left out of the class <small>{len(skipped)}: not submissions</small></h3><ul>")
        out += [f"<li><code>{_h(entry)}</code>: {_h(why)}</li>" for entry, why in skipped[:LIST_SHOWN]]
        out.append("</ul>")
    out.append("</section>")
    return out
