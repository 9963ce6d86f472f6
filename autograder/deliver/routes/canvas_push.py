"""Grades and feedback pages into Canvas through its REST API: ``push canvas``.

    CANVAS_API_TOKEN=... python -m autograder push canvas out/mha --course 101 --assignment 7 \\
        --url https://canvas.example.edu            # shows what would change; --apply sends it

It reads grade-all's folder (summary.csv through summary.read_summary, each student's
results.json through results/read.py) and, with the ``canvasapi`` client, Canvas's
Submissions API (canvas.instructure.com/doc/api/submissions.html; the source is
instructure/canvas-lms app/controllers/submissions_api_controller.rb and
lib/api/v1/submission.rb):

1. ``GET /api/v1/users/self``, ``/courses/:course_id``, ``/courses/:course_id/assignments/:id``:
   who the token is, and that the course and the assignment exist.
2. ``GET .../assignments/:id/submissions?include[]=submission_comments``, every page (the
   ``Link`` header's rel="next"): what Canvas holds for each student now.
3. For each student whose grade or feedback Canvas does not hold yet, with ``--apply``:
   the feedback page uploaded for a submission comment, in Canvas's three steps
   (``POST .../submissions/:user_id/comments/files``, the file posted to the
   ``upload_url`` it answers, without the token, then the redirect followed), and one
   ``PUT .../submissions/:user_id`` with ``submission[posted_grade]``,
   ``prefer_points_over_scheme`` (a grading scheme whose names are numbers must not read
   "3" as its "3") and ``comment[text_comment]`` with ``comment[file_ids][]``.

The grade is the one the LMS grade files carry (lms_grades.grade of summary.csv's row:
the total once every written answer has its points, the automatic score where there are
none). Nothing is sent for a student the kit could not grade (never a 0), for one whose
written answers still wait for their points, for one without a Canvas user id (a folder
that is not a Canvas export, anonymous grading), for a user id Canvas does not list in
the assignment, or for a submission Canvas has excused: each is listed, with why.

The feedback page goes as a file attached to the comment, not as text with a link: the
kit hosts nothing a link could point to, a comment is plain text (the page's tables and
folded sections would be lost), and the attached page is the same file every other route
gives a student (Moodle's feedback zip, the output folder). The comment's text says so,
and its last line, ``autograder feedback <digest>``, names the page and the text by a
digest. A rerun sends a comment only when no comment *written by the token's own user*
carries that line (Canvas sets a comment's ``author_id``; a student can copy the line into
a comment of their own, which is not believed), and a grade only when Canvas's entered
score differs: rerunning sends nothing new. Another teacher's token sends the page again.

Throttling: Canvas answers a throttled request with 403 "Rate Limit Exceeded"
(doc/api/throttling.md; app/middleware/request_throttle.rb, which answers before the
request reaches Canvas's controllers, so that retrying it cannot do anything twice), and
since October 2025 with 429 (Canvas's API change log; canvasapi answers a 429 with
RateLimitExceeded and a 403 with Forbidden). Either is waited out and retried, a few
times, longer each time.

The token comes from CANVAS_API_TOKEN only (never an option: it would stay in the shell's
history and in ps). It is never printed, written or put in a URL: canvasapi sends it in
the Authorization header, not to the upload URL; every message of an error is scrubbed
of it before it is shown. The instance is --url or CANVAS_API_URL: https, or http on
this machine only (the token would cross the network in clear).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlsplit

import requests
from canvasapi import Canvas
from canvasapi.exceptions import (
    CanvasException,
    Forbidden,
    InvalidAccessToken,
    RateLimitExceeded,
    ResourceDoesNotExist,
    Unauthorized,
)
from canvasapi.submission import Submission
from canvasapi.upload import Uploader

from ...errors import KitError
from ...results.outcome import KIT_ERROR
from ...results.read import ResultsUnreadable, read_results_file
from ...results.scoring import points_text
from ...results.text import one_line
from ..grade_all.class_folder import results_path, student_folder
from ..grade_all.summary import points_text_of, read_summary
from ..intake.canvas import ID
from .lms_grades import grade

TOKEN_VARIABLE = "CANVAS_API_TOKEN"
URL_VARIABLE = "CANVAS_API_URL"
MARK = "autograder feedback"  # the comment's last line: MARK, a space, the digest
COMMENT = (
    "Your feedback page for this assignment is attached (feedback.html): what each check found, and what to do next."
)
WAITS = (2.0, 4.0, 8.0, 16.0, 32.0)  # seconds waited before each retry of a throttled request
NAME_WIDTH = 28


class CanvasPushError(KitError):
    """Canvas refused, or could not be reached; the message says what to do (and never holds the token)."""


@dataclass(frozen=True)
class Grade:
    """One student's grade and feedback page from grade-all's folder."""

    name: str  # as summary.csv shows it, on one line
    user_id: int  # Canvas's user id, as the export carried it
    points: str  # the grade an LMS gets (lms_grades.grade), as summary.csv writes it
    feedback: Path | None  # students/<key>/feedback.html, None when there is none


@dataclass
class Change:
    """What one student's submission in Canvas needs: a grade, a feedback comment, or both."""

    grade: Grade
    submission: Submission  # canvasapi's, as the list of submissions gave it
    now: str  # Canvas's entered score ("" when none), as points_text writes it
    send_grade: bool
    comment: str  # the comment's text to add, "" when Canvas has it (or there is no page)


