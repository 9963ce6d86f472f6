"""Does push canvas show what would change, send each grade and feedback page as Canvas's REST API takes them,
send nothing twice, and keep the token out of every output?

The server below answers the endpoints push canvas calls, on 127.0.0.1, as Canvas does;
each answer is taken from Canvas's documentation or source, named where it is built:

  [submissions]  Canvas LMS REST API, "Submissions" (canvas.instructure.com/doc/api/submissions.html),
                 generated from instructure/canvas-lms app/controllers/submissions_api_controller.rb:
                 "List assignment submissions" (index: the course's students only, ordered by user id,
                 include[]=submission_comments) and "Grade or comment on a submission" (update: the user
                 must be a student of the course, submission[posted_grade], comment[text_comment],
                 comment[file_ids][] of files "previously uploaded using the Submission Comment API's files
                 action", prefer_points_over_scheme; the answer includes submission_comments and
                 all_submissions; a posted_grade Canvas cannot read is 400 {"error": ...})
  [submission]   lib/api/v1/submission.rb: a Submission's fields (SUBMISSION_JSON_FIELDS and
                 SUBMISSION_JSON_METHODS: score, grade, excused, entered_score, entered_grade, ...)
  [comment]      lib/api/v1/submission_comment.rb submission_comment_json: id author_id author_name
                 created_at edited_at comment attempt, "author" (a UserDisplay) and "attachments"
  [comment-file] "Submission Comments: Upload a file" (app/controllers/submission_comments_api_controller.rb
                 create_file: the assignment, and a student of the course, else 404)
  [uploads]      "File Uploads" (doc/api/file_uploads.md): step 1 answers upload_url and upload_params;
                 step 2 is a multipart POST of every upload_param unchanged, the file last, "The access
                 token is not sent with this request"; step 3, a redirect followed, gives the file's JSON
                 {"id", "url", "content-type", "display_name", "size"}
  [local-files]  Canvas with local storage: lib/api/v1/attachment.rb api_attachment_preflight (upload_url,
                 upload_params, file_param), app/models/attachment.rb ajax_upload_params (Filename, key, acl,
                 Policy, Signature, content-type) and decode_policy (an HMAC of the Policy, else 400),
                 app/controllers/files_controller.rb api_create (a 302 to create_success) and
                 api_create_success (the file found by id and uuid, else 400)
  [pagination]   "Pagination" (doc/api/pagination.md): per_page, with "an unspecified limit" (2 here), and a
                 Link header of absolute URLs, rel="current", "next", "first", "last"
  [errors]       app/controllers/application_controller.rb api_error_json: 404 {"errors": [{"message": "The
                 specified resource does not exist."}]}, a bad token 401 {"errors": [{"message": "Invalid access
                 token."}]} with WWW-Authenticate: Bearer realm="canvas-lms"; lib/authentication_methods.rb:
                 access_token (the Authorization header "Bearer <token>", or an access_token parameter),
                 render_json_unauthorized (no token: 401 "user authorization required"; a user without the
                 right: 401 {"status": "unauthorized", "errors": [{"message": "user not authorized to perform
                 that action"}]}); ucfopen/canvasapi tests/fixtures/requests.json 401_invalid_access_token
  [throttle]     "Throttling" (doc/api/throttling.md) and app/middleware/request_throttle.rb rate_limit_exceeded:
                 403, text/plain "403 Forbidden (Rate Limit Exceeded)\\n", X-Rate-Limit-Remaining 0.0, answered
                 before any controller runs; since October 2025 Canvas answers 429 instead (Canvas's API change
                 log, quoted in ucfopen/canvasapi#704; canvasapi 3.6 raises RateLimitExceeded on 429 only)
  [objects]      ucfopen/canvasapi tests/fixtures: user.json get_by_id (id, name), course.json get_by_id (id,
                 course_code, name, workflow_state); lib/api/v1/assignment.rb assignment_json (id,
                 points_possible, grading_type, course_id, name)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import threading
from email import policy
from email.parser import BytesParser
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from autograder.cli import main
from autograder.deliver.grade_all import answers
from autograder.deliver.grade_all.summary import write_summary
from autograder.deliver.intake import Intake, Submission
from autograder.deliver.routes.canvas_push import MARK, CanvasPushError, comment_text, connection, push_canvas
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from autograder.results.read import read_results
from autograder.results.write import gradescope_json, not_graded_json

from ..students import student_report

TOKEN = "7~Tk3nThatMustNeverShow4b9f2c"  # Canvas's tokens are "<id>~<64 characters>"; any text will do here
COURSE, ASSIGNMENT = 101, 7
TEACHER = {"id": 1, "name": "Ada Teacher"}  # [objects]
PAGE_LIMIT = 2  # [pagination] "an unspecified limit to how big you can set per_page"
NOT_FOUND = {"errors": [{"message": "The specified resource does not exist."}]}  # [errors]
NOT_AUTHORIZED = {"status": "unauthorized", "errors": [{"message": "user not authorized to perform that action"}]}
PUT_PARAMETERS = {  # [submissions] update's arguments
    "comment[text_comment]",
    "comment[attempt]",
    "comment[group_comment]",
    "comment[media_comment_id]",
    "comment[media_comment_type]",
    "comment[file_ids][]",
    "include[visibility]",
    "prefer_points_over_scheme",
    "submission[posted_grade]",
    "submission[excuse]",
    "submission[late_policy_status]",
    "submission[sticker]",
    "submission[seconds_late_override]",
}
FILE_PARAMETERS = {
    "name",
    "size",
    "content_type",
    "parent_folder_id",
    "parent_folder_path",
    "on_duplicate",
}  # [uploads]


# ------------------------------------------------------------------ the server


class FakeCanvas:
    """One course, one assignment, its students' submissions, and every request as it came."""

    def __init__(self):
        self.token = TOKEN
        self.url = ""  # where the server listens, once started
        self.courses = {
            COURSE: {"id": COURSE, "course_code": "TR101", "name": "Transformers", "workflow_state": "available"}
        }
        self.assignments = {
            (COURSE, ASSIGNMENT): {
                "id": ASSIGNMENT,
                "course_id": COURSE,
                "name": "mha",
                "points_possible": 47.0,
                "grading_type": "points",
            }
        }
        self.students = {COURSE: [12345, 12346, 12347, 12348, 12349, 12350, 12351]}
        self.submissions = {(COURSE, ASSIGNMENT, user): blank_submission(user) for user in self.students[COURSE]}
        self.attachments: dict[int, dict] = {}
        self.requests: list[dict] = []  # each: method, path, query, fields, authorized
        self.unknown: list[str] = []  # parameters Canvas would ignore: a misspelt name fails a test on them
        self.leaks: list[str] = []  # the token where it must never go
        self.throttled: list[int] = []  # statuses for the next requests: Canvas throttling them
        self.quote_authorization = False  # a proxy in front that quotes the request in its 403 (for the secrecy test)
        self.secret = b"local_storage-secret"
        self.ids = iter(range(5000, 10**6))
        self.lock = threading.Lock()

    def sent(self, method: str) -> list[dict]:
        return [r for r in self.requests if r["method"] == method]


