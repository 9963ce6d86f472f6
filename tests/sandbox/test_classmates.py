"""Can a student's uid read anything of its classmates while grade-all grades the class?

The uid tier (root where namespaces are refused, tests/hosts/no_namespaces.py, with a
copy of the kit only root can read) runs every student's code as a uid of its own on the
host's file system. tests/data/hostile/read_classmates.py looks for a classmate's marker on
every path of every process's command line (grade-all's export and --out folder) and in
the grader's scratch folders; it scores only if it finds one. The marker is never
written whole in the kit: it is put together here, at run time.
"""

import csv
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.public import trees

from ..hosts.kit_python import private_copy

HOSTS = KIT_ROOT / "tests" / "hosts"
HOSTILE = KIT_ROOT / "tests" / "data" / "hostile"
TOKEN = f"{os.getpid()}-{secrets.token_hex(4)}"  # this run's: another test's planted classmate is not mallory's
MARKER = "CLASSMATE" + "-MARKER-" + TOKEN
ALICE = f"alice-{MARKER}"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="the uid tier and its simulated host need root"),
]


@pytest.fixture(scope="module")
def kit(mha_grader):  # the reference's outputs cached, for the kit's copy
    folder = Path(tempfile.mkdtemp(prefix="kit-classmates-"))
    os.chmod(folder, 0o755)
    yield private_copy(folder / "kit")
    trees.remove_tree(folder)


@pytest.fixture
def course(mha):
    """A folder any user may enter (as a course's data folder often is), holding a class's export:
    alice's honest work, the marker in it and in her folder's name (so in her results' too), and
    mallory's, who looks for it."""
    folder = Path(tempfile.mkdtemp(prefix="course-"))
    os.chmod(folder, 0o755)
    export = folder / "export"
    reference = mha.reference_path.read_text()
    for student, extra in (
        (ALICE, f"\n# {MARKER}\n"),
        ("mallory", "\n\n" + (HOSTILE / "read_classmates.py").read_text().replace("RUN-TOKEN", TOKEN)),
    ):
        (export / student).mkdir(parents=True)
        (export / student / "mha.py").write_text(reference + extra)
    yield folder
    trees.remove_tree(folder)


def open_to_all(export: Path) -> None:
    for root, _, files in trees.walk(export):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(root / name, 0o644)


def grade_all(kit: Path, course: Path, *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    """grade-all of course/export into course/out, run in a container that refuses namespaces; the points per student."""
    command = [sys.executable, str(HOSTS / "kit_python.py"), "--kit", str(kit), "--no-namespaces", "--"]
    done = subprocess.run(
        [*command, "-m", "autograder", "grade-all", str(course / "export"), "--assignment", "mha"]
        + ["--out", str(course / "out"), "--jobs", "1", "--timeout", "5", *options],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=kit,
    )
    summary = course / "out" / "summary.csv"
    rows = {row["key"]: row for row in csv.DictReader(summary.open())} if summary.exists() else {}
    return done, rows


def test_the_uid_tier_reads_nothing_of_a_classmate(kit, course):
    """With the export closed to other users, does mallory find nothing of alice (losing her honest tokenize),
    alice keep full marks, and the results folder stay the grader's alone?"""
    os.chmod(course / "export", 0o700)
    done, rows = grade_all(kit, course, "--isolation", "uid")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert rows[ALICE]["score"] == "40" and rows[ALICE]["isolation"] == "uid"
    assert float(rows["mallory"]["tokenize"]) < 2 and rows["mallory"]["split_heads"] == "3"
    assert (course / "out").stat().st_mode & 0o077 == 0


def test_the_uid_tier_refuses_an_export_other_users_can_read(kit, course):
    """With the export readable by every user, is the uid tier refused, naming the export and the fix, and nobody scored?"""
    open_to_all(course / "export")
    done, rows = grade_all(kit, course, "--isolation", "uid")
    assert done.returncode == 3
    assert f"it could read {course / 'export'}" in done.stderr and "chmod -R go-rwx" in done.stderr
    assert all(row["status"] == "error" and row["score"] == "" for row in rows.values())


def test_the_search_finds_a_classmate_where_nothing_isolates_it(kit, course):
    """Does the same search find alice's marker where the student's code runs as the grader (a plain process)?"""
    open_to_all(course / "export")
    done, rows = grade_all(kit, course, "--isolation", "process", "--allow-unsandboxed")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert rows["mallory"]["score"] == "40", "the search found nothing even where everything is readable"
