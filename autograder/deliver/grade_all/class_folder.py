"""grade-all's --out folder, student by student: where each results.json lives, and the class's read back typed."""

from __future__ import annotations

import gc
from pathlib import Path

from ...results.read import Results, ResultsUnreadable, read_results_file
from ...results.update import save_results
from ...results.write import RESULTS
from ..feedback import write_feedback
from ..intake import Intake


def student_folder(out: Path, key: str) -> Path:
    """out/students/<key>/: a student's results.json, feedback and graded notebook."""
    return Path(out) / "students" / key


def cache_folder(out: Path) -> Path:
    """out/.cache/: what the class views found, with what they found it from, read back by a rerun."""
    return Path(out) / ".cache"


def results_path(out: Path, key: str) -> Path:
    return student_folder(out, key) / RESULTS


def rewrite_student(out: Path, key: str, updated: Results, show_hidden: bool, student: str) -> None:
    """A student's results updated after grading (a late penalty, an instructor's note): the feedback first, then
    results.json, which a rerun compares to see what is left to update (as grade-all writes a student)."""
    path = results_path(out, key)
    write_feedback(updated, path.parent, show_hidden=show_hidden, student=student)
    save_results(updated, path)


def read_class(intake: Intake, out: Path) -> dict[str, Results]:
    """Each student's results.json under out, by key; a student with none that can be read is left out.

    Python's cyclic garbage collector is paused meanwhile, and what was read is then frozen (gc.freeze): a
    class's results are millions of objects that live on to the end, and each collection, while reading and in
    every later step, would walk them all again (a third of the class steps' time, at 10,000 students). They
    hold no cycle: reference counting frees them as ever."""
    found = {}
    collecting = gc.isenabled()
    gc.disable()
    try:
        for submission in intake.submissions:
            try:
                found[submission.key] = read_results_file(results_path(out, submission.key))
            except ResultsUnreadable:
                continue
    finally:
        if collecting:
            gc.enable()
    gc.freeze()
    return found
