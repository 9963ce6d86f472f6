"""The students of a class who need grading, graded: one after another, or by a worker per job.

The grader is prepared once (reference, plan, rehearsal, isolation), and the reference must
get full marks through the sandbox on this host before any student's grading is written:
one after another, it is graded first; with workers, it is graded in this process while
the workers grade their first students, whose results wait for its verdict (HostVerdict).
Workers fork from the grader, each with a zygote and uids of its own. Each student is
graded (deliver/one_submission.py) into DIR/students/<key>/ (results.json, feedback.html,
feedback.md, the notebook graded, and code.json: what the class views read of the code,
deliver/class_view/sources.py), written whole by the worker that graded them, which hands
back the student's status and results, typed: nothing is read back. When the first
submissions all fail for a reason outside student code, the run stops instead of grading
a class of errors.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from ...assignments import Assignment
from ...config import GradingConfig
from ...errors import KitError, no_room
from ...grade.engine import Grader
from ...grade.reference_process import Forker
from ...interrupts import ignore_interrupts, interrupt_once, let_through, start_held
from ...results.atomic import write_atomically
from ...results.outcome import KIT_ERROR, Outcome
from ...results.read import Results, read_results
from ...results.text import clean_name
from ...results.write import RESULTS, Provenance, results_json, results_text
from ...sandbox.host.tiers import secrets
from .. import class_view
from ..class_view.sources import keep_record
from ..feedback import write_feedback
from ..intake import Submission
from ..one_submission import grade_one
from .class_folder import student_folder
from .progress import Progress
from .regrade import student_record

STOP_AFTER = 3  # host failures in a row, from the start, that end a run
NOTEBOOK_LIMIT = 16 * 2**20  # bytes of a graded notebook kept beside its results


@dataclass(frozen=True)
class Grading:
    """One student's grading in this run: the status and reason summary.csv shows, and the results written."""

    status: str
    reason: str
    results: Results | None = None  # None when nothing was written for them


@dataclass(frozen=True)
class Run:
    """What every student's grading in one run shares."""

    out: Path
    grading_digest: str
    submission_digests: dict[str, str]  # by student key
    show_hidden: bool


def grade_students(
    todo: list[Submission],
    assignment: Assignment,
    config: GradingConfig,
    run: Run,
    jobs: int,
    progress: bool,
    private: tuple[Path, ...] = (),
) -> dict[str, Grading]:
    """Grade each student of todo with a grader prepared once; each one's grading, by key."""
    jobs = max(1, min(jobs, len(todo)))
    with Grader(
        assignment,
        config,
        secret_paths=secrets(extra_read=private),
        meanwhile=lambda: class_view.preload(assignment, run.out),  # while the zygote starts
    ) as grader:
        if grader.device_why:  # --device auto's choice, and why: each student's results.json says it too
            print(f"device: {grader.device} ({grader.device_why})", file=sys.stderr)
        if jobs == 1:
            grader.check_host()  # the reference must get full marks here before any student is graded
            return _serial(grader, todo, run, progress)
        return _parallel(grader, todo, run, progress, jobs)  # it grades the reference beside the first students


def grade_student(grader: Grader, submission: Submission, run: Run) -> Grading:
    """Grade one student into out/students/<key>/: results.json, the feedback, the notebook graded."""
    return _write_student(grader, submission, run, _grade_student(grader, submission))


def _grade_student(grader: Grader, submission: Submission) -> Outcome:
    return grade_one(grader, submission.path, label=clean_name(submission.path.name), refused=submission.refused)


def _write_student(grader: Grader, submission: Submission, run: Run, outcome: Outcome) -> Grading:
    """The student's folder: the feedback and the notebook graded, then results.json, the record a rerun reads as
    graded: a run stopped on the way (a full disk, a kill) leaves the student to grade again, never results.json
    without the feedback it gives."""
    provenance = Provenance(run.submission_digests[submission.key], run.grading_digest, student_record(submission))
    folder = student_folder(run.out, submission.key)
    text = results_text(results_json(outcome, grader.assignment.name, provenance))
    results = read_results(json.loads(text))
    (folder / RESULTS).unlink(missing_ok=True)  # an earlier grading's, which the feedback below no longer gives
    write_feedback(results, folder, show_hidden=run.show_hidden, student=submission.name)
    if outcome.report is not None:
        _keep_notebook(submission.path.parent / outcome.report.entry, folder)
    write_atomically(folder / RESULTS, text)
    try:  # the code read once, here, in parallel; what fails here the class views make again, and say why
        keep_record(run.out, submission.key, submission.path, run.submission_digests[submission.key], grader.assignment)
    except Exception:
        pass
    return Grading(outcome.status, outcome.reason, results)


def _keep_notebook(source: Path, folder: Path) -> None:
    """The notebook graded, beside its results: nbgrader's feedback route renders it (deliver/routes/gradebook.py)."""
    if (
        source.suffix == ".ipynb"
        and source.is_file()
        and not source.is_symlink()
        and source.stat().st_size < NOTEBOOK_LIMIT
    ):
        shutil.copyfile(source, folder / "submission.ipynb")