@dataclass
class Plan:
    """What would change in Canvas, and what is left as it is."""

    heading: str
    changes: list[Change] = field(default_factory=list)
    unchanged: list[Grade] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)  # (name, why nothing is sent)


# ------------------------------------------------------------------ grade-all's folder


def grades_in(out: Path) -> tuple[list[Grade], list[tuple[str, str]]]:
    """The students of grade-all's folder who have a grade for Canvas, and those who have none (with why)."""
    found, left = [], []
    for row in read_summary(out):
        name = one_line(row["name"], 200) or one_line(row["key"], 200)
        why = _why_not(out, row)
        if why:
            left.append((name, why))
            continue
        page = student_folder(out, row["key"]) / "feedback.html"
        found.append(Grade(name, int(row["student_id"]), grade(row), page if page.is_file() else None))
    counts: dict[int, int] = {}
    for item in found:
        counts[item.user_id] = counts.get(item.user_id, 0) + 1
    twice = [item for item in found if counts[item.user_id] > 1]
    left += [
        (item.name, f"Canvas user id {item.user_id} is on {counts[item.user_id]} rows of summary.csv") for item in twice
    ]
    return [item for item in found if counts[item.user_id] == 1], left


def _why_not(out: Path, row: dict[str, str]) -> str:
    """Why nothing is sent for a row of summary.csv ("" when its grade goes to Canvas)."""
    user_id = row["student_id"]
    if row["source"] != "canvas":
        return f"graded from a {one_line(row['source'], 40) or 'folder'} export, which carries no Canvas user id"
    if user_id.startswith("anon_"):
        return "anonymous grading hid the Canvas user id: download the submissions again once identities are shown"
    if not ID.fullmatch(user_id):
        return (
            f"{one_line(user_id, 40)!r} is not a Canvas user id" if user_id else "the export carried no Canvas user id"
        )
    try:
        results = read_results_file(results_path(out, row["key"]))
    except ResultsUnreadable as error:
        return f"its results.json: {error}"
    if results.status == KIT_ERROR or not (results.graded or results.student_fault):
        return f"not graded by the kit ({one_line(results.reason or row['reason'], 200) or row['status']}): never a 0"
    if row["score"] != points_text_of(results.score):
        return "summary.csv and its results.json disagree: run grade-all again"
    if not grade(row):
        return "written answers without points yet: run grade-all with --manual-points first"
    return ""


def comment_text(page: Path) -> str:
    """The comment that goes with a feedback page: COMMENT, then MARK and the digest of both."""
    digest = hashlib.sha256(COMMENT.encode() + b"\0" + page.read_bytes()).hexdigest()[:16]
    return f"{COMMENT}\n{MARK} {digest}"


# ------------------------------------------------------------------ Canvas


