"""Is each student of a class graded into a folder of their own, their results handed back as written, and does the
run stop when the host, not the students, fails from the start?

Grading a whole class, serially and in parallel, is test_batch.py's.
"""

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder import KIT_ROOT
from autograder.deliver import class_view
from autograder.deliver.grade_all import workers
from autograder.deliver.grade_all.class_folder import student_folder
from autograder.deliver.grade_all.workers import STOP_AFTER, Grading, Run, _parallel, _stop_if_host_fails, grade_student
from autograder.deliver.intake import Submission
from autograder.errors import KitError
from autograder.interrupts import interrupt_on_terminate
from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from autograder.results.read import read_results_file

from ...sandbox.forked import in_a_child
from ..students import student_report


class StandIn:
    """A ready grader of mha whose grade() gives the report of tests/deliver/students.py, entry and all."""

    assignment = SimpleNamespace(name="mha")

    def __init__(self, entry: str):
        self.entry = entry

    def grade(self, submission, label=None):
        report = student_report()
        report.entry = self.entry
        return report


def run(out: Path) -> Run:
    return Run(out, "g" * 64, {"ada": "s" * 64}, show_hidden=False)


def test_a_student_is_graded_into_their_folder(tmp_path):
    """results.json, both feedback files and the notebook graded in students/<key>/; are the results handed
    back those a reader of the file gets, with grade-all's record?"""
    (tmp_path / "export" / "ada").mkdir(parents=True)
    (tmp_path / "export" / "ada" / "mha.ipynb").write_text('{"cells": []}')
    ada = Submission("ada", "Ada Lovelace", "1", tmp_path / "export" / "ada", "folders", email="ada@example.org")
    grading = grade_student(StandIn("ada/mha.ipynb"), ada, run(tmp_path / "out"))
    folder = student_folder(tmp_path / "out", "ada")
    assert sorted(p.name for p in folder.iterdir()) == [
        "feedback.html",
        "feedback.md",
        "results.json",
        "submission.ipynb",
    ]
    assert grading.status == GRADED and grading.results == read_results_file(folder / "results.json")
    assert (grading.results.student.email, grading.results.grading_digest) == ("ada@example.org", "g" * 64)
    assert "# mha feedback for Ada Lovelace" in (folder / "feedback.md").read_text()


def test_a_refused_student_gets_a_result_that_says_why(tmp_path):
    """A hand-in the intake refused: results.json and feedback with the reason, the student's zero, no notebook?"""
    ada = Submission("ada", "Ada", "1", tmp_path / "ada", "folders", refused="its folders nest too deep")
    grading = grade_student(StandIn(""), ada, run(tmp_path / "out"))
    assert (grading.status, grading.reason, grading.results.score) == (NOT_GRADED, "its folders nest too deep", 0.0)
    assert not (student_folder(tmp_path / "out", "ada") / "submission.ipynb").exists()