def _serial(grader: Grader, todo: list[Submission], run: Run, progress: bool) -> dict[str, Grading]:
    bar = Progress(len(todo), enabled=progress)
    gradings: dict[str, Grading] = {}
    for submission in todo:
        gradings[submission.key] = grade_student(grader, submission, run)
        bar.step(submission.key)
        _stop_if_host_fails(gradings)
    return gradings


class HostVerdict:
    """Whether the reference got full marks on this host: graded by _parallel's process while its workers grade
    their first students, and awaited by each worker before it writes anything."""

    def __init__(self, context):
        self._decided = context.Event()
        self._passed = context.Value("b", 0, lock=False)

    def decide(self, passed: bool) -> None:
        self._passed.value = int(passed)
        self._decided.set()

    def passed(self) -> bool:
        self._decided.wait()
        return bool(self._passed.value)


def _worker(grader: Grader, run: Run, tasks, done, verdict: HostVerdict) -> None:
    interrupt_once()
    try:
        let_through()  # what came since the fork is raised here, in the try
        if grader.reference_forker is not None:
            grader.reference_forker.forked()
        while True:
            submission = tasks.get()
            if submission is None:
                return
            outcome = _grade_student(grader, submission)
            if not verdict.passed():  # graded on a host that fails the reference: kept nowhere
                return
            try:
                grading: Grading | OSError = _write_student(grader, submission, run, outcome)
            except OSError as error:
                if not no_room(error):
                    raise
                grading = error  # the parent stops the run with it: every later student's would fail the same way
            done.put((submission.key, grading))
    except KeyboardInterrupt:  # Ctrl-C reaches every worker, SIGTERM through the parent: the parent says so once
        return
    finally:
        ignore_interrupts()  # a second signal must not cut the clean-up short
        grader.close()


def _parallel(grader: Grader, todo: list[Submission], run: Run, progress: bool, jobs: int) -> dict[str, Grading]:
    with grader.forker(jobs) as forker:  # forked by the zygote before the queues: it holds none of their pipes
        return _by_workers(grader, todo, run, progress, jobs, forker)


def _by_workers(
    grader: Grader, todo: list[Submission], run: Run, progress: bool, jobs: int, forker: Forker
) -> dict[str, Grading]:
    context = multiprocessing.get_context("fork")
    tasks, done = context.Queue(), context.Queue()
    for submission in todo:
        tasks.put(submission)
    for _ in range(jobs):
        tasks.put(None)
    verdict = HostVerdict(context)
    workers: list = []
    bar = Progress(len(todo), enabled=progress)
    gradings: dict[str, Grading] = {}
    try:
        try:  # the reference must get full marks here before any student's grading is written
            for k in range(jobs):
                worker_grader = grader.for_worker()
                worker_grader.reference_forker = forker.client(k)
                start_held(
                    context.Process(target=_worker, args=(worker_grader, run, tasks, done, verdict), daemon=True),
                    workers,
                )
                worker_grader.runtime.zygote.sock.close()  # the worker holds it now, and its forker's socket
                forker.handed(k)
            grader.check_host()
        except BaseException:
            verdict.decide(False)  # each worker ends after the grading it is in, writing nothing
            raise
        verdict.decide(True)
        while len(gradings) < len(todo):
            try:
                key, grading = done.get(timeout=1.0)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    break  # every worker is gone: what is left is reported below
                continue
            if isinstance(grading, OSError):
                raise grading
            gradings[key] = grading
            bar.step(key)
            _stop_if_host_fails(gradings)
    finally:
        tasks.cancel_join_thread()  # students no worker will take (a run stopped, every worker gone): never wait to
        # hand them over as this process ends, where 600 of them fill the pipe
        stopped = sys.exc_info()[0] is not None  # interrupted, or a failure that ends the run: the workers close
        if stopped:  # their graders. A SIGTERM sent to this process alone reaches them so (Ctrl-C reached them already)
            for worker in workers:
                if worker.is_alive() and worker.pid is not None:
                    os.kill(worker.pid, signal.SIGTERM)
        told = stopped or not verdict.passed()  # the workers end by themselves: let them close their graders
        for worker in workers:
            worker.join(timeout=30 if len(gradings) == len(todo) else 10 if told else 0)
            if worker.is_alive():
                worker.kill()
                worker.join()
    for submission in todo:
        gradings.setdefault(
            submission.key, Grading(KIT_ERROR, "its worker stopped before grading it; run grade-all again")
        )
    return gradings


def _stop_if_host_fails(gradings: dict[str, Grading]) -> None:
    outcomes = list(gradings.values())
    if len(outcomes) == STOP_AFTER and all(g.status == KIT_ERROR for g in outcomes):
        raise KitError(
            f"the first {STOP_AFTER} submissions all failed for a reason outside student code: {outcomes[0].reason}"
        )
