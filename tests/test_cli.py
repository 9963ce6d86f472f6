"""Does the command line keep the README's exit codes and options?"""

import json
import subprocess
import sys

import pytest

from autograder import KIT_ROOT, cli
from autograder.errors import KitError

KIT = [sys.executable, "-m", "autograder"]


def test_grade_a_file_of_no_assignment_is_bad_input(tmp_path):
    """`grade report.pdf` without --assignment: exit 2 (bad input, the student's zero and why: what a submission is,
    whatever the assignment), not 3 (the kit)?"""
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4\n")
    done = subprocess.run(
        KIT + ["grade", str(tmp_path / "report.pdf"), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "report.pdf: a submission is an .ipynb notebook, a .py file or a folder, not .pdf" in done.stderr
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


def test_grade_all_refuses_a_wrong_late_policy_before_grading_anyone(mha, tmp_path):
    """A late policy with a misspelt penalty: exit 2, the file's line and the fix, and no student graded?"""
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ann.ipynb").write_bytes((mha.release_dir / mha.notebook_name).read_bytes())
    policy = tmp_path / "late.toml"
    policy.write_text('time_zone = "Europe/Vienna"\npenalty = "10 per day"\n[mha]\ndue = 2025-02-14T23:59:00\n')
    command = ["grade-all", str(tmp_path / "class"), "-a", "mha", "--out", str(tmp_path / "out")]
    done = subprocess.run(KIT + command + ["--late-policy", str(policy)], capture_output=True, text=True, cwd=KIT_ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{policy}:2: penalty = '10 per day' is not a percent per hour or per day" in done.stderr
    assert 'write it as "10% per day"' in done.stderr and not (tmp_path / "out" / "students").exists()


@pytest.mark.slow
def test_grade_all_refuses_a_shard_that_is_not_one(tmp_path):
    """Is --shard checked before anything is read (I/N with 1 <= I <= N), and are the class's options (its written
    points, its LMS column, its late policy), which merge writes, refused on a shard?"""
    for shard in ("0/3", "4/3", "1", "a/b", "1/0"):
        done = subprocess.run(
            KIT + ["grade-all", str(tmp_path), "--out", str(tmp_path / "out"), "--shard", shard],
            capture_output=True,
            text=True,
            cwd=KIT_ROOT,
        )
        assert done.returncode == 2 and "is not a shard: write I/N" in done.stderr, shard
    done = subprocess.run(
        KIT + ["grade-all", str(tmp_path), "--out", str(tmp_path / "out"), "--shard", "1/2", "--lms-column-id", "5"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "pass them to merge" in done.stderr and not (tmp_path / "out").exists()
    done = subprocess.run(
        KIT + ["grade-all", str(tmp_path), "--out", str(tmp_path / "out"), "--shard", "1/2", "--late-policy", "x.toml"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 2 and "pass them to merge" in done.stderr and not (tmp_path / "out").exists()


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
