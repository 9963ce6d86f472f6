"""Grade a class: an LMS export in, a summary, a class report and a feedback file per student out.

    python -m autograder grade-all SUBMISSIONS --out DIR [--assignment mha] [--jobs 4]

SUBMISSIONS is a folder or a zip as Canvas, Moodle, Blackboard, Gradescope or GitHub
Classroom export it, or a folder per student (deliver/intake.py reads them). Each
student is graded into DIR/students/<key>/ (results.json, feedback.html, feedback.md),
written atomically by the worker that graded them, then DIR/summary.csv (a row per
student: who, the late flag, the points per exercise, the file graded, the status and
its reason) and the class report (report.txt, report.png) are written, whatever
happened to any student.

A rerun grades again only the students whose submission changed, or everyone when
anything that decides a grade changed (the graders, probes, reference, points, known
mistakes, the kit, the grading options): each results.json keeps both fingerprints.
``--force`` grades everyone again.

The grader is prepared once (reference, plan, rehearsal, isolation, and a check that
the reference gets full marks through the sandbox on this host); workers fork from it,
each with a zygote and uids of its own. When the first submissions all fail for a
reason outside student code, the run stops instead of grading a class of errors.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import multiprocessing
import os
import queue
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from .. import KIT_ROOT, __version__
from .. import assignment as assignments
from ..assignment import Assignment
from ..config import GradingConfig
from ..errors import KitError
from ..public import trees
from ..results.files import gradescope_json, not_graded_json, write_atomically
from ..results.scoring import points_text
from ..results.text import clean, clean_name
from . import answers
from .clusters import NOTES_FILE
from .intake import Intake, Submission, read_intake

STOP_AFTER = 3  # host failures in a row, from the start, that end a run


def grading_digest(assignment: Assignment, config: GradingConfig) -> str:
    """A hash of everything that decides a grade: a change of any of it grades everyone again."""
    digest = hashlib.sha256(
        f"{__version__}\n{config.device} {config.timeout} {config.wall_factor} {config.memory} {config.processes} {config.isolation}\n".encode()
    )
    kit = KIT_ROOT / "autograder"
    files = [p for folder in ("public", "grade", "sandbox") for p in sorted((kit / folder).rglob("*.py"))]
    files += [kit / "results" / "scoring.py", kit / "config.py"]
    files += sorted(
        p
        for p in assignment.folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name != NOTES_FILE  # notes decide feedback only
    )
    for path in files:
        digest.update(
            path.relative_to(KIT_ROOT).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest()
        )
    return digest.hexdigest()


def fingerprint(path: Path) -> str:
    """A hash of everything submitted (links aside): a changed submission is graded again."""
    digest = hashlib.sha256()
    path = Path(path)
    try:
        files = [path] if path.is_file() else trees.regular_files(path)
    except trees.TreeTooDeep as error:  # refused when graded: the refusal is what is fingerprinted
        return hashlib.sha256(str(error).encode("utf-8", "surrogateescape")).hexdigest()
    for file in files[:5000]:
        digest.update(file.relative_to(path.parent).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        inner = hashlib.sha256()
        with open(file, "rb") as handle:
            while chunk := handle.read(1 << 20):
                inner.update(chunk)
        digest.update(inner.digest())
    return digest.hexdigest()


def student_record(submission: Submission) -> dict:
    """Who a result belongs to, as results.json's extra_data.student keeps it."""
    record = asdict(submission)
    record["path"] = clean_name(str(submission.path))
    record["earlier"] = [clean_name(p.name) for p in submission.earlier]
    record["members"] = [{"name": n, "student_id": i, "email": e} for n, i, e in submission.members]
    return record


def results_path(out: Path, submission: Submission) -> Path:
    return out / "students" / submission.key / "results.json"