def blank_submission(user: int) -> dict:
    """[submission] what Canvas holds for a student who has no grade yet."""
    return {
        "id": 900 + user % 1000,
        "user_id": user,
        "assignment_id": ASSIGNMENT,
        "url": None,
        "score": None,
        "grade": None,
        "excused": False,
        "attempt": None,
        "submission_type": None,
        "submitted_at": None,
        "body": None,
        "graded_at": None,
        "grade_matches_current_submission": True,
        "grader_id": None,
        "workflow_state": "unsubmitted",
        "late_policy_status": None,
        "points_deducted": None,
        "grading_period_id": None,
        "cached_due_date": None,
        "late": False,
        "missing": False,
        "seconds_late": 0,
        "entered_grade": None,
        "entered_score": None,
        "comments": [],
    }


def graded(submission: dict, score: float, grader: int) -> None:
    """[submissions] update: posted_grade in points sets score and grade, and the entered ones."""
    text = f"{score:g}"
    submission.update(score=score, grade=text, entered_score=score, entered_grade=text)
    submission.update(workflow_state="graded", grader_id=grader, graded_at="2024-02-01T10:00:00Z")


def comment(canvas: FakeCanvas, author: dict, text: str, attachments: list[dict] = ()) -> dict:
    """[comment] a SubmissionComment as Canvas answers it."""
    found = {
        "id": next(canvas.ids),
        "author_id": author["id"],
        "author_name": author["name"],
        "author": {"id": author["id"], "display_name": author["name"], "avatar_image_url": "", "html_url": ""},
        "comment": text,
        "created_at": "2024-02-01T10:00:00Z",
        "edited_at": None,
        "attempt": None,
    }
    if attachments:
        found["attachments"] = [file_json(a) for a in attachments]
    return found


