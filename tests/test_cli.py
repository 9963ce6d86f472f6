"""Does the command line keep the README's exit codes and options?"""

import json
import subprocess
import sys

from autograder import KIT_ROOT

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
