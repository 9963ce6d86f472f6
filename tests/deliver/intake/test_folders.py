"""A plain folder: one student per folder or gradable file, named by it."""

from __future__ import annotations

from autograder.deliver.intake import Upload, folders
from autograder.deliver.intake.reader import Reader

from .exports import NOTEBOOK, build, skipped_why


def read_folder(tmp_path, files: dict[str, bytes], suffixes=(".ipynb", ".py")):
    """The drafts folders.read makes of files, as {student: entry graded}, and what it skipped."""
    root = build(tmp_path, files, as_zip=False)
    skipped: list[tuple[str, str]] = []
    drafts = folders.read(Reader(root, tmp_path / "scratch", suffixes, skipped), root)
    assert all(d.student_id == "" and (d.folder is None) != (d.file is None) for d in drafts)
    return {d.name: (d.folder or d.file).name for d in drafts}, skipped


def test_folders_a_folder_wins_over_files_and_the_first_suffix_over_the_next(tmp_path):
    """A student with a folder and files, another with a .py and a .ipynb: is the folder, then the first suffix, graded?"""
    drafts, skipped = read_folder(
        tmp_path,
        {"ann/mha.ipynb": NOTEBOOK, "ann.ipynb": NOTEBOOK, "bob.py": b"", "bob.ipynb": NOTEBOOK},
        (".py", ".ipynb"),  # against the alphabet: the order given decides
    )
    assert drafts == {"ann": "ann", "bob": "bob.py"}
    assert skipped_why(skipped, "ann.ipynb") == "a second entry for the student 'ann': ann is graded"
    assert skipped_why(skipped, "bob.ipynb") == "a second entry for the student 'bob': bob.py is graded"


def test_folders_suffixes_decide_what_is_a_student(tmp_path):
    """Does a file count by its suffix, in any case, and is any other file skipped naming the suffixes that count?"""
    drafts, skipped = read_folder(tmp_path, {"Ann.IPYNB": NOTEBOOK, "bob.py": b"", "notes.txt": b""}, (".ipynb",))
    assert drafts == {"Ann": "Ann.IPYNB"}
    assert skipped_why(skipped, "bob.py") == "not a .ipynb file, nor a student's folder"
    assert skipped_why(skipped, "notes.txt") == "not a .ipynb file, nor a student's folder"


def test_folders_hidden_entries_are_no_one(tmp_path):
    """Are a hidden file and a hidden folder skipped as hidden, not taken for students?"""
    drafts, skipped = read_folder(tmp_path, {".git/HEAD": b"", ".ann.ipynb": NOTEBOOK, "bob.ipynb": NOTEBOOK})
    assert drafts == {"bob": "bob.ipynb"}
    assert skipped_why(skipped, ".git/") == skipped_why(skipped, ".ann.ipynb") == "a hidden file or folder"


def test_folders_say_nothing_of_time_or_lateness(tmp_path):
    """Is the entry graded recorded as the one upload, with no time and lateness unknown (a folder says neither)?"""
    root = build(tmp_path, {"ann/mha.ipynb": NOTEBOOK}, as_zip=False)
    [ann] = folders.read(Reader(root, tmp_path / "scratch", (".ipynb",), []), root)
    assert (ann.late, ann.submitted_at, ann.uploads) == (None, "", [Upload("ann/", True)])