def is_done(submission: Submission, out: Path, digest: str, finger: str) -> bool:
    try:
        extra = json.loads(results_path(out, submission).read_text())["extra_data"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (
        extra.get("status") == "graded" and extra.get("grading_digest") == digest and extra.get("fingerprint") == finger
    )


# ------------------------------------------------------------------ a worker


def _grade_one(
    grader, submission: Submission, out: Path, digest: str, finger: str, show_hidden: bool
) -> tuple[str, str]:
    """Grade one student into out/students/<key>/; return (status, reason)."""
    from ..grade.engine import HostError
    from ..public.loader import SubmissionError
    from .feedback import write_feedback

    extra = {"fingerprint": finger, "grading_digest": digest, "student": student_record(submission)}
    folder = results_path(out, submission).parent
    try:
        if submission.refused:
            raise SubmissionError(submission.refused)
        report = grader.grade(submission.path, label=clean_name(submission.path.name))
        results = gradescope_json(report, extra=extra)
        status, reason = (
            ("error", "the kit failed on some checks: " + "; ".join(results["extra_data"]["internal_errors"])[:300])
            if report.internal_errors()
            else ("graded", "")
        )
    except SubmissionError as error:
        results = not_graded_json(str(error), grader.assignment.name, extra, student_fault=True)
        status, reason = "not graded", clean(error, 300)
    except HostError as error:
        results = not_graded_json(str(error), grader.assignment.name, extra)
        status, reason = "error", clean(error, 300)
    except Exception as error:  # a bug of the kit: never the student's zero
        results = not_graded_json(f"{type(error).__name__}: {error}", grader.assignment.name, extra)
        status, reason = "error", clean(f"{type(error).__name__}: {error}", 300)
    if status != "graded":
        results["extra_data"]["status"] = "not graded" if status == "not graded" else "error"
    write_atomically(folder / "results.json", json.dumps(results, indent=2) + "\n")
    write_feedback(results, folder, show_hidden=show_hidden, student=submission.name)
    _keep_notebook(submission, results, folder)
    return status, reason


def _keep_notebook(submission: Submission, results: dict, folder: Path) -> None:
    """The notebook graded, beside its results: nbgrader's feedback route renders it (deliver/gradebook.py)."""
    import shutil

    entry = results["extra_data"].get("entry", "")
    source = submission.path.parent / entry if entry else None
    if (
        source is not None
        and source.suffix == ".ipynb"
        and source.is_file()
        and not source.is_symlink()
        and source.stat().st_size < 16 * 2**20
    ):
        shutil.copyfile(source, folder / "submission.ipynb")


def _worker(grader, out: str, tasks, done, digest: str, show_hidden: bool) -> None:
    try:
        while True:
            task = tasks.get()
            if task is None:
                return
            submission, finger = task
            status, reason = _grade_one(grader, submission, Path(out), digest, finger, show_hidden)
            done.put((submission.key, status, reason))
    except KeyboardInterrupt:  # Ctrl-C reaches every worker: the parent says so once
        return
    finally:
        grader.close()


# ------------------------------------------------------------------ the class


def grade_all(
    folder: Path,
    assignment_name: str | None,
    out: Path,
    config: GradingConfig,
    jobs: int = 1,
    progress: bool = True,
    force: bool = False,
    show_hidden: bool = False,
    lms_column_id: str = "",
    manual_points: Path | None = None,
) -> int:
    """Grade a class into out/; print the report; return the command's exit status (130 when interrupted)."""
    try:
        return _grade_all(
            folder, assignment_name, Path(out), config, jobs, progress, force, show_hidden, lms_column_id, manual_points
        )
    except KeyboardInterrupt:  # what is graded is kept: a rerun grades only the rest
        print("\ninterrupted: rerun to resume", file=sys.stderr)
        return 130


def _grade_all(
    folder: Path,
    assignment_name,
    out: Path,
    config,
    jobs,
    progress,
    force,
    show_hidden,
    lms_column_id: str,
    manual_points: Path | None,
) -> int:
    out.mkdir(parents=True, exist_ok=True, mode=0o700)  # the class's results: no other user's, no student uid's
    scratch = tempfile.mkdtemp(prefix="autograder-intake-")
    try:
        intake = read_intake(folder, Path(scratch))
        if not intake.submissions:
            raise KitError(f"{clean_name(folder)} holds no submission" + _skipped_text(intake))
        assignment = assignments.get(assignment_name) if assignment_name else _infer(intake)
        written = answers.written_of(assignment, intake, manual_points)  # a bad points file stops here, before grading
        digest = grading_digest(assignment, config)
        fingers = {s.key: fingerprint(s.path) for s in intake.submissions}
        todo = [s for s in intake.submissions if force or not is_done(s, out, digest, fingers[s.key])]
        unchanged = {s.key for s in intake.submissions if s not in todo}
        status = {key: ("graded", "") for key in unchanged}
        stopped = ""
        if todo:
            try:
                private = (Path(folder), out)  # closed to the students' uids, or the uid tier is refused
                status.update(
                    _grade_class(todo, assignment, out, config, jobs, progress, digest, fingers, show_hidden, private)
                )
            except KitError as error:  # the grader cannot start here: nobody is graded, nobody gets a score
                stopped = clean(error, 2000)
                for s in todo:
                    status.setdefault(s.key, ("error", stopped.splitlines()[0][:300]))
        hand = answers.write_answers(assignment, intake, out, written)
        rows = write_summary(intake, assignment, out, status, unchanged, written)
        from .insight import write_insight
        from .lms_grades import write_lms_grades
        from .report import write_report

        # the notes of the instructor reach the feedback files before the LMS's feedback zip packs them
        insight = write_insight(assignment, out, intake, status, show_hidden=show_hidden, jobs=jobs)
        lms = write_lms_grades(intake, assignment, out, rows, lms_column_id)
        text = write_report(assignment, out, intake, status, insight)
    finally:  # a student's tree of any depth in the unpacked export: removed without recursion
        trees.remove_tree(scratch)
    print(text, end="")
    graded = sum(1 for s in todo if status[s.key][0] == "graded")
    problems = {key: value for key, value in status.items() if value[0] == "error"}
    print(
        f"\n{graded} graded, {len(intake.submissions) - len(todo)} unchanged since the last run, {len(problems)} errors of the kit"
    )
    if stopped:
        print(f"error: grading stopped: {stopped}", file=sys.stderr)
    for key, (what, reason) in list(problems.items())[:20]:
        print(f"  {key}: {what}: {reason}", file=sys.stderr)
    print(
        f"wrote {out / 'summary.csv'}, {out / 'report.txt'}, {out / 'report.png'}, {out / 'report.html'}, "
        f"{out / 'clusters.json'}, {out / 'similarity.csv'} and {out}/students/<student>/ (results.json, feedback.html, feedback.md)"
    )
    if hand:
        print(
            f"wrote {' and '.join(map(str, hand))}: the written answers, {points_text(written.top)} points, are graded by hand"
        )
    if lms:
        print(f"for {intake.source}: {', '.join(str(path) for path in lms.paths)}")
        for note in lms.notes:
            print(f"  {note}")
    return 3 if problems else 0


def _infer(intake: Intake) -> Assignment:
    from ..grade.engine import infer_assignment

    for submission in intake.submissions[:10]:
        try:
            return infer_assignment(submission.path)
        except KitError:
            continue
    raise KitError("cannot tell which assignment these submissions are for; pass --assignment")


def _grade_class(
    todo,
    assignment,
    out: Path,
    config,
    jobs: int,
    progress: bool,
    digest: str,
    fingers: dict,
    show_hidden: bool,
    private: tuple[Path, ...] = (),
) -> dict:
    from ..grade.engine import Grader
    from ..sandbox.host.tiers import secrets

    with Grader(assignment, config, secret_paths=secrets(extra_read=private)) as grader:
        grader.check_host()  # the reference must get full marks here before any student is graded
        jobs = max(1, min(jobs, len(todo)))
        if jobs == 1:
            return _serial(grader, todo, out, digest, fingers, show_hidden, progress)
        return _parallel(grader, todo, out, digest, fingers, show_hidden, progress, jobs)


def _serial(grader, todo, out, digest, fingers, show_hidden, progress) -> dict:
    bar = Progress(len(todo), enabled=progress)
    status: dict = {}
    for submission in todo:
        status[submission.key] = _grade_one(grader, submission, out, digest, fingers[submission.key], show_hidden)
        bar.step(submission.key)
        _stop_if_host_fails(status)
    return status


def _parallel(grader, todo, out, digest, fingers, show_hidden, progress, jobs) -> dict:
    context = multiprocessing.get_context("fork")
    tasks, done = context.Queue(), context.Queue()
    for submission in todo:
        tasks.put((submission, fingers[submission.key]))
    for _ in range(jobs):
        tasks.put(None)
    workers = []
    for _ in range(jobs):
        worker_grader = grader.for_worker()
        process = context.Process(
            target=_worker, args=(worker_grader, str(out), tasks, done, digest, show_hidden), daemon=True
        )
        process.start()
        worker_grader.runtime.zygote.sock.close()  # the worker holds it now
        workers.append(process)
    bar = Progress(len(todo), enabled=progress)
    status: dict = {}
    try:
        while len(status) < len(todo):
            try:
                key, outcome, reason = done.get(timeout=1.0)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    break  # every worker is gone: what is left is reported below
                continue
            status[key] = (outcome, reason)
            bar.step(key)
            _stop_if_host_fails(status)
    finally:
        interrupted = sys.exc_info()[0] is KeyboardInterrupt  # the workers close their graders: let them
        for worker in workers:
            worker.join(timeout=30 if len(status) == len(todo) else 10 if interrupted else 0)
            if worker.is_alive():
                worker.kill()
                worker.join()
    for submission in todo:
        status.setdefault(submission.key, ("error", "its worker stopped before grading it; run grade-all again"))
    return status


def _stop_if_host_fails(status: dict) -> None:
    outcomes = list(status.values())
    if len(outcomes) == STOP_AFTER and all(what == "error" for what, _ in outcomes):
        raise KitError(
            f"the first {STOP_AFTER} submissions all failed for a reason outside student code: {outcomes[0][1]}"
        )


class Progress:
    """done/total, elapsed and time left, on one line of a terminal (a line every few seconds otherwise)."""

    def __init__(self, total: int, stream=sys.stderr, enabled: bool = True):
        self.total, self.stream, self.enabled = total, stream, enabled
        self.started = time.monotonic()
        self.done = 0
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self._last_line = 0.0

    def step(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        bar = "#" * filled + "-" * (width - filled)
        line = (
            f"[{bar}] {self.done}/{self.total}  {_clock(elapsed)} elapsed, {_clock(left)} left  {clean_name(label, 40)}"
        )
        if self.tty:
            self.stream.write("\r" + line[:110].ljust(110))
            if self.done == self.total:
                self.stream.write("\n")
        elif self.done == self.total or time.monotonic() - self._last_line > 5 or self.done == 1:
            self.stream.write(line + "\n")
            self._last_line = time.monotonic()
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds + 0.5), 60)
    return f"{minutes}:{seconds:02d}"


