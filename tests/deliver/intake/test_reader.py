"""What every LMS reader shares: an export walked without following links, junk noted, and the LMS that made it told."""

from __future__ import annotations

import os

import pytest

from autograder.deliver.intake import IntakeError, read_intake
from autograder.deliver.intake.reader import Reader
from autograder.deliver.intake.unzip import SCRATCH_MARK

from .exports import NOTEBOOK, build, skipped_why

CANVAS_FILE = "doejane_12345_678_mha.ipynb"


def reader_of(root, scratch=None) -> Reader:
    return Reader(root, scratch or root.parent / "scratch", (".ipynb", ".py"), [])


def test_a_single_students_folder_is_not_taken_for_a_wrapper(tmp_path):
    """Is an export holding one folder of files read as that one student, not unwrapped into her files?"""
    files = {"alice/mha.ipynb": NOTEBOOK, "alice/utils.py": b""}
    intake = read_intake(build(tmp_path, files, as_zip=True), tmp_path / "scratch")
    assert [(s.key, s.path.name) for s in intake.submissions] == [("alice", "alice")]


def test_unknown_export_is_refused_with_what_was_seen(tmp_path):
    """Is an export no reader knows refused, naming what it holds and the exports the intake reads?"""
    files = {"grades.csv": b"a,b", "notes.pdf": b"%PDF"}
    with pytest.raises(IntakeError, match=r"grades\.csv.*Canvas.*Gradescope"):
        read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch")


def test_entries_note_links_junk_and_special_files_and_pass_over_scratch(tmp_path):
    """Does entries keep only what could be a submission, noting why for each entry left out, and never scratch?"""
    root = tmp_path / "export"
    for folder in ("ann", "__MACOSX", ".ipynb_checkpoints", "__pycache__", "scratch", "old-scratch"):
        (root / folder).mkdir(parents=True)
    (root / "old-scratch" / SCRATCH_MARK).write_text("")
    for name in ("bob.ipynb", ".DS_Store", "Thumbs.db", "desktop.ini", "._bob.ipynb"):
        (root / name).write_bytes(b"")
    os.symlink(root / "ann", root / "mallory")
    os.mkfifo(root / "pipe")
    reader = reader_of(root, root / "scratch")
    assert [e.name for e in reader.entries(root)] == ["ann", "bob.ipynb"]
    assert dict(reader.skipped) == {
        "._bob.ipynb": "a macOS resource fork",
        ".DS_Store": "macOS Finder's folder settings",
        ".ipynb_checkpoints/": "Jupyter's autosaves",
        "Thumbs.db": "Windows' thumbnail cache",
        "__MACOSX/": "macOS resource forks added by Archive Utility",
        "__pycache__/": "compiled Python",
        "desktop.ini": "Windows' folder settings",
        "mallory": "a symbolic link: never followed",
        "pipe": "not a regular file (a device, pipe or socket)",
    }


def test_files_under_never_goes_through_a_link(tmp_path):
    """Are a student's regular files found at any depth, and her links, junk and pipes left out of her copy, noted?"""
    root = tmp_path / "export"
    ann = root / "ann"
    (ann / "src" / "__pycache__").mkdir(parents=True)
    (ann / "mha.ipynb").write_bytes(NOTEBOOK)
    (ann / "src" / "utils.py").write_bytes(b"")
    (ann / "src" / "__pycache__" / "utils.pyc").write_bytes(b"")
    (ann / ".DS_Store").write_bytes(b"")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.py").write_bytes(b"")
    os.symlink(tmp_path / "secrets", ann / "linked")
    os.symlink(tmp_path / "secrets" / "key.py", ann / "key.py")
    os.mkfifo(ann / "pipe")
    reader = reader_of(root)
    assert [p.relative_to(ann).as_posix() for p in reader.files_under(ann)] == ["mha.ipynb", "src/utils.py"]
    link = "a symbolic link: never followed, left out of the graded copy"
    assert dict(reader.skipped) == {
        "ann/.DS_Store": "macOS Finder's folder settings",
        "ann/key.py": link,
        "ann/linked": link,
        "ann/pipe": "not a regular file (a device, pipe or socket)",
        "ann/src/__pycache__/": "compiled Python",
    }


def test_plain_files_only_tells_a_folder_to_grade_in_place(tmp_path):
    """Is a folder of folders and regular files plain, and one holding a link anywhere not, the link noted?"""
    root = tmp_path / "export"
    (root / "ann" / "src").mkdir(parents=True)
    (root / "ann" / "src" / "mha.py").write_bytes(b"")
    reader = reader_of(root)
    assert reader.plain_files_only(root / "ann") and reader.skipped == []
    os.symlink("/etc/passwd", root / "ann" / "src" / "passwd")
    assert not reader.plain_files_only(root / "ann")
    assert (
        skipped_why(reader.skipped, "ann/src/passwd") == "a symbolic link: never followed, left out of the graded copy"
    )


def test_label_is_relative_printable_and_marks_folders(tmp_path):
    """Is a skipped entry labelled relative to the export, a folder with '/', control characters escaped?"""
    root = tmp_path / "export"
    (root / "sub").mkdir(parents=True)
    reader = reader_of(root)
    assert reader.label(root / "sub") == "sub/"
    assert reader.label(root / "sub" / "a\x1b[2J.py") == "sub/a\\x1b[2J.py"
    assert reader.label(tmp_path / "elsewhere.py") == (tmp_path / "elsewhere.py").as_posix()
