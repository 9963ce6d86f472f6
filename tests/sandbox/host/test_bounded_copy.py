"""Copying a submission into the grader's scratch: counted before it is parsed, never following a link."""

import os

import pytest

from autograder.public.loader import SubmissionError
from autograder.sandbox.host.bounded_copy import CopyLimits, copy_submission


def test_a_folder_is_copied_whole_with_modes_the_student_process_can_read(tmp_path):
    """Are a folder's files and subfolders copied with their bytes, files 0644 and folders 0755 (the folder it is
    copied into too) whatever the grader's umask, and the copy's path and no notes returned?"""
    source = tmp_path / "work"
    (source / "pkg").mkdir(parents=True)
    (source / "mha.py").write_text("def f(): pass\n")
    (source / "pkg" / "helper.py").write_bytes(b"\x00\x01" * 10)
    os.chmod(source / "mha.py", 0o600)
    os.chmod(source / "pkg", 0o700)
    umask = os.umask(0o077)  # a grader's strict umask: the copy's modes are set, not left to it
    try:
        copy, notes = copy_submission(source, tmp_path / "into")
    finally:
        os.umask(umask)
    assert copy == tmp_path / "into" / "work" and notes == []
    assert (copy / "mha.py").read_text() == "def f(): pass\n"
    assert (copy / "pkg" / "helper.py").read_bytes() == b"\x00\x01" * 10
    assert oct((copy / "mha.py").stat().st_mode & 0o777) == oct(0o644)
    assert oct((copy / "pkg").stat().st_mode & 0o777) == oct(0o755)
    assert oct((tmp_path / "into").stat().st_mode & 0o777) == oct(0o755)


def test_a_single_file_is_copied_beside_nothing(tmp_path):
    """Is a single file copied under its own name?"""
    (tmp_path / "mha.py").write_text("x = 1\n")
    copy, notes = copy_submission(tmp_path / "mha.py", tmp_path / "into")
    assert copy == tmp_path / "into" / "mha.py" and copy.read_text() == "x = 1\n" and notes == []


def test_links_and_special_files_inside_are_left_out_and_noted(tmp_path):
    """Are a link (to a file, to a folder) and a pipe inside the folder left out, each noted with the reason,
    and the folders a submission's tools make skipped without a note?"""
    source = tmp_path / "work"
    source.mkdir()
    (source / "mha.py").write_text("x = 1\n")
    (source / "shadow").symlink_to("/etc/shadow")
    (source / "kit").symlink_to(tmp_path)
    os.mkfifo(source / "pipe")
    (source / ".git").mkdir()
    (source / ".git" / "HEAD").write_text("ref")
    copy, notes = copy_submission(source, tmp_path / "into")
    assert sorted(p.name for p in copy.iterdir()) == ["mha.py"]
    assert notes == [
        "work/kit is a symbolic link: it was not copied (hand in files, not links)",
        "work/pipe is not a regular file: it was not copied",
        "work/shadow is a symbolic link: it was not copied (hand in files, not links)",
    ]


def test_a_name_that_is_not_utf8_is_noted_in_ascii(tmp_path):
    """Is a left-out entry whose name holds bytes that are no UTF-8 noted in plain ASCII, those bytes escaped
    (control characters are escaped later, where results are shown: results/text.py)?"""
    source = tmp_path / "work"
    source.mkdir()
    os.symlink("/etc/passwd", os.path.join(bytes(source), b"evil\xff\xfe.py"))
    _, notes = copy_submission(source, tmp_path / "into")
    assert notes == ["work/evil\\udcff\\udcfe.py is a symbolic link: it was not copied (hand in files, not links)"]


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda path: None, "does not exist; give the path of a notebook, a .py file or a folder"),
        (lambda path: path.symlink_to("/etc/passwd"), "is a symbolic link; hand in the file or folder itself"),
        (lambda path: os.mkfifo(path), "is not a regular file or folder"),
    ],
    ids=["missing", "link", "pipe"],
)
def test_a_submission_that_is_no_file_or_folder_is_refused_saying_what_to_hand_in(tmp_path, make, error):
    """Is a missing path, a link or a pipe handed in refused with a message that says what to hand in?"""
    make(tmp_path / "mha.py")
    with pytest.raises(SubmissionError, match=error):
        copy_submission(tmp_path / "mha.py", tmp_path / "into")


def test_the_limits_are_counted_and_named(tmp_path):
    """Are more files, more bytes or deeper folders than the limits refused, each naming its limit, and a
    submission exactly at the limits copied?"""
    source = tmp_path / "work"
    (source / "a" / "b").mkdir(parents=True)
    for name in ("one", "two", "three"):
        (source / name).write_bytes(b"x" * 100)
    limits = CopyLimits(bytes=300, files=3, depth=2)
    copy, _ = copy_submission(source, tmp_path / "exact", limits)
    assert sorted(p.name for p in copy.iterdir()) == ["a", "one", "three", "two"]
    with pytest.raises(SubmissionError, match="more than 2 files; submit your code, not data"):
        copy_submission(source, tmp_path / "files", CopyLimits(bytes=300, files=2, depth=2))
    with pytest.raises(SubmissionError, match="more than 0 MiB; submit your code, not data"):
        copy_submission(source, tmp_path / "bytes", CopyLimits(bytes=299, files=3, depth=2))
    with pytest.raises(SubmissionError, match="nest deeper than 1 levels"):
        copy_submission(source, tmp_path / "depth", CopyLimits(bytes=300, files=3, depth=1))


def test_a_single_file_over_the_byte_limit_is_refused_while_read(tmp_path):
    """Is one file larger than the whole budget refused (its copy stopped a chunk past the limit, not read whole)?"""
    (tmp_path / "big.py").write_bytes(b"x" * (3 << 20))
    with pytest.raises(SubmissionError, match="more than 2 MiB"):
        copy_submission(tmp_path / "big.py", tmp_path / "into", CopyLimits(bytes=2 << 20))
    assert (tmp_path / "into" / "big.py").stat().st_size <= 2 << 20
