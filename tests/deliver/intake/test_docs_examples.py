"""The intake table of docs/grading.md ("A class"), read as tests: each LMS's example export, built from exactly the
names the docs list, comes out as the docs say (one student each, the latest upload graded with the module
beside it, earlier ones listed, the late flag and time as the LMS writes them)."""

from __future__ import annotations

import re

import pytest

from autograder import KIT_ROOT
from autograder.deliver.intake import SOURCES, Upload, read_intake

from .exports import NOTEBOOK, build, by_key, files_of, git_repository

TABLE_HEAD = "| Source | What the instructor downloads | What it holds (example) |"
OLD_NOTEBOOK = b'{"cells": [], "metadata": {"old": true}, "nbformat": 4, "nbformat_minor": 5}'


def readme_examples() -> dict[str, tuple[str, list[str]]]:
    """source -> (its row's example cell, the names in backticks there), from docs/grading.md's intake table."""
    lines = (KIT_ROOT / "docs" / "grading.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(TABLE_HEAD) + 2  # past the header and its | --- | line
    examples = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        source, _, example = (cell.strip() for cell in line.strip().strip("|").split("|"))
        examples[source.strip("`")] = (example, re.findall(r"`([^`]+)`", example))
    return examples


EXAMPLES = readme_examples()


def test_the_readme_lists_an_example_for_every_source():
    """Does the docs' intake table give an example export for each source the intake reads, and no other?"""
    assert list(EXAMPLES) == list(SOURCES)


def contents(name: str) -> bytes:
    """What a file of the docs' examples holds: a notebook, or a module."""
    return NOTEBOOK if name.endswith(".ipynb") else b"HELP = 1\n"


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_docs_example_canvas_on_time_upload_and_late_reupload_are_one_student(tmp_path, as_zip):
    """The docs' Canvas files: one student (LATE is a flag, not part of her name), the latest mha notebook graded
    under its own name with utils.py beside it, the first notebook listed as earlier, the LATE flag recorded?

    instructure/canvas-lms lib/content_zipper.rb: get_filename joins [name, "LATE" if late, user id],
    add_upload_submission appends "_<attachment id>_<display name>"; "-1" is Canvas's re-upload of a name
    (instructure/canvas-lms#606). Public unpackers read it so: HCI-Data-Analysis/HCI-data-analysis's
    convert_zip_file (name_LATE_canvasid_number_assignment.zip), mikewesthad/canvas-unzipper."""
    example, names = EXAMPLES["canvas"]
    assert (
        names
        == [
            "doejane_12345_6789012_mha.ipynb",
            "doejane_LATE_12345_6789013_utils.py",
            "doejane_12345_6789014_mha-1.ipynb",
        ]
        and "(re-uploaded)" in example
    )
    files = {name: contents(name) for name in names}
    files[names[0]] = OLD_NOTEBOOK  # the first upload, replaced by mha-1.ipynb
    intake = read_intake(build(tmp_path, files, as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "canvas" and intake.skipped == []
    [jane] = intake.submissions
    assert (jane.key, jane.name, jane.student_id, jane.undecided) == ("doejane-12345", "doejane", "12345", "")
    assert files_of(jane) == ["mha.ipynb", "utils.py"] and (jane.path / "mha.ipynb").read_bytes() == NOTEBOOK
    assert [p.name for p in jane.earlier] == [names[0]]
    assert jane.late is True  # utils.py, graded with her notebook, came from a submission Canvas marked late
    assert sorted(jane.uploads, key=lambda u: u.upload_id) == [
        Upload(names[0], False, "6789012", False),
        Upload(names[1], True, "6789013", True),
        Upload(names[2], True, "6789014", False),
    ]


def test_docs_example_moodle_one_folder_per_participant(tmp_path):
    """The docs' Moodle folder: Jane Doe, participant 1234567, her notebook graded; lateness unknown (Moodle's
    download says neither time nor lateness)?"""
    _, names = EXAMPLES["moodle"]
    assert names == ["Jane Doe_1234567_assignsubmission_file_/mha.ipynb"]
    intake = read_intake(build(tmp_path, {names[0]: NOTEBOOK}, as_zip=True), tmp_path / "scratch")
    assert intake.source == "moodle"
    [jane] = intake.submissions
    assert (jane.name, jane.student_id, jane.late, jane.submitted_at) == ("Jane Doe", "1234567", None, "")
    assert files_of(jane) == ["mha.ipynb"] and [u.taken for u in jane.uploads] == [True]


def test_docs_example_blackboard_attempt_and_its_receipt(tmp_path):
    """The docs' Blackboard attempt and its receipt: jdoe, named by the receipt, the attempt's time from its file
    name in the receipt's zone, the notebook graded under its original name, the receipt not graded?"""
    example, names = EXAMPLES["blackboard"]
    assert names == ["HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb"] and "its receipt" in example
    attempt = names[0].removesuffix("_mha.ipynb")
    receipt = (
        "Name: Jane Doe (jdoe)\nAssignment: HW 1\nDate Submitted: Wednesday, January 31, 2024 12:00:00 PM EST\n"
        "Current Grade: Needs Grading\n\nSubmission Field:\nThere is no student submission text data for this "
        "assignment.\n\nComments:\nThere are no student comments for this assignment.\n\nFiles:\n"
        f"\tOriginal filename: mha.ipynb\n\tFilename: {names[0]}\n"
    )
    export = {names[0]: NOTEBOOK, f"{attempt}.txt": receipt.encode()}
    intake = read_intake(build(tmp_path, export, as_zip=True), tmp_path / "scratch")
    assert intake.source == "blackboard"
    [jane] = intake.submissions
    assert (jane.name, jane.student_id, jane.submitted_at) == ("Jane Doe", "jdoe", "2024-01-31T12:00:00-05:00")
    assert files_of(jane) == ["mha.ipynb"] and [entry for entry, _ in intake.skipped] == [f"{attempt}.txt"]


def test_docs_example_gradescope_export_with_its_metadata(tmp_path):
    """The docs' Gradescope export: the submission folder graded for the group the metadata names, with the
    time it gives, its history listed?"""
    _, names = EXAMPLES["gradescope"]
    assert names == ["assignment_123_export/submission_100001/mha.ipynb", "submission_metadata.yml"]
    metadata = (
        "submission_100001:\n  :submitters:\n  - :name: Jane Doe\n    :sid: '12345'\n    :email: jane@example.org\n"
        "  - :name: Bob Smith\n    :sid: '23456'\n    :email: bob@example.org\n"
        "  :created_at: 2024-01-31 17:00:00.000000000 Z\n  :status: processed\n"
        "  :history:\n  - :submitters: []\n    :created_at: 2024-01-30 09:00:00.000000000 Z\n    :id: 100000\n"
    )
    export = {names[0]: NOTEBOOK, f"assignment_123_export/{names[1]}": metadata.encode()}
    intake = read_intake(build(tmp_path, export, as_zip=True), tmp_path / "scratch")
    assert intake.source == "gradescope"
    [group] = intake.submissions
    assert [(name, sid) for name, sid, _ in group.members] == [("Jane Doe", "12345"), ("Bob Smith", "23456")]
    assert (group.submitted_at, group.late, group.path.name) == ("2024-01-31T17:00:00+00:00", None, "submission_100001")
    assert [(u.upload_id, u.taken, u.submitted_at) for u in group.uploads] == [
        ("100001", True, "2024-01-31T17:00:00+00:00"),
        ("100000", False, "2024-01-30T09:00:00+00:00"),
    ]


def test_docs_example_classroom_clone(tmp_path):
    """The docs' GitHub Classroom clone: octocat's repository graded, its last commit's id and time recorded?"""
    download, names = EXAMPLES["classroom"]
    assert names == ["mha-submissions/mha-octocat/"]
    root = tmp_path / "export"
    commit = git_repository(root / names[0], {"mha.ipynb": NOTEBOOK}, "2024-01-31T12:00:00+01:00")
    intake = read_intake(root, tmp_path / "scratch")
    assert intake.source == "classroom"
    [octocat] = intake.submissions
    assert (octocat.name, octocat.student_id, octocat.submitted_at) == (
        "octocat",
        "octocat",
        "2024-01-31T12:00:00+01:00",
    )
    assert [(u.upload_id, u.taken) for u in octocat.uploads] == [(commit, True)] and octocat.late is None


@pytest.mark.parametrize("which", [0, 1], ids=["a folder", "a file"])
def test_docs_example_folders(tmp_path, which):
    """The docs' plain folder, either way it lists: jane, her folder or her notebook graded, nothing else said?"""
    example, names = EXAMPLES["folders"]
    assert names == ["jane/mha.ipynb", "jane.ipynb"] and " or " in example
    intake = read_intake(build(tmp_path, {names[which]: NOTEBOOK}, as_zip=False), tmp_path / "scratch")
    assert intake.source == "folders"
    [jane] = by_key(intake).values()
    assert (jane.name, jane.path.name, jane.late, jane.submitted_at) == ("jane", names[which].split("/")[0], None, "")
