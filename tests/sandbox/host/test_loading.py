"""What the grader makes of a student process's account of its loading: believed before the student's code runs,
never after; each failure told by its step and mapped to whose it is; a copy the sandbox cannot read named."""

import os
from pathlib import Path

import pytest

from autograder.errors import KitError
from autograder.public.loader import Entry, SubmissionError
from autograder.sandbox.guest.steps import STEPS
from autograder.sandbox.host.loading import (
    LIMITS,
    DeviceNotStarted,
    Loading,
    Misbehaved,
    Refused,
    SandboxFailed,
    closed_part,
    unreadable_reason,
)


def loading(tmp_path, kind="notebook") -> Loading:
    path = tmp_path / "work.ipynb"
    path.write_bytes(b"x" * (3 * 2**20))
    return Loading(Entry(kind, path), lambda detail: f"diagnosed: {detail}")


def hear(follow: Loading, *messages: dict) -> None:
    for message in messages:
        follow.heard(message)


def step(name: str) -> dict:
    return {"op": "step", "step": name}


def test_the_steps_are_followed_in_order_to_ready(tmp_path):
    """Is each step taken in order, skipped ones allowed, 'ready' taken only once the student's code runs, with
    its notes kept bounded?"""
    follow = loading(tmp_path)
    hear(follow, step("isolating"), step("reading"), step("running"))
    assert follow.student_code and not follow.ready
    follow.heard({"op": "ready", "notes": ["n" * 2000] * 30})
    assert follow.ready and len(follow.notes) == 20 and len(follow.notes[0]) == 1000


@pytest.mark.parametrize(
    "step_begun, problem, raised, words",
    [
        ("parsing", "submission", Refused, "^the notebook does not parse$"),
        ("reading", "unreadable", SandboxFailed, "^diagnosed: the notebook does not parse$"),
        ("parsing", "memory", SandboxFailed, r"^the sandbox failed while parsing the notebook work.ipynb \(3.0 MiB\), "
         r"before any code of the submission ran: it ran out of memory \(the notebook does not parse\)"),
        ("isolating", "submission", SandboxFailed, "^the sandbox failed while setting up its isolation"),
        ("isolating", "device", DeviceNotStarted, "^the notebook does not parse$"),
        ("reading", "device", SandboxFailed, r"^the sandbox failed while reading the submission's files \(work.ipynb\)"),
        ("extracting", "kit", SandboxFailed, "^the sandbox failed while extracting the code of the notebook work.ipynb"),
    ],
)  # fmt: skip
def test_a_step_of_the_kits_that_failed_is_told_by_its_step(tmp_path, step_begun, problem, raised, words):
    """Is a failure told while a step of the kit's runs mapped by that step: the submission's own (a refusal, the
    student's) only where reading it is the step; CUDA that did not start only while isolating (graded again on the
    CPU); a copy the sandbox cannot read diagnosed; else the kit's?"""
    follow = loading(tmp_path)
    hear(follow, *[step(s) for s in STEPS[: STEPS.index(step_begun) + 1]])
    with pytest.raises(raised, match=words) as failure:
        follow.heard({"op": "failed", "problem": problem, "detail": "the notebook does not parse"})
    assert isinstance(failure.value, {Refused: SubmissionError, SandboxFailed: KitError}.get(raised, raised))


@pytest.mark.parametrize(
    "messages",
    [
        [step("reading"), step("isolating")],  # a step again, or back
        [step("reading"), step("reading")],
        [step("reading"), {"op": "ready"}],  # ready before the student's code ran
        [step("reading"), {"op": "step", "step": "flying"}],
        [{"op": "failed", "problem": "submission", "detail": "x"}],  # a failure before any step
        [step("reading"), {"op": "failed", "problem": "bad luck", "detail": "x"}],
    ],
)
def test_a_message_out_of_the_protocol_before_the_students_code_is_the_kits_failure(tmp_path, messages):
    """Is a message out of order or unknown, while only the kit's code has run, the kit's failure (a broken
    protocol), never the student's?"""
    with pytest.raises(SandboxFailed, match="broke the loading protocol"):
        hear(loading(tmp_path), *messages)


@pytest.mark.parametrize(
    "lie",
    [
        {"op": "failed", "problem": "submission", "detail": "the notebook could not be parsed"},
        {"op": "failed", "problem": "unreadable", "detail": "the kit cannot read this submission's files"},
        step("reading"),
        step("running"),
    ],
)
def test_once_the_students_code_runs_nothing_it_says_shifts_the_blame(tmp_path, lie):
    """After 'running': is any message but 'ready' (a forged failure of an earlier step, a step again) only the
    student's misbehaving?"""
    follow = loading(tmp_path)
    hear(follow, step("isolating"), step("running"))
    with pytest.raises(Misbehaved):
        follow.heard(lie)


def test_loading_messages_are_bounded_and_carry_no_arrays():
    """Is a loading message bounded (1 MiB) and refused when it carries arrays?"""
    assert LIMITS.frame_bytes == LIMITS.header_bytes == 2**20 and LIMITS.arrays == 0


def test_the_part_of_the_copy_closed_to_the_sandboxs_uid_is_named(tmp_path):
    """Is the first folder on the way (or the file) whose permission bits close it to the uid named, with its
    permissions and owner; and, where the bits allow it, is something else blamed?"""
    uid = os.getuid() + 12345
    top, inner = tmp_path / "submission", tmp_path / "submission" / "folder"
    inner.mkdir(parents=True)
    (inner / "work.ipynb").write_text("{}")
    os.chmod(inner / "work.ipynb", 0o644)
    paths = [top, inner, inner / "work.ipynb"]
    for folder in (top, inner):
        os.chmod(folder, 0o755)
    assert closed_part(paths, uid, uid) is None
    os.chmod(inner, 0o700)
    assert closed_part(paths, uid, uid)[0] == inner
    assert closed_part(paths, os.getuid(), os.getgid()) is None  # its owner passes
    os.chmod(inner, 0o711)
    os.chmod(inner / "work.ipynb", 0o640)
    assert closed_part(paths, uid, uid)[0] == inner / "work.ipynb"
    assert closed_part(paths, uid, os.stat(inner).st_gid) is None  # its group reads
    reason = unreadable_reason(paths, uid, uid, "PermissionError")
    assert reason.startswith(
        f"the kit cannot read this submission's files: {inner / 'work.ipynb'} has permissions 0640"
    )
    assert f"closed to the sandbox's uid {uid} (an instructor's umask, such as 077?)" in reason
    assert reason.endswith("not graded: the host's set-up, not the student's work")
    os.chmod(inner / "work.ipynb", 0o644)
    assert "though their permissions let the sandbox's uid" in unreadable_reason(paths, uid, uid, "EACCES")


def test_a_package_is_read_as_a_folder(tmp_path):
    """Is a package (the last path a folder) closed when the uid may pass through it but not list it?"""
    package = Path(tmp_path / "pkg")
    package.mkdir()
    os.chmod(package, 0o711)
    assert closed_part([package], os.getuid() + 12345, os.getgid() + 12345)[0] == package
