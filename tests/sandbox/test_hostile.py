"""Does a hostile submission earn exactly what its honest work earns, and harm nothing?

Each file of tests/hostile/ is appended to the reference (see its README). For each:
the points lost are exactly those of expected.json, with the feedback saying what
happened; results.json is the grader's own; no process of the student is left; no
cgroup or scratch folder is left; and no file of the kit changed.
"""
import json
import os
import time
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.engine import Grader, Options
from autograder.results import write_results
from autograder.sandbox.cgroups import own_cgroup
from autograder.sandbox.session import GiB, Limits

from .conftest import lost_names

HOSTILE = KIT_ROOT / "tests" / "hostile"
EXPECTED = json.loads((HOSTILE / "expected.json").read_text())
UIDS = range(61000, 61100)
pytestmark = pytest.mark.slow


def kit_files() -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file of the kit, its virtual environment included."""
    found = {}
    for folder, folders, files in os.walk(KIT_ROOT):
        folders[:] = [f for f in folders if f != "__pycache__"]
        for name in files:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                continue
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def student_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                uid = int(next(line for line in (entry / "status").read_text().splitlines() if line.startswith("Uid:")).split()[1])
            except (OSError, StopIteration):
                continue
            if uid in UIDS:
                found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def before():
    return kit_files()


@pytest.fixture(scope="module")
def grader(mha):
    options = Options(limits=Limits(timeout=3.0, memory_bytes=1 * GiB, processes=32))
    if options.isolation() != "hardened":
        pytest.skip("the hostile set needs the hardened sandbox")
    with Grader(mha, options) as grader:
        yield grader


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_submission(mha, grader, before, name, tmp_path):
    """Does it lose exactly the points its attack or its missing work costs, and is it cleaned up?"""
    submission = tmp_path / name
    submission.write_text(mha.reference_path.read_text() + "\n\n" + (HOSTILE / name).read_text())
    report = grader.grade(submission)
    results = write_results(report, tmp_path / "out")
    expected = EXPECTED[name]["loses"]
    assert lost_names(report) == sorted(expected), [c.message for c in report.checks if c.status != "passed"]
    for lost, words in expected.items():
        messages = " ".join(c.message for c in report.checks if c.name == lost).lower()
        assert words.lower() in messages, messages[:500]
    written = json.loads(results.read_text())
    assert written["score"] == pytest.approx(report.score) and "FORGED" not in results.read_text()
    deadline = time.monotonic() + 2  # a killed process needs a moment to be reaped
    while student_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert student_processes() == [], "a student process outlived its grading"
    for controller in ("memory", "pids"):
        assert not list((own_cgroup(controller) / "attention-kit").glob("*-*")), "a job cgroup was left behind"


def test_nothing_of_the_kit_changed(before):
    """After every hostile submission: is every file of the kit as it was?"""
    after = kit_files()
    changed = sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))
    assert not changed, changed[:20]