@dataclass
class Api:
    """canvasapi's Canvas, with every call's errors turned into messages without the token, and throttling waited out."""

    url: str
    token: str
    wait: Callable[[float], None] = time.sleep
    say: Callable[[str], None] = print
    canvas: Canvas = field(init=False)

    def __post_init__(self):
        with warnings.catch_warnings():  # canvasapi warns of http://, which connection() allows on this machine only
            warnings.simplefilter("ignore", UserWarning)
            self.canvas = Canvas(self.url, self.token)

    def call(self, what: str, function: Callable, *args, **kwargs):
        """function(*args, **kwargs), retried while Canvas throttles; CanvasPushError saying what failed otherwise."""
        for attempt in range(len(WAITS) + 1):
            try:
                return function(*args, **kwargs)
            except (Forbidden, RateLimitExceeded) as error:
                if not (isinstance(error, RateLimitExceeded) or "Rate Limit Exceeded" in str(error)):
                    raise self.failed(what, error) from None
                if attempt == len(WAITS):
                    raise CanvasPushError(
                        f"Canvas kept throttling this token (Rate Limit Exceeded) while trying to {what}: "
                        "wait a few minutes and run again (what was sent is not sent again)"
                    ) from None
                self.say(f"  Canvas is throttling this token: waiting {WAITS[attempt]:g} s, then trying again")
                self.wait(WAITS[attempt])
            except (CanvasException, requests.RequestException, ValueError) as error:
                raise self.failed(what, error) from None
        raise AssertionError("unreachable")

    def failed(self, what: str, error: Exception) -> CanvasPushError:
        said = self.scrub(one_line(error, 300))
        if isinstance(error, InvalidAccessToken):
            why = (
                f"Canvas does not accept the token in {TOKEN_VARIABLE} (401 Invalid access token): make a new one "
                "(Account > Settings > New access token) and set it"
            )
        elif isinstance(error, Unauthorized):
            why = "the token's user may not do that in this course (401): use a teacher's or a TA's token"
        elif isinstance(error, ResourceDoesNotExist):
            why = (
                "Canvas has no such course, assignment or student (404): check --course and --assignment, the numbers "
                "in the assignment's address, .../courses/<course>/assignments/<assignment>"
            )
        elif isinstance(error, Forbidden):
            why = f"Canvas refused (403: {said})"
        elif isinstance(error, requests.RequestException):
            why = f"{self.url} could not be reached ({type(error).__name__}: {said}): check --url or {URL_VARIABLE}"
        elif isinstance(error, ValueError):
            why = f"{self.url} answered with something that is not Canvas's API ({said}): check --url or {URL_VARIABLE}"
        else:
            why = f"Canvas refused ({said})"
        return CanvasPushError(f"could not {what}: {why}")

    def scrub(self, text: str) -> str:
        """text without the token (should an error message ever quote it)."""
        return text.replace(self.token, "[token]") if self.token else text


