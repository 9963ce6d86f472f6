"""Does the command line keep the README's exit codes and options?"""

import json
import subprocess
import sys

from autograder import KIT_ROOT, cli
from autograder.errors import KitError

KIT = [sys.executable, "-m", "autograder"]


def test_grade_a_file_of_no_assignment_is_bad_input(tmp_path):
    """`grade report.pdf` without --assignment: exit 2 (bad input, the student's zero and why), not 3 (the kit)?"""
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4\n")
    done = subprocess.run(
        KIT + ["grade", str(tmp_path / "report.pdf"), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot tell which assignment" in done.stderr and "--assignment" in done.stderr
    extra = json.loads((tmp_path / "out" / "results.json").read_text())["extra_data"]
    assert extra["status"] == "not graded" and extra["student_fault"]


def test_grade_all_refuses_a_column_id_that_is_not_a_number(tmp_path):
    """Is --lms-column-id checked before anything is read (the LMS's ids are numbers)?"""
    done = subprocess.run(
        KIT + ["grade-all", str(tmp_path), "--out", str(tmp_path / "out"), "--lms-column-id", "mha"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "is not an id" in done.stderr and not (tmp_path / "out").exists()


def test_bench_refuses_class_sizes_it_cannot_read():
    """Is a --class-sizes that is not sizes of 2 or more refused at once, saying what to give?"""
    for text in ("100,ten", "1", ""):
        try:
            cli._sizes(text)
        except KitError as error:
            assert "--class-sizes" in str(error) and "100,1000,10000" in str(error)
        else:
            raise AssertionError(f"{text!r} was taken")
    assert cli._sizes("100,1000,10000") == (100, 1000, 10000)


class CrashingGrader:
    """A grader that starts, then meets a bug of the kit on every submission."""

    def __init__(self, assignment, config):
        self.assignment = assignment

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def grade(self, submission, label=None):
        raise KeyError("a bug of the kit")


def test_a_crash_of_the_kit_exits_3_not_graded(tmp_path, monkeypatch, capsys):
    """A crash inside the kit while grading: exit 3 (not 1, --fail-under's), results.json "not graded" with no
    score, the reason in --markdown and on stderr?"""
    from autograder import cli
    from autograder.deliver import one_submission

    monkeypatch.setattr(one_submission, "Grader", CrashingGrader)
    (tmp_path / "ada.ipynb").write_text("{}")
    summary = tmp_path / "summary.md"
    argv = [
        "grade",
        str(tmp_path / "ada.ipynb"),
        "-a",
        "mha",
        "--out",
        str(tmp_path / "out"),
        "--markdown",
        str(summary),
    ]
    assert cli.main([*argv, "--fail-under", "100"]) == 3
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "score" not in results and results["extra_data"]["status"] == "not graded"
    assert (
        results["extra_data"]["student_fault"] is False
        and results["extra_data"]["error"] == "KeyError: 'a bug of the kit'"
    )
    assert "tell your instructor" in results["output"] and not (tmp_path / "out" / "junit.xml").exists()
    assert "### mha: not graded" in summary.read_text() and "KeyError" in summary.read_text()
    assert "error: the kit could not grade" in capsys.readouterr().err
