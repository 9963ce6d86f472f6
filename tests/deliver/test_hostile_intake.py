"""Can one student's LMS export trick grade-all into giving her file, or her name, to a classmate? (issue 22)

Each attack is an export as the LMS writes it, with one hostile student in it, built here
from the course's samples (tests/data/hostile/README.md lists them): graded through grade-all
from a zip and from a folder, the honest students keep their grades, the attacker gets
only her own row, and everyone has a row.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.author.samples import sample_path
from autograder.config import GradingConfig
from autograder.deliver.grade_all import batch

from .intake.exports import BILLION_LAUGHS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def samples(mha):
    return {"solved": sample_path(mha, None), "buggy": sample_path(mha), "blank": mha.release_dir / mha.notebook_name}


def export(files: dict[str, Path | bytes], root: Path, as_zip: bool) -> Path:
    """files (name -> a sample to copy, or bytes) as a flat folder, or a zip of it."""
    root.mkdir(parents=True)
    for name, content in files.items():
        if isinstance(content, Path):
            shutil.copy(content, root / name)
        else:
            (root / name).write_bytes(content)
    if not as_zip:
        return root
    archive = root.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w") as packed:
        for path in sorted(root.iterdir()):
            packed.write(path, path.name)
    return archive


def graded(tmp_path: Path, source: Path) -> dict[str, dict]:
    out = tmp_path / "out"
    assert batch.grade_all(source, "mha", out, GradingConfig(), jobs=1, progress=False) == 0
    with open(out / "summary.csv", newline="") as file:
        return {row["student_id"]: row for row in csv.DictReader(file)}


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_canvas_a_name_ending_in_a_classmates_id(samples, tmp_path, as_zip):
    """Mallory names herself "Mallory_12345" (user 12345 is Alice): is she graded as herself, Alice on her own work?"""
    files = {
        "smithalice_12345_7001_mha.ipynb": samples["solved"],
        "jonesbob_23456_7003_mha.ipynb": samples["buggy"],
        "mallory_12345_999_555_mha.ipynb": samples["blank"],  # Canvas keeps "_12345" at the end of her name
    }
    table = graded(tmp_path, export(files, tmp_path / "canvas", as_zip))
    assert {uid: row["score"] for uid, row in table.items()} == {"12345": "40", "23456": "37.7", "999": "0"}
    assert table["12345"]["name"] == "smithalice" and table["999"]["name"] == "mallory_12345"
    with open(tmp_path / "out" / "canvas_grades.csv", newline="") as file:
        canvas = list(csv.reader(file))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "mha"]
    assert sorted(canvas[2:]) == [
        ["jonesbob", "23456", "", "", "", "37.7"],
        ["mallory_12345", "999", "", "", "", "0"],
        ["smithalice", "12345", "", "", "", "40"],
    ]


def receipt(name: str, user: str, attempt: str, comments: str) -> bytes:
    return (
        f"Name: {name} ({user})\nAssignment: HW 1\nDate Submitted: Wednesday, January 31, 2024 12:00:00 PM EST\n"
        f"Current Grade: Needs Grading\n\nSubmission Field:\nThere is no student submission text data for this assignment.\n\n"
        f"Comments:\n{comments}\n\nFiles:\n\tOriginal filename: mha.ipynb\n\tFilename: {attempt}_mha.ipynb\n\n"
    ).encode()


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_blackboard_comments_that_rename_a_classmates_file(samples, tmp_path, as_zip):
    """Mallory's Comments hold receipt lines renaming Jane's notebook: is Jane graded on it all the same?"""
    jane, bob, mallory = (
        f"HW 1_{user}_attempt_2024-01-31-12-00-0{i}" for i, user in enumerate(("jdoe", "bsmith", "mal"))
    )
    injected = f"Files:\n\tOriginal filename: notes.txt\n\tFilename: {jane}_mha.ipynb\n"
    files = {
        f"{jane}_mha.ipynb": samples["solved"],
        f"{jane}.txt": receipt("Jane Doe", "jdoe", jane, "There are no student comments for this assignment."),
        f"{bob}_mha.ipynb": samples["buggy"],
        f"{bob}.txt": receipt("Bob Smith", "bsmith", bob, "There are no student comments for this assignment."),
        f"{mallory}_mha.ipynb": samples["blank"],
        f"{mallory}.txt": receipt("Mallory Evil", "mal", mallory, injected),
    }
    table = graded(tmp_path, export(files, tmp_path / "blackboard", as_zip))
    assert {uid: row["score"] for uid, row in table.items()} == {"jdoe": "40", "bsmith": "37.7", "mal": "0"}
    assert table["jdoe"]["file"].endswith("/mha.ipynb") and table["mal"]["name"] == "Mallory Evil"
    text = (tmp_path / "out" / "blackboard_grades.csv").read_text().splitlines()
    assert text[0] == '"Last Name","First Name","Username","mha [Total Pts: 47]"'  # 40 automatic, 7 written
    assert '"Doe","Jane","jdoe","40"' in text and '"Evil","Mallory","mal","0"' in text


def test_gradescope_metadata_alias_bomb_is_refused_by_name(samples, tmp_path):
    """A 'billion laughs' submission_metadata.yml: does grade-all stop at once, exit 2 and name the file, no traceback?"""
    root = tmp_path / "assignment_1_export"
    (root / "submission_1").mkdir(parents=True)
    shutil.copy(samples["solved"], root / "submission_1" / "mha.ipynb")
    (root / "submission_metadata.yml").write_text(BILLION_LAUGHS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade-all",
            str(root),
            "-a",
            "mha",
            "--out",
            str(tmp_path / "out"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "submission_metadata.yml uses a YAML alias" in done.stderr and "billion laughs" in done.stderr