def connection(environ: Mapping[str, str], url: str | None) -> tuple[str, str]:
    """(Canvas's address, the token) from --url or CANVAS_API_URL and CANVAS_API_TOKEN; CanvasPushError when unfit."""
    token = environ.get(TOKEN_VARIABLE, "").strip()
    if not token:
        raise CanvasPushError(
            f"set {TOKEN_VARIABLE} to a Canvas access token of a teacher or TA of the course "
            "(Canvas: Account > Settings > New access token); it is read from the environment only"
        )
    if not token.isascii() or not token.isprintable() or " " in token:
        raise CanvasPushError(f"{TOKEN_VARIABLE} holds a space or a character no token has: copy the token again")
    address = (url or environ.get(URL_VARIABLE, "")).strip().rstrip("/")
    if not address:
        raise CanvasPushError(f"name the Canvas instance: --url https://canvas.example.edu (or set {URL_VARIABLE})")
    parts = urlsplit(address)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise CanvasPushError(
            f"{one_line(address, 200)!r} is not a Canvas address: give it as https://canvas.example.edu"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise CanvasPushError("give the Canvas address alone (https://canvas.example.edu): no user, password or query")
    if parts.path.rstrip("/").endswith("/api/v1"):
        raise CanvasPushError(f"leave /api/v1 out of the address: {address[: -len('/api/v1')]}")
    if parts.scheme == "http" and not _loopback(parts.hostname):
        raise CanvasPushError(f"{address} is not https: the token would cross the network in clear")
    return address, token


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def plan(api: Api, course_id: int, assignment_id: int, grades: list[Grade]) -> Plan:
    """What Canvas holds now against what grade-all's folder says: the changes, what is unchanged, who is left out."""
    me = api.call("read the token's user (GET /api/v1/users/self)", api.canvas.get_current_user)
    course = api.call(f"read course {course_id}", api.canvas.get_course, course_id)
    assignment = api.call(
        f"read assignment {assignment_id} of course {course_id}", course.get_assignment, assignment_id
    )
    held = api.call(
        "list the assignment's submissions", lambda: list(assignment.get_submissions(include=["submission_comments"]))
    )
    by_user = {int(submission.user_id): submission for submission in held}
    heading = (
        f"Canvas {api.url} as {one_line(getattr(me, 'name', ''), 80)} (user {me.id}): course {course_id} "
        f"({one_line(getattr(course, 'name', ''), 80)}), assignment {assignment_id} "
        f"({one_line(getattr(assignment, 'name', ''), 80)}, {_points(getattr(assignment, 'points_possible', None)) or '?'} points)"
    )
    result = Plan(heading)
    for item in grades:
        submission = by_user.get(item.user_id)
        if submission is None:
            result.left.append(
                (item.name, f"Canvas lists no user {item.user_id} in this assignment (not a student of the course?)")
            )
            continue
        if getattr(submission, "excused", False):
            result.left.append((item.name, "excused in Canvas: left as it is"))
            continue
        entered = getattr(submission, "entered_score", None)  # before Canvas's own late policy deducts anything
        now = _points(entered if entered is not None else getattr(submission, "score", None))
        text = comment_text(item.feedback) if item.feedback else ""
        if text and _has_comment(submission, me.id, text):
            text = ""
        if now == item.points and not text:
            result.unchanged.append(item)
        else:
            result.changes.append(Change(item, submission, now, now != item.points, text))
    return result


def _points(value) -> str:
    """Canvas's number as points_text writes the kit's ("" for none)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return points_text(Fraction(str(value)))


def _has_comment(submission, author_id: int, text: str) -> bool:
    """Does a comment written by author_id carry text's last line (its mark and digest)?"""
    mark = text.splitlines()[-1]
    for comment in getattr(submission, "submission_comments", None) or []:
        if isinstance(comment, dict) and comment.get("author_id") == author_id:
            if mark in str(comment.get("comment") or "").splitlines():
                return True
    return False


def send(api: Api, change: Change, course_id: int, assignment_id: int) -> None:
    """One student's grade and comment: the page uploaded (when there is a comment), then one PUT."""
    name, user_id = change.grade.name, change.grade.user_id
    arguments: dict = {}
    if change.send_grade:
        arguments["submission"] = {"posted_grade": change.grade.points}
        arguments["prefer_points_over_scheme"] = True
    if change.comment:
        assert change.grade.feedback is not None
        uploader = Uploader(
            change.submission._requester,  # canvasapi's own upload_comment passes it so; it makes a comment without text
            f"courses/{course_id}/assignments/{assignment_id}/submissions/{user_id}/comments/files",
            str(change.grade.feedback),
            content_type="text/html",
            on_duplicate="rename",
        )
        uploaded, attachment = api.call(f"upload {name}'s feedback page", uploader.start)
        if not uploaded or not isinstance(attachment, dict) or "id" not in attachment:
            raise CanvasPushError(f"Canvas did not confirm the upload of {name}'s feedback page: run again")
        arguments["comment"] = {"text_comment": change.comment, "file_ids": [attachment["id"]]}
    api.call(f"send {name}'s grade and feedback (user {user_id})", change.submission.edit, **arguments)
    stored = _points(getattr(change.submission, "entered_score", None))
    if change.send_grade and stored != change.grade.points:
        raise CanvasPushError(
            f"Canvas stored {stored or 'no score'} for {name}, not {change.grade.points}: check the assignment's "
            "grading type in Canvas (pass/fail takes 0 or its points only)"
        )


# ------------------------------------------------------------------ the command


def push_canvas(
    out: Path,
    course_id: int,
    assignment_id: int,
    *,
    url: str | None = None,
    apply: bool = False,
    environ: Mapping[str, str] | None = None,
    say: Callable[[str], None] = print,
    wait: Callable[[float], None] = time.sleep,
) -> int:
    """Show what would change in Canvas; with apply, send it. 0 when done; CanvasPushError otherwise."""
    address, token = connection(os.environ if environ is None else environ, url)
    grades, left = grades_in(out)
    api = Api(address, token, wait, say)
    result = plan(api, course_id, assignment_id, grades)
    result.left[:0] = left
    for line in describe(result):
        say(line)
    grades_to_send = sum(change.send_grade for change in result.changes)
    comments = sum(bool(change.comment) for change in result.changes)
    if not result.changes:
        say("Nothing to send: Canvas holds every grade and feedback page above.")
        return 0
    if not apply:
        say(
            f"Dry run: {grades_to_send} grades and {comments} feedback comments would be sent. Run again with --apply to send them."
        )
        return 0
    for done, change in enumerate(result.changes):
        try:
            send(api, change, course_id, assignment_id)
        except CanvasPushError as error:
            raise CanvasPushError(
                f"{error} (sent to {done} of {len(result.changes)} students; a rerun sends only the rest)"
            ) from None
        say(f"  sent {change.grade.name}")
    say(f"Sent {grades_to_send} grades and {comments} feedback comments to Canvas. A rerun sends nothing new.")
    return 0


def describe(result: Plan) -> list[str]:
    """The plan as lines to print: each change (student, Canvas id, Canvas's score now, the new one, the comment)."""
    lines = [result.heading]
    if result.changes:
        lines.append(f"  {'student':<{NAME_WIDTH}} {'Canvas id':>10} {'in Canvas':>10} {'new':>10}  feedback comment")
        for change in result.changes:
            item = change.grade
            comment = "add" if change.comment else "-"
            if change.comment and change.now and not change.send_grade:
                comment = "add (the page changed)"
            lines.append(
                f"  {_cut(item.name):<{NAME_WIDTH}} {item.user_id:>10} {change.now or '-':>10} "
                f"{item.points if change.send_grade else '=':>10}  {comment}"
            )
    if result.unchanged:
        lines.append(f"Unchanged: {len(result.unchanged)} students (Canvas holds their grade and feedback page).")
    if result.left:
        lines.append(f"Nothing is sent for {len(result.left)} students:")
        lines += [f"  {name}: {why}" for name, why in result.left]
    return lines


def _cut(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"
