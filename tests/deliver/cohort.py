"""The small class of tests/data/cohort/ as an LMS hands it over, and what "the same class" means for two runs
that graded it (one grade-all, or shards merged, here or on a cluster)."""

import json
import shutil
from pathlib import Path

from autograder import KIT_ROOT

COHORT = KIT_ROOT / "tests" / "data" / "cohort" / "attention_numpy"
NAME = "attention_numpy"
TIMES_AND_PLACES = {"execution_time", "seconds", "path"}  # of a run, not of the grading
CLASS_FILES = ("summary.csv", "canvas_grades.csv", "clusters.json", "similarity.csv", "report.txt", "report.html",
               "report.png", "answers.html", "manual_points_template.csv")  # fmt: skip


def cohort_on_canvas(folder: Path) -> Path:
    """tests/data/cohort/ as a Canvas download: a user id each, ben late, and a file that reads as user 777's or
    user 999's (graded for no one, a row each)."""
    folder.mkdir()
    for number, name in enumerate(["ada", "ben", "cleo", "dev", "eli", "fay"], start=1):
        late = "LATE_" if name == "ben" else ""
        shutil.copy(COHORT / f"{name}.py", folder / f"{name}_{late}10{number}_700{number}_attention.py")
    shutil.copy(COHORT / "eli.py", folder / "mallory_777_999_555_attention.py")
    return folder


def without_times(value):
    """results.json less what differs between two gradings of the same submission: times, the unpacked export's path."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIMES_AND_PLACES}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def assert_same_class(one: Path, merged: Path) -> None:
    """Every file of the class byte for byte, each student's feedback too, and their results but for times and paths."""
    assert sorted(p.name for p in merged.iterdir()) == sorted(p.name for p in one.iterdir())
    for name in CLASS_FILES:
        assert (merged / name).read_bytes() == (one / name).read_bytes(), name
    students = sorted(p.name for p in (one / "students").iterdir())
    assert sorted(p.name for p in (merged / "students").iterdir()) == students and len(students) == 6
    for key in students:
        for name in ("feedback.html", "feedback.md"):
            assert (merged / "students" / key / name).read_bytes() == (one / "students" / key / name).read_bytes()
        results = [json.loads((out / "students" / key / "results.json").read_text()) for out in (one, merged)]
        assert without_times(results[0]) == without_times(results[1]), key