def file_json(attachment: dict) -> dict:
    """[uploads] step 3's answer."""
    return {
        "id": attachment["id"],
        "url": f"{attachment['base']}/files/{attachment['id']}/download?verifier={attachment['uuid']}",
        "content-type": attachment["content_type"],
        "display_name": attachment["name"],
        "size": len(attachment["data"]),
    }


def submission_json(canvas: FakeCanvas, found: dict, comments: bool) -> dict:
    """[submission] the fields Canvas writes; [comment] submission_comments when included."""
    answer = {k: v for k, v in found.items() if k != "comments"}
    answer["preview_url"] = f"/courses/{COURSE}/assignments/{ASSIGNMENT}/submissions/{found['user_id']}?preview=1"
    if comments:
        answer["submission_comments"] = list(found["comments"])
    return answer


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        self.answer("GET")

    def do_POST(self):
        self.answer("POST")

    def do_PUT(self):
        self.answer("PUT")

    # -- plumbing

    def answer(self, method: str) -> None:
        canvas = self.server.canvas
        parts = urlsplit(self.path)
        query = parse_qsl(parts.query, keep_blank_values=True)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        kind = self.headers.get("Content-Type", "")
        if kind.startswith("multipart/form-data"):
            fields = multipart(kind, body)
        else:
            fields = [(k, v, None) for k, v in parse_qsl(body.decode(), keep_blank_values=True)]
        authorization = self.headers.get("Authorization", "")
        with canvas.lock:
            canvas.requests.append(
                {"method": method, "path": parts.path, "query": query, "fields": [(k, v) for k, v, _ in fields]}
            )
            if any(k == "access_token" for k, _ in query):
                canvas.leaks.append(f"access_token in the URL of {method} {parts.path}")
            if canvas.throttled and parts.path.startswith("/api/v1/"):  # [throttle] before any controller
                status = canvas.throttled.pop(0)
                reason = "Forbidden" if status == 403 else "Too Many Requests"
                return self.text(
                    status, f"{status} {reason} (Rate Limit Exceeded)\n", {"X-Rate-Limit-Remaining": "0.0"}
                )
            if parts.path == "/files_api":
                return self.upload(fields, authorization)
            match = re.fullmatch(r"/api/v1/files/(\d+)/create_success", parts.path)
            if match:  # [local-files] api_create_success: the uuid is its credential
                return self.create_success(int(match[1]), dict(query).get("uuid", ""))
            if not parts.path.startswith("/api/v1/"):
                return self.json(404, NOT_FOUND)
            if not self.authenticated(authorization, query):
                return None
            if canvas.quote_authorization:
                return self.text(403, f"403 Forbidden: the proxy refused {method} {parts.path} ({authorization})")
            return self.route(method, parts.path, query, fields)

    def authenticated(self, authorization: str, query) -> bool:
        """[errors] lib/authentication_methods.rb access_token, and the 401s of a missing or wrong token."""
        scheme, _, value = authorization.partition(" ")
        token = value if scheme == "Bearer" else dict(query).get("access_token", "")
        challenge = {"WWW-Authenticate": 'Bearer realm="canvas-lms"'}
        if not token:
            body = {"status": "unauthenticated", "errors": [{"message": "user authorization required"}]}
            self.json(401, body, challenge)
            return False
        if token != self.server.canvas.token:
            self.json(401, {"errors": [{"message": "Invalid access token."}]}, challenge)
            return False
        return True

    def route(self, method: str, path: str, query, fields) -> None:
        canvas = self.server.canvas
        params = [(k, v) for k, v, _ in fields] + list(query)
        course = re.fullmatch(r"/api/v1/courses/(\d+)(/.*)?", path)
        if method == "GET" and path == "/api/v1/users/self":
            return self.json(200, TEACHER)
        if not course or int(course[1]) not in canvas.courses:
            return self.json(404, NOT_FOUND)
        course_id, rest = int(course[1]), course[2] or ""
        if method == "GET" and rest == "":
            return self.json(200, canvas.courses[course_id])
        assignment = re.fullmatch(r"/assignments/(\d+)(/submissions(?:/(\d+)(/comments/files)?)?)?", rest)
        if not assignment or (course_id, int(assignment[1])) not in canvas.assignments:
            return self.json(404, NOT_FOUND)
        assignment_id = int(assignment[1])
        if method == "GET" and not assignment[2]:
            return self.json(200, canvas.assignments[(course_id, assignment_id)])
        if method == "GET" and assignment[2] and not assignment[3]:
            return self.index(course_id, assignment_id, query)
        user = int(assignment[3]) if assignment[3] else None
        if user is None or user not in canvas.students[course_id]:
            return self.json(404, NOT_FOUND)  # api_find of the course's students
        if method == "POST" and assignment[4]:
            return self.preflight(course_id, assignment_id, user, params)
        if method == "PUT" and not assignment[4]:
            return self.update(course_id, assignment_id, user, params)
        return self.json(404, NOT_FOUND)

    # -- the endpoints

    def index(self, course_id: int, assignment_id: int, query) -> None:
        """[submissions] index, [pagination]."""
        canvas = self.server.canvas
        includes = [v for k, v in query if k == "include[]"]
        canvas.unknown += [k for k, _ in query if k not in ("include[]", "per_page", "page", "grouped")]
        per_page = min(int(dict(query).get("per_page", 10)), PAGE_LIMIT)
        page = int(dict(query).get("page", 1))
        users = sorted(canvas.students[course_id])
        last = max(1, -(-len(users) // per_page))
        shown = users[(page - 1) * per_page : page * per_page]
        kept = [(k, v) for k, v in query if k not in ("page", "per_page")]
        base = f"http://127.0.0.1:{self.server.server_port}/api/v1/courses/{course_id}/assignments/{assignment_id}/submissions"

        def link(number: int, rel: str) -> str:
            return f'<{base}?{urlencode([*kept, ("page", number), ("per_page", per_page)])}>; rel="{rel}"'

        links = [link(page, "current")] + ([link(page + 1, "next")] if page < last else [])
        links += [link(1, "first"), link(last, "last")]
        found = [
            submission_json(
                canvas, canvas.submissions[(course_id, assignment_id, u)], "submission_comments" in includes
            )
            for u in shown
        ]
        self.json(200, found, {"Link": ",".join(links)})

    def preflight(self, course_id: int, assignment_id: int, user: int, params) -> None:
        """[comment-file] step 1 of [uploads], as Canvas with [local-files] answers it."""
        canvas = self.server.canvas
        canvas.unknown += [k for k, _ in params if k not in FILE_PARAMETERS]
        given = dict(params)
        attachment = {
            "id": next(canvas.ids),
            "uuid": hashlib.sha1(str(next(canvas.ids)).encode()).hexdigest(),
            "name": given.get("name", "file"),
            "content_type": given.get("content_type", "unknown/unknown"),
            "for": ("comment", course_id, assignment_id),
            "data": b"",
            "uploaded": False,
            "base": f"http://127.0.0.1:{self.server.server_port}",
        }
        canvas.attachments[attachment["id"]] = attachment
        policy_text = base64.b64encode(
            json.dumps({"expiration": "2099-01-01T00:00:00Z", "attachment_id": attachment["id"]}).encode()
        ).decode()
        signature = base64.b64encode(hmac.new(canvas.secret, policy_text.encode(), hashlib.sha1).digest()).decode()
        attachment["params"] = {
            "Filename": attachment["name"],
            "key": f"attachments/{attachment['id']}/{attachment['name']}",
            "acl": "private",
            "Policy": policy_text,
            "Signature": signature,
            "content-type": attachment["content_type"],
        }
        self.json(
            200,
            {
                "upload_url": f"{attachment['base']}/files_api",
                "upload_params": attachment["params"],
                "file_param": "attachment[uploaded_data]",
            },
        )

    def upload(self, fields, authorization: str) -> None:
        """[uploads] step 2 to [local-files] api_create: every param unchanged, the file last, no token."""
        canvas = self.server.canvas
        if authorization:
            canvas.leaks.append("the Authorization header sent to the upload URL")
        named = {k: v for k, v, data in fields if data is None}
        try:
            policy_data = json.loads(base64.b64decode(named.get("Policy", "")))
            attachment = canvas.attachments[policy_data["attachment_id"]]
        except (ValueError, KeyError):
            return self.head(400)
        expected = hmac.new(canvas.secret, named.get("Policy", "").encode(), hashlib.sha1).digest()
        last_name, _, data = fields[-1] if fields else ("", "", None)
        if (
            named != attachment["params"]
            or base64.b64decode(named.get("Signature", "")) != expected
            or data is None
            or last_name not in ("file", "attachment[uploaded_data]")
        ):
            return self.head(400)
        attachment.update(data=data, uploaded=True)
        where = f"{attachment['base']}/api/v1/files/{attachment['id']}/create_success?uuid={attachment['uuid']}"
        self.head(302, {"Location": where})  # Rails' redirect_to

    def create_success(self, attachment_id: int, uuid: str) -> None:
        """[local-files] api_create_success; [uploads] step 3."""
        attachment = self.server.canvas.attachments.get(attachment_id)
        if attachment is None or attachment["uuid"] != uuid or not attachment["uploaded"]:
            return self.head(400)
        self.json(200, file_json(attachment))

    def update(self, course_id: int, assignment_id: int, user: int, params) -> None:
        """[submissions] update."""
        canvas = self.server.canvas
        canvas.unknown += [k for k, _ in params if k not in PUT_PARAMETERS]
        given = dict(params)
        found = canvas.submissions[(course_id, assignment_id, user)]
        files = []
        for key, value in params:
            if key == "comment[file_ids][]":
                attachment = canvas.attachments.get(int(value)) if value.isdigit() else None
                if attachment is None or not attachment["uploaded"]:
                    return self.json(404, NOT_FOUND)
                if attachment["for"] != ("comment", course_id, assignment_id):  # :attach_to_submission_comment
                    return self.json(401, NOT_AUTHORIZED)
                files.append(attachment)
        if "submission[posted_grade]" in given:
            text = given["submission[posted_grade]"].strip()
            points = canvas.assignments[(course_id, assignment_id)]["points_possible"]
            if re.fullmatch(r"-?\d+(\.\d+)?", text):
                score = float(text)
            elif re.fullmatch(r"-?\d+(\.\d+)?%", text):
                score = float(text[:-1]) * points / 100
            else:
                return self.json(400, {"error": f"invalid grade: {text}"})  # Assignment::GradeError
            graded(found, score, TEACHER["id"])
        if "comment[text_comment]" in given or files:
            found["comments"].append(comment(canvas, TEACHER, given.get("comment[text_comment]", ""), files))
        answer = submission_json(canvas, found, comments=True)
        answer["all_submissions"] = [submission_json(canvas, found, comments=False)]
        self.json(200, answer)

    # -- answers

    def json(self, status: int, data, headers: dict | None = None) -> None:
        self.send(status, json.dumps(data).encode(), "application/json; charset=utf-8", headers)

    def text(self, status: int, data: str, headers: dict | None = None) -> None:
        self.send(status, data.encode(), "text/plain; charset=utf-8", headers)

    def head(self, status: int, headers: dict | None = None) -> None:
        self.send(status, b"", "text/html", headers)

    def send(self, status: int, data: bytes, kind: str, headers: dict | None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def multipart(kind: str, body: bytes) -> list[tuple[str, str, bytes | None]]:
    """A multipart/form-data body's parts, in order: (name, value, the file's bytes or None)."""
    message = BytesParser(policy=policy.HTTP).parsebytes(f"Content-Type: {kind}\r\n\r\n".encode() + body)
    parts = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if part.get_filename() is None:
            parts.append((name, payload.decode(), None))
        else:
            parts.append((name, "", payload))
    return parts


class Server(ThreadingHTTPServer):
    daemon_threads = True
    canvas: FakeCanvas


@pytest.fixture
def canvas():
    """A Canvas on 127.0.0.1, for one test: John already holds a TA's 10, Cleo a TA's 25, Mallory a comment of her own."""
    server = Server(("127.0.0.1", 0), Handler)
    server.canvas = FakeCanvas()
    ta = {"id": 2, "name": "Tom Assistant"}
    graded(server.canvas.submissions[(COURSE, ASSIGNMENT, 12346)], 10.0, ta["id"])
    server.canvas.submissions[(COURSE, ASSIGNMENT, 12346)]["comments"].append(comment(server.canvas, ta, "See me."))
    graded(server.canvas.submissions[(COURSE, ASSIGNMENT, 12347)], 25.0, ta["id"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.canvas.url = f"http://127.0.0.1:{server.server_port}"
    yield server.canvas
    server.shutdown()
    server.server_close()


# ------------------------------------------------------------------ grade-all's folder

# key, name, Canvas user id, status, written answers' points (why_scale, straight_reshape, why_padding, previous_token)
CLASS = [
    ("doejane-12345", "Jane Doe", "12345", GRADED, (2, 1, 2, 2)),  # 31.2 + 7
    ("roejohn-12346", "John Roe", "12346", GRADED, (1, 0, 1, 1)),  # 31.2 + 3
    ("cleo-12347", "Cleo", "12347", KIT_ERROR, None),  # the kit failed: nothing sent
    ("mallory-12348", "Mallory", "12348", GRADED, (0, 0, 0, 0)),
    ("ben-12349", "Ben", "12349", NOT_GRADED, (0, 0, 0, 0)),  # nothing gradable submitted: the student's 0
    ("pat-12350", "Pat", "12350", GRADED, (2, 1, 2)),  # one written answer without points yet
    ("nobody", "Nobody", "", GRADED, (2, 1, 2, 2)),
    ("anon_x7Kq", "anon_x7Kq", "anon_x7Kq", GRADED, (2, 1, 2, 2)),
    ("ghost-99999", "Ghost", "99999", GRADED, (2, 1, 2, 2)),  # not a student of the course
]
TOTALS = {12345: "38.2", 12346: "34.2", 12348: "31.2", 12349: "0"}


@pytest.fixture
def out(tmp_path, mha) -> Path:
    """grade-all's folder for CLASS, written by the kit's own writers (results.json, summary.csv), with a page each."""
    folder = tmp_path / "out"
    questions = answers.questions(mha)
    results, status, points = {}, {}, {}
    for key, name, _, what, written in CLASS:
        if what == GRADED:
            document = gradescope_json(student_report())
        else:
            document = not_graded_json(f"{name}'s reason", "mha", student_fault=what == NOT_GRADED)
        (folder / "students" / key).mkdir(parents=True)
        (folder / "students" / key / "results.json").write_text(json.dumps(document))
        (folder / "students" / key / "feedback.html").write_text(f"<!doctype html><p>{name}'s feedback</p>")
        results[key] = read_results(document)
        status[key] = (what, "" if what == GRADED else f"{name}'s reason")
        if written is not None:
            points[key] = {q.id: Fraction(p) for q, p in zip(questions, written)}
    intake = Intake("canvas", [Submission(k, n, i, folder, "canvas") for k, n, i, _, _ in CLASS], [])
    write_summary(intake, mha, folder, results, status, written=answers.Written(questions, points))
    return folder


def push(out: Path, canvas: FakeCanvas, apply: bool, waits: list | None = None, **environ) -> list[str]:
    said: list[str] = []
    env = {"CANVAS_API_TOKEN": canvas.token, "CANVAS_API_URL": canvas.url, **environ}
    waited = waits if waits is not None else []
    assert push_canvas(out, COURSE, ASSIGNMENT, apply=apply, environ=env, say=said.append, wait=waited.append) == 0
    return said


def row_of(lines: list[str], user: int) -> list[str]:
    found = [line.split() for line in lines if f" {user} " in line]
    assert len(found) == 1, lines
    return found[0]


def held(canvas: FakeCanvas, user: int) -> dict:
    return canvas.submissions[(COURSE, ASSIGNMENT, user)]


# ------------------------------------------------------------------ the tests


def test_a_dry_run_shows_each_change_against_canvas_and_sends_nothing(out, canvas):
    """Does the default run list student, Canvas's score now, the new one and the comment, list who gets nothing and why, and send nothing?"""
    lines = push(out, canvas, apply=False)
    assert lines[0].startswith(f"Canvas {canvas.url} as Ada Teacher (user 1): course 101 (Transformers), assignment 7")
    assert row_of(lines, 12345)[-4:] == ["12345", "-", "38.2", "add"]
    assert row_of(lines, 12346)[-4:] == ["12346", "10", "34.2", "add"]
    assert row_of(lines, 12348)[-4:] == ["12348", "-", "31.2", "add"]
    assert row_of(lines, 12349)[-4:] == [
        "12349",
        "-",
        "0",
        "add",
    ]  # nothing gradable: the student's 0, as the LMS files
    left = "\n".join(lines[lines.index(next(line for line in lines if line.startswith("Nothing is sent for"))) :])
    assert "Cleo: not graded by the kit (Cleo's reason): never a 0" in left
    assert "Pat: written answers without points yet" in left
    assert "Nobody: the export carried no Canvas user id" in left
    assert "anon_x7Kq: anonymous grading hid the Canvas user id" in left
    assert "Ghost: Canvas lists no user 99999 in this assignment" in left
    assert lines[-1].startswith("Dry run: 4 grades and 4 feedback comments would be sent")
    assert canvas.sent("PUT") == [] and canvas.sent("POST") == []
    assert [r["query"] for r in canvas.sent("GET") if r["path"].endswith("/submissions")][0] == [
        ("include[]", "submission_comments"),
        ("per_page", "100"),
    ]
    assert len([r for r in canvas.sent("GET") if r["path"].endswith("/submissions")]) == 4  # every page, by Link


def test_apply_sends_each_grade_and_page_as_canvas_stores_them(out, canvas):
    """With --apply, does Canvas hold each new grade, and a comment by the teacher with the page attached, and nothing else change?"""
    push(out, canvas, apply=True)
    for user, total in TOTALS.items():
        assert held(canvas, user)["entered_score"] == float(total) and held(canvas, user)["workflow_state"] == "graded"
        kit = held(canvas, user)["comments"][-1]
        assert kit["author_id"] == TEACHER["id"] and kit["comment"].startswith("Your feedback page")
        (page,) = kit["attachments"]
        assert page["display_name"] == "feedback.html" and page["content-type"] == "text/html"
        key = next(k for k, _, i, _, _ in CLASS if i == str(user))
        assert canvas.attachments[page["id"]]["data"] == (out / "students" / key / "feedback.html").read_bytes()
    assert held(canvas, 12347)["entered_score"] == 25.0  # the kit's failure: the TA's grade stays
    assert held(canvas, 12350)["entered_score"] is None and held(canvas, 12351)["comments"] == []
    assert held(canvas, 12346)["comments"][0]["comment"] == "See me."
    puts = canvas.sent("PUT")
    assert len(puts) == 4 and all(("prefer_points_over_scheme", "true") in r["fields"] for r in puts)
    assert canvas.unknown == [] and canvas.leaks == []


def test_a_rerun_sends_nothing_new(out, canvas):
    """Does a second --apply send nothing, and a changed page only its comment (the grade as it is)?"""
    push(out, canvas, apply=True)
    before = len(canvas.requests)
    lines = push(out, canvas, apply=True)
    assert lines[-1] == "Nothing to send: Canvas holds every grade and feedback page above."
    assert {r["method"] for r in canvas.requests[before:]} == {"GET"}
    (out / "students" / "doejane-12345" / "feedback.html").write_text("<p>Jane's feedback, with a note</p>")
    lines = push(out, canvas, apply=False)
    assert row_of(lines, 12345)[-7:] == ["12345", "38.2", "=", "add", "(the", "page", "changed)"]
    push(out, canvas, apply=True)
    assert len(held(canvas, 12345)["comments"]) == 2 and len(canvas.sent("PUT")) == 5
    assert ("submission[posted_grade]", "38.2") not in canvas.sent("PUT")[-1]["fields"]


def test_a_mark_a_student_wrote_is_not_taken_for_the_kits(out, canvas):
    """Is a comment by the student carrying the kit's mark and the right digest ignored, so that the page is still sent?"""
    forged = comment_text(out / "students" / "mallory-12348" / "feedback.html")
    assert forged.splitlines()[-1].startswith(MARK + " ")
    held(canvas, 12348)["comments"].append(comment(canvas, {"id": 12348, "name": "Mallory"}, forged))
    lines = push(out, canvas, apply=True)
    assert row_of(lines, 12348)[-1] == "add"
    assert [c["author_id"] for c in held(canvas, 12348)["comments"]] == [12348, TEACHER["id"]]


@pytest.mark.parametrize("status", [403, 429])
def test_throttling_is_waited_out(out, canvas, status):
    """Throttled (Canvas's 403 Rate Limit Exceeded, or the 429 of since 2025): does push wait, retry and finish?"""
    canvas.throttled = [status, status, status]
    waits: list[float] = []
    lines = push(out, canvas, apply=True, waits=waits)
    assert waits == [2.0, 4.0, 8.0] and lines[-1].startswith("Sent 4 grades")
    canvas.throttled = [status] * 10
    with pytest.raises(CanvasPushError, match="kept throttling"):
        push(out, canvas, apply=False)


def all_text(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    "setting, expected",
    [
        ({"CANVAS_API_TOKEN": "7~wrong"}, "does not accept the token in CANVAS_API_TOKEN (401 Invalid access token)"),
        ({"course": 999}, "could not read course 999: Canvas has no such course"),
        ({"assignment": 8}, "could not read assignment 8 of course 101: Canvas has no such"),
        ({"CANVAS_API_URL": "http://127.0.0.1:9"}, "could not be reached"),
        (
            {"quote": True},
            "Canvas refused (403: 403 Forbidden: the proxy refused GET /api/v1/users/self (Bearer [token]))",
        ),
    ],
)
def test_errors_name_the_problem_and_never_the_token(out, canvas, capsys, setting, expected, tmp_path):
    """A wrong token, course, assignment or address, or a proxy that quotes the request: a clear error, without the token?"""
    canvas.quote_authorization = setting.pop("quote", False)
    course, assignment = setting.pop("course", COURSE), setting.pop("assignment", ASSIGNMENT)
    env = {"CANVAS_API_TOKEN": TOKEN, "CANVAS_API_URL": canvas.url, **setting}
    with pytest.raises(CanvasPushError) as raised:
        push_canvas(out, course, assignment, apply=True, environ=env, say=print, wait=lambda s: None)
    assert expected in str(raised.value)
    printed = capsys.readouterr()
    assert TOKEN not in str(raised.value) + printed.out + printed.err + all_text(tmp_path)
    assert canvas.sent("PUT") == []


def test_the_command_line_reads_the_token_from_the_environment_only(out, canvas, monkeypatch, capsys, tmp_path):
    """Does `push canvas` run from the environment's token, print no token, write no file, and refuse a missing one?"""
    listing = sorted(p for p in tmp_path.rglob("*"))
    monkeypatch.setenv("CANVAS_API_TOKEN", TOKEN)
    monkeypatch.setenv("CANVAS_API_URL", canvas.url)
    args = ["push", "canvas", str(out), "--course", str(COURSE), "--assignment", str(ASSIGNMENT)]
    assert main(args + ["--apply"]) == 0
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "Nothing to send" in printed.out and TOKEN not in printed.out + printed.err
    assert sorted(p for p in tmp_path.rglob("*")) == listing and TOKEN not in all_text(tmp_path)
    monkeypatch.setenv("CANVAS_API_TOKEN", TOKEN + "\n" + "x")
    assert main(args) == 2
    assert "holds a space or a character no token has" in capsys.readouterr().err
    monkeypatch.delenv("CANVAS_API_TOKEN")
    assert main(args) == 2
    assert "set CANVAS_API_TOKEN" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main(["push", "canvas", str(out), "--course", "x1", "--assignment", "7"])
    assert refused.value.code == 2 and "'x1' is not a Canvas id" in capsys.readouterr().err


@pytest.mark.parametrize(
    "url, expected",
    [
        ("http://canvas.example.edu", "is not https: the token would cross the network in clear"),
        ("https://user:pw@canvas.example.edu", "no user, password or query"),
        ("https://canvas.example.edu/api/v1", "leave /api/v1 out of the address: https://canvas.example.edu"),
        ("canvas.example.edu", "is not a Canvas address"),
    ],
)
def test_an_unsafe_or_wrong_address_is_refused_before_any_request(url, expected):
    """Is an address that would send the token in clear, or is not one, refused with the fix?"""
    with pytest.raises(CanvasPushError, match=re.escape(expected)):
        connection({"CANVAS_API_TOKEN": TOKEN}, url)
    assert connection({"CANVAS_API_TOKEN": TOKEN}, "http://localhost:3000/") == ("http://localhost:3000", TOKEN)


def test_the_stand_in_refuses_what_canvas_refuses(canvas):
    """Does the server above fail a wrong call as Canvas would (no token, a misspelt parameter, a file not for comments)?"""
    import requests

    url = f"{canvas.url}/api/v1/courses/{COURSE}/assignments/{ASSIGNMENT}/submissions/12345"
    assert requests.put(url, data={"submission[posted_grade]": "3"}).status_code == 401
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert requests.put(url, data={"submission[score]": "3"}, headers=bearer).status_code == 200
    assert held(canvas, 12345)["entered_score"] is None and canvas.unknown == ["submission[score]"]
    assert requests.put(url, data={"submission[posted_grade]": "B+"}, headers=bearer).status_code == 400
    canvas.attachments[1] = {"id": 1, "uploaded": True, "for": ("course files", COURSE, None)}
    assert requests.put(url, data={"comment[file_ids][]": "1"}, headers=bearer).json() == NOT_AUTHORIZED
    assert requests.get(f"{canvas.url}/api/v1/courses/{COURSE}/assignments/99", headers=bearer).json() == NOT_FOUND
