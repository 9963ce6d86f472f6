"""Grade a class: every entry of a folder, in parallel warm workers, resumable.

    python -m autograder grade-all SUBMISSIONS --assignment mha --out DIR --jobs 2

Each entry of SUBMISSIONS (a file or a folder, named by the student) is graded into
DIR/<student>/results.json, written atomically by the worker that graded it: an
interrupted run keeps what it finished, and a rerun skips every student whose
results.json matches their submission's fingerprint. Each worker keeps one Grader
(a warm zygote and the reference) and its own unprivileged uid for its sandboxes.
At the end: DIR/summary.csv (a row per student, a column per graded name) and the
class report (report.png, report.txt).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import multiprocessing
import queue
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .assignments import Assignment
from .core.loader import SKIP_DIRS
from .errors import KitError
from .results import write_atomically


@dataclass(frozen=True)
class Student:
    name: str
    path: Path

    def fingerprint(self) -> str:
        """A hash of everything submitted: a changed submission is graded again."""
        digest = hashlib.sha256()
        files = [self.path] if self.path.is_file() else sorted(p for p in self.path.rglob("*") if p.is_file())
        for file in files:
            if set(file.relative_to(self.path.parent).parts) & SKIP_DIRS:
                continue
            digest.update(file.relative_to(self.path.parent).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
        return digest.hexdigest()


def students(folder: Path) -> list[Student]:
    """The entries of a class folder, one per student, named after the file or folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise KitError(f"{folder} is not a folder; grade-all takes a folder with one file or folder per student")
    found: dict[str, Student] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")) or entry.name in SKIP_DIRS:
            continue
        name = entry.stem if entry.is_file() else entry.name
        if name in found:
            raise KitError(f"two entries for the student {name!r} in {folder}: {found[name].path.name} and {entry.name}; keep one")
        found[name] = Student(name, entry)
    if not found:
        raise KitError(f"{folder} holds no submissions")
    return list(found.values())


def is_done(student: Student, out: Path, assignment: Assignment) -> bool:
    try:
        extra = json.loads((out / student.name / "results.json").read_text())["extra_data"]
    except (OSError, ValueError, KeyError):
        return False
    return extra.get("assignment") == assignment.name and extra.get("fingerprint") == student.fingerprint()


# ------------------------------------------------------------------ workers


def _worker(index: int, assignment_name: str, options, out: str, tasks, done) -> None:
    """A process that grades students one after another with one warm Grader."""
    from dataclasses import replace

    from . import assignments
    from .engine import Grader
    from .results import gradescope_json

    grader = Grader(assignments.get(assignment_name), replace(options, uid=options.uid + index))
    try:
        while True:
            task = tasks.get()
            if task is None:
                return
            name, path = task
            student = Student(name, Path(path))
            try:
                report = grader.grade(student.path)
                results = gradescope_json(report)
                results["extra_data"]["fingerprint"] = student.fingerprint()
                write_atomically(Path(out) / name / "results.json", json.dumps(results, indent=2) + "\n")
                done.put((name, "graded", ""))
            except Exception as error:  # one submission's failure must not stop the class
                done.put((name, "error", f"{type(error).__name__}: {error}"))
    finally:
        grader.close()


class Progress:
    """done/total, elapsed and time left, on one line of a terminal (a line per step otherwise)."""

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
        line = f"[{bar}] {self.done}/{self.total}  {_clock(elapsed)} elapsed, {_clock(left)} left  {label}"
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


# ------------------------------------------------------------------ the batch


def grade_all(folder: Path, assignment: Assignment, out: Path, options, jobs: int = 1, progress: bool = True) -> dict:
    """Grade every student of folder into out/; return {student: "graded" | "skipped" | "error: ..."}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    everyone = students(folder)
    todo = [student for student in everyone if not is_done(student, out, assignment)]
    status = {student.name: "skipped (already graded)" for student in everyone if student not in todo}
    if todo:
        options.isolation()  # refuse now, not in every worker, if the sandbox cannot run
        status.update(_run_workers(todo, assignment, out, options, max(1, min(jobs, len(todo))), progress))
    write_summary(everyone, assignment, out)
    from .report import write_report

    write_report(assignment, out)
    return status


def _run_workers(todo, assignment, out, options, jobs, progress) -> dict:
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    tasks, done = context.Queue(), context.Queue()
    for student in todo:
        tasks.put((student.name, str(student.path)))
    for _ in range(jobs):
        tasks.put(None)
    workers = [
        context.Process(target=_worker, args=(i, assignment.name, options, str(out), tasks, done), daemon=True)
        for i in range(jobs)
    ]
    for worker in workers:
        worker.start()
    bar = Progress(len(todo), enabled=progress)
    status = {}
    try:
        while len(status) < len(todo):
            try:
                name, outcome, detail = done.get(timeout=1.0)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    break  # every worker is gone: what is left is reported below
                continue
            status[name] = outcome if not detail else f"{outcome}: {detail}"
            bar.step(name)
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    for student in todo:
        status.setdefault(student.name, "error: its worker stopped before grading it; run grade-all again")
    return status


# ------------------------------------------------------------------ the class summary


def load_results(everyone: list[Student], out: Path) -> dict[str, dict]:
    results = {}
    for student in everyone:
        try:
            results[student.name] = json.loads((out / student.name / "results.json").read_text())
        except (OSError, ValueError):
            continue
    return results


def write_summary(everyone: list[Student], assignment: Assignment, out: Path) -> Path:
    """summary.csv: a row per student, a column per graded name (points), then the mistakes named."""
    results = load_results(everyone, out)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", "score", "max_score", *assignment.graded, "mistakes", "sandbox", "status"])
    for student in everyone:
        result = results.get(student.name)
        if result is None:
            writer.writerow([student.name, "", "", *[""] * len(assignment.graded), "", "", "not graded"])
            continue
        extra = result["extra_data"]
        by_name = extra["by_name"]
        writer.writerow(
            [
                student.name,
                f"{result['score']:g}",
                f"{extra['max_score']:g}",
                *[f"{by_name[name]['score']:g}" for name in assignment.graded],
                " ".join(extra["mistakes"]),
                extra.get("sandbox", ""),
                "graded",
            ]
        )
    path = out / "summary.csv"
    write_atomically(path, buffer.getvalue())
    return path