# ------------------------------------------------------------------ the class summary


def load_results(intake: Intake, out: Path) -> dict[str, dict]:
    results = {}
    for submission in intake.submissions:
        try:
            results[submission.key] = json.loads(results_path(out, submission).read_text())
        except (OSError, ValueError):
            continue
    return results


def summary_rows(
    intake: Intake,
    assignment: Assignment,
    out: Path,
    status: dict,
    unchanged: frozenset[str] | set[str] = frozenset(),
    written: answers.Written | None = None,
) -> tuple[list[str], list[dict[str, str]]]:
    """summary.csv's columns and rows (one per student, group members each, in the intake's order).

    Its last columns are the written answers' (deliver/answers.py) and ``total``: the
    automatic score, plus the written answers' points once a person has given them all.
    The LMS grade files (lms_grades.py) are made from these rows: their grade is ``total``.
    """
    written = written if written is not None else answers.Written(answers.questions(assignment))
    results = load_results(intake, out)
    head = ["key", "name", "student_id", "email", "late", "submitted_at", "status", "reason", "score", "max_score"]
    head += list(assignment.graded)
    head += ["file", "isolation", "mistakes", "internal_errors", "earlier", "source", "group", "unchanged"]
    head += written.head()
    rows = []
    for submission in intake.submissions:
        result = results.get(submission.key, {})
        kit_failed = status.get(submission.key, ("not graded", ""))[0] == "error"
        for name, student_id, email in submission.members or [
            (submission.name, submission.student_id, submission.email)
        ]:
            row = _row(submission, name, student_id, email, results, status, assignment)
            row.append("yes" if submission.key in unchanged else "")  # graded by an earlier run, nothing changed since
            row += [_csv_safe(v) for v in written.row(submission.key, None if kit_failed else result.get("score"))]
            rows.append(dict(zip(head, row)))
    return head, rows


