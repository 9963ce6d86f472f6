"""What one student of the uid tier leaves to the next, and what it can reach of another's copy.

The uid tier runs student code as a uid of its own on the host itself (root where
namespaces are refused). Here it is entered directly as root on this machine, with the
kit's own readability set aside (tests/sandbox/test_tiers.py grades the hostile set in a
copy of the kit that only root can read, in a container that refuses namespaces).
"""

import os
import re

import pytest

from autograder.config import GradingConfig
from autograder.grade.engine import Grader
from autograder.sandbox.host import uids

from . import hostile_run

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="the uid tier needs root")]


@pytest.fixture(scope="module")
def grader(mha):
    with Grader(mha, GradingConfig(**hostile_run.CONFIG, isolation="uid"), secret_paths=([], [])) as grader:
        pool = grader.isolation.uid_pool
        pool.uids = pool.uids[:1]  # every student of this grader gets the same uid, as uids are reused
        yield grader


def grade(grader, mha, name, folder):
    report = grader.grade(hostile_run.make_submission(mha, name, folder))
    return sorted(n for n, (score, top) in report.by_name().items() if score < top)


def test_a_student_leaves_nothing_for_the_next_one_of_its_uid(grader, mha, tmp_path):
    """After a student left a secret in /tmp, /var/tmp, /dev/shm, /run/lock and System V objects, does the
    next student of the same uid find none of it (and so lose its honest-only-if-found tokenize)?"""
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    assert grade(grader, mha, "leave_a_secret.py", tmp_path / "first") == []
    assert grade(grader, mha, "look_for_the_secret.py", tmp_path / "second") == [
        "tokenize"
    ]  # build_vocab and encode: carried forward
    assert hostile_run.leftovers(grader) == []


def test_without_the_sweep_the_next_student_finds_the_secret(grader, mha, tmp_path, monkeypatch):
    """Is it the sweep that stops the secret: without it, does the next student find it (so the test above can fail)?"""
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    monkeypatch.setattr(uids, "remove_files_of", lambda uid: None)
    monkeypatch.setattr(uids, "remove_ipc_of", lambda uid: None)
    try:
        assert grade(grader, mha, "leave_a_secret.py", tmp_path / "first") == []
        uid = grader.isolation.uid_pool.uids[0]
        kinds = {kind for kind, _ in uids.ipc_of(uid)}
        assert kinds == {"shm", "sem", "msg"}, "a cgroup bounds memory here: the segment is allowed, and stays"
        assert grade(grader, mha, "look_for_the_secret.py", tmp_path / "second") == []
    finally:
        monkeypatch.undo()
        for uid in grader.isolation.uid_pool.uids:
            uids.remove_files_of(uid)
            uids.remove_ipc_of(uid)
    assert hostile_run.leftovers(grader) == []


def test_a_students_copy_is_open_to_its_uid_alone(grader, mha, tmp_path):
    """Is the folder holding a student's copy and scratch closed to every uid but the student's own (its group)?"""
    peek = (
        "\n\nimport os as _os\n\n\ndef tokenize(text):\n"
        "    info = _os.stat(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))\n"
        "    raise ValueError(f'mode {info.st_mode & 0o777:o} group {info.st_gid} mine {_os.getgid()}')\n"
    )
    submission = tmp_path / "peek.py"
    submission.write_text(mha.reference_path.read_text() + peek)
    report = grader.grade(submission)
    message = next(c.message for c in report.checks if c.name == "tokenize" and not c.passed)
    mode, group, mine = re.search(r"mode (\d+) group (\d+) mine (\d+)", message).groups()
    assert mode == "710" and group == mine