def _no_room(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device", "feedback.html")


def test_a_student_whose_feedback_cannot_be_written_is_left_to_grade_again(monkeypatch, tmp_path):
    """A full disk as a student's feedback is written: does the error stop the grading, with no results.json in
    their folder (which a rerun would read as graded, the feedback never written), an earlier run's included (whose
    grade the half-written feedback no longer gives)?"""
    (tmp_path / "export" / "ada").mkdir(parents=True)
    (tmp_path / "export" / "ada" / "mha.ipynb").write_text('{"cells": []}')
    ada = Submission("ada", "Ada Lovelace", "1", tmp_path / "export" / "ada", "folders")
    student_folder(tmp_path / "out", "ada").mkdir(parents=True)
    (student_folder(tmp_path / "out", "ada") / "results.json").write_text("{}")  # an earlier submission's
    monkeypatch.setattr(workers, "write_feedback", _no_room)
    with pytest.raises(OSError) as raised:
        grade_student(StandIn("ada/mha.ipynb"), ada, run(tmp_path / "out"))
    assert raised.value.errno == errno.ENOSPC
    assert not (student_folder(tmp_path / "out", "ada") / "results.json").exists()


class NoForker:
    """grade-all's Forker where no student's error is carried forward: nothing to start."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def client(self, worker):
        return None

    def handed(self, worker):
        pass


class Quick(StandIn):
    """A grader of tests/deliver/students.py's report for any student, whose workers mark in ``folder`` when closed."""

    def __init__(self, folder: Path):
        super().__init__("mha.ipynb")
        self.folder = folder
        self.runtime = SimpleNamespace(zygote=SimpleNamespace(sock=SimpleNamespace(close=lambda: None)))

    def for_worker(self):
        return Quick(self.folder)

    def forker(self, workers):
        return NoForker()

    def check_host(self):
        pass

    def close(self):
        (self.folder / f"closed-{os.getpid()}").touch()


def test_a_full_disk_stops_the_run_and_every_worker_closes_its_grader(monkeypatch, tmp_path):
    """With workers, does the first student whose folder the disk cannot take stop the run with that error (every
    later student's writing would fail the same way), each worker closing its grader, where each worker died with a
    traceback and every student left became the kit's error?"""
    students = [Submission(k, k, "1", tmp_path / k, "folders") for k in ("ada", "bob", "cy", "dee")]
    monkeypatch.setattr(workers, "write_feedback", _no_room)  # the workers fork with it
    digests = {s.key: "s" * 64 for s in students}
    with pytest.raises(OSError) as raised:
        _parallel(Quick(tmp_path), students, Run(tmp_path / "out", "g" * 64, digests, False), progress=False, jobs=2)
    assert raised.value.errno == errno.ENOSPC
    assert len(list(tmp_path.glob("closed-*"))) == 2
    assert not list((tmp_path / "out").rglob("results.json"))


def _a_large_class_stopped_by_a_full_disk(folder: Path) -> str:
    import atexit

    students = [Submission(f"s{k:04d}", f"s{k:04d}", "1", folder / f"s{k:04d}", "folders") for k in range(600)]
    workers.write_feedback = _no_room  # in this child only
    try:
        digests = {s.key: "s" * 64 for s in students}
        _parallel(Quick(folder), students, Run(folder / "out", "g" * 64, digests, False), progress=False, jobs=2)
    except OSError:
        pass
    atexit._run_exitfuncs()  # what the command runs as it ends (autograder/__main__.py): multiprocessing's clean-up
    return "ended"


def test_a_run_stopped_with_most_of_a_large_class_untaken_ends(tmp_path):
    """The students no worker took were still being handed to the workers' queue (600 of them fill its pipe): did
    the command, stopped by a full disk, wait for that hand-over for ever as it ended?"""
    assert in_a_child(lambda: _a_large_class_stopped_by_a_full_disk(tmp_path), hang=30) == "ended"


def test_the_run_stops_when_the_first_students_all_fail_for_the_kit():
    """The first STOP_AFTER gradings all the kit's errors: stop; a student's own failure among them: go on?"""
    failing = {f"s{i}": Grading(KIT_ERROR, "no isolation tier works") for i in range(STOP_AFTER)}
    with pytest.raises(KitError, match="all failed for a reason outside student code: no isolation tier works"):
        _stop_if_host_fails(failing)
    _stop_if_host_fails({**failing, "s0": Grading(NOT_GRADED, "holds no notebook")})
    _stop_if_host_fails({**failing, "late": Grading(KIT_ERROR, "")})  # only at the start of a run


class Slow:
    """A worker's grader that marks in ``folder`` when it starts grading and when it is closed, and grades forever."""

    def __init__(self, folder: Path, name: str = "parent"):
        self.folder, self.name = folder, name
        self.runtime = SimpleNamespace(zygote=SimpleNamespace(sock=SimpleNamespace(close=lambda: None)))

    def for_worker(self):
        return Slow(self.folder, f"worker{len(list(self.folder.glob('made-*')))}")

    def forker(self, workers):
        return NoForker()

    def check_host(self):
        pass  # the reference gets full marks here: the workers' gradings are kept

    def grade(self, submission, label=None):
        (self.folder / f"grading-{os.getpid()}").touch()
        time.sleep(600)

    def close(self):
        (self.folder / f"closed-{os.getpid()}").touch()


def _grade_slowly(folder: Path) -> None:
    interrupt_on_terminate()
    students = [Submission(k, k, "1", folder / k, "folders") for k in ("ada", "bob", "cy")]
    _parallel(Slow(folder), students, run(folder / "out"), progress=False, jobs=2)


def test_a_sigterm_to_grade_all_alone_closes_every_workers_grader(tmp_path):
    """When only grade-all's own process gets SIGTERM (a container stopped, Slurm's limit on the batch step), does
    each worker close its grader (ending its students' processes) before grade-all exits as interrupted?"""
    pid = os.fork()
    if pid == 0:
        try:
            _grade_slowly(tmp_path)
            os._exit(0)
        except KeyboardInterrupt:
            os._exit(130)
        except BaseException:
            os._exit(1)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("grading-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = {p.name.split("-")[1] for p in tmp_path.glob("grading-*")}
    assert len(workers) == 2, "the two workers did not start grading"
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 130
    assert {p.name.split("-")[1] for p in tmp_path.glob("closed-*")} == workers
    for worker in workers:
        assert not Path(f"/proc/{worker}").exists() or "Z" in Path(f"/proc/{worker}/stat").read_text().split()[2]


def test_the_class_views_libraries_load_while_the_zygote_starts(monkeypatch, mha):
    """Does grade-all hand its grader the loading of the class views' libraries (copydetect, which loads pyplot;
    matplotlib for report.png) and the normalising of the release's code, and does that load and normalise them,
    so that the views after the gradings do not wait?"""
    handed, preloaded = [], []

    def grader(*args, meanwhile=None, **kwargs):
        handed.append(meanwhile)
        raise KitError("stop here")

    monkeypatch.setattr(workers, "Grader", grader)
    monkeypatch.setattr(class_view, "preload", lambda *args: preloaded.append(args))
    with pytest.raises(KitError, match="stop here"):
        workers.grade_students([], mha, None, run(Path("out")), jobs=1, progress=False)
    handed[0]()
    assert preloaded == [(mha, Path("out"))]
    loaded = (
        "import sys; from autograder import assignments; from autograder.deliver import class_view; "
        "from autograder.deliver.class_view import fingerprints, sources; mha = assignments.get('mha'); "
        "class_view.preload(mha); "
        "print(*(m for m in ('copydetect', 'matplotlib.figure', 'matplotlib.ticker') if m in sys.modules)); "
        "print(fingerprints.normalised_release_piece.cache_info().currsize == len(set(sources.release_code(mha))))"
    )
    done = subprocess.run([sys.executable, "-c", loaded], capture_output=True, text=True, cwd=KIT_ROOT, check=True)
    assert done.stdout.split() == ["copydetect", "matplotlib.figure", "matplotlib.ticker", "True"]


def test_a_rerun_that_keeps_the_class_views_loads_nothing_ahead(tmp_path):
    """Where the out folder keeps what an earlier run's similarity and report.png were made from, are copydetect
    and the release's normalising left to the views that find their class changed (a rerun's are read back), so
    that the zygote does not wait for them; and does one kept view alone not count as both?"""
    kept = tmp_path / ".cache"
    kept.mkdir()
    (kept / "similarity.json").write_text("{}")
    assert not class_view.views_kept(tmp_path), "similarity's pairs alone are kept: report.png is drawn anew"
    (kept / "report.json").write_text("{}")
    assert class_view.views_kept(tmp_path)
    script = (
        "import sys; from pathlib import Path; from autograder import assignments; "
        "from autograder.deliver import class_view; "
        "from autograder.deliver.class_view import fingerprints; "
        "class_view.preload(assignments.get('mha'), Path(sys.argv[1])); "
        "print('copydetect' in sys.modules, fingerprints.normalised_release_piece.cache_info().currsize)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, cwd=KIT_ROOT, check=True
    )
    assert done.stdout.split() == ["False", "0"]