def write_summary(
    intake: Intake,
    assignment: Assignment,
    out: Path,
    status: dict,
    unchanged: frozenset[str] | set[str] = frozenset(),
    written: answers.Written | None = None,
) -> list[dict[str, str]]:
    """summary.csv: one row per student, in the intake's order, whatever happened to them; the rows."""
    head, rows = summary_rows(intake, assignment, out, status, unchanged, written)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(head)
    writer.writerows([row[column] for column in head] for row in rows)
    write_atomically(out / "summary.csv", buffer.getvalue())
    return rows


def _row(
    submission: Submission,
    name: str,
    student_id: str,
    email: str,
    results: dict,
    status: dict,
    assignment: Assignment,
) -> list[str]:
    """One student's row: a group's members each get one, with the group's results."""
    result = results.get(submission.key, {})
    extra = result.get("extra_data", {})
    what, reason = status.get(submission.key, ("not graded", "no results"))
    by_name = extra.get("by_name", {})
    graded = extra.get("status") == "graded"
    row = [
        submission.key, name, student_id, email, "yes" if submission.late else "",
        submission.submitted_at, what, reason,
        points_text_of(result.get("score")) if "score" in result and what != "error" else "",
        points_text_of(extra.get("max_score")) if graded else "",
    ]  # fmt: skip
    row += [
        points_text_of(by_name[exercise]["score"]) if graded and exercise in by_name else ""
        for exercise in assignment.graded
    ]
    row += [
        extra.get("entry", ""), (extra.get("isolation") or {}).get("tier", ""), " ".join(extra.get("mistakes", [])),
        len(extra.get("internal_errors", [])) if "internal_errors" in extra else "", " ".join(clean_name(p.name) for p in submission.earlier), submission.source,
        submission.name if submission.members else "",
    ]  # fmt: skip
    return [_csv_safe(value) for value in row]


def points_text_of(value) -> str:
    from fractions import Fraction

    return points_text(Fraction(str(value))) if isinstance(value, (int, float)) else ""


def _csv_safe(value) -> str:
    """A cell no spreadsheet takes for a formula, with nothing that rewrites a terminal."""
    text = clean(value, 1000)
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _skipped_text(intake: Intake) -> str:
    if not intake.skipped:
        return ""
    return "; left out: " + "; ".join(f"{entry} ({why})" for entry, why in intake.skipped[:5])


def jobs_default() -> int:
    return os.cpu_count() or 1
