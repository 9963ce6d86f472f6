"""read_intake, the intake's face: an export (a folder or a zip) in, one submission per student out, each with a safe
key and a path to grade, everything else listed in skipped with the reason. Each LMS's naming is tested in its
reader's file (test_canvas.py, ...); here, what read_intake itself decides for every export."""

from __future__ import annotations

import os

import pytest

from autograder.deliver.intake import IntakeError, read_intake
from autograder.public import trees

from .exports import NOTEBOOK, assert_safe_keys, build, by_key, why


def test_folders_with_hostile_names_links_and_output_names(tmp_path):
    """Hostile names, links and the names of grade-all's own files: is every key safe and unique, every entry printable?"""
    root = tmp_path / "class"
    (root / "alice").mkdir(parents=True)
    (root / "alice" / "mha.ipynb").write_bytes(NOTEBOOK)
    os.symlink("/etc/passwd", root / "alice" / "passwd")
    os.symlink(root / "alice", root / "mallory")
    (root / "summary.csv").mkdir()
    (root / "summary.csv" / "mha.ipynb").write_bytes(NOTEBOOK)
    (root / "report.py").write_bytes(b"")
    (root / "bob.ipynb").write_bytes(NOTEBOOK)
    (root / "bob.py").write_bytes(b"")
    (root / "Jane $(rm -rf ~); Doe`id`.ipynb").write_bytes(NOTEBOOK)
    (root / "Zo\u00eb.ipynb").write_bytes(NOTEBOOK)
    (root / "zoe.ipynb").write_bytes(NOTEBOOK)
    (root / "-rf.ipynb").write_bytes(NOTEBOOK)
    (root / ".hidden.ipynb").write_bytes(NOTEBOOK)
    (root / "evil\x1b[2J.txt").write_bytes(b"")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.ipynb"), "wb") as handle:
        handle.write(NOTEBOOK)
    intake = read_intake(root, tmp_path / "scratch")
    assert intake.source == "folders"
    assert_safe_keys(intake)
    names = {s.name: s for s in intake.submissions}
    assert set(names) == {
        "alice",
        "summary.csv",
        "report",
        "bob",
        "Jane $(rm -rf ~); Doe`id`",
        "Zo\u00eb",
        "zoe",
        "-rf",
        "caf\\xe9",
    }
    assert names["summary.csv"].key == "student-summary.csv" and names["report"].key == "student-report"
    assert names["caf\\xe9"].key == "caf" and names["-rf"].key == "rf"
    assert {names["Zo\u00eb"].key, names["zoe"].key} == {"zoe", "Zoe-2"}
    assert names["Jane $(rm -rf ~); Doe`id`"].key == "Jane_rm_-rf_Doe_id"
    alice = names["alice"]
    assert alice.path.is_relative_to(tmp_path / "scratch") and [p.name for p in alice.path.iterdir()] == ["mha.ipynb"]
    assert "symbolic link" in why(intake, "alice/passwd") and "symbolic link" in why(intake, "mallory")
    assert names["bob"].path.name == "bob.ipynb" and "second entry" in why(intake, "bob.py")
    assert "hidden" in why(intake, ".hidden.ipynb")
    assert why(intake, "evil\\x1b[2J.txt")  # the escape sequence is printed, never obeyed
    for entry, reason in intake.skipped:
        assert entry.isprintable() and reason.isprintable()


def test_not_a_zip_is_refused(tmp_path):
    """Is a file that is no zip refused, saying what the intake takes?"""
    (tmp_path / "export.zip").write_bytes(b"not a zip")
    with pytest.raises(IntakeError, match="neither a folder nor a .zip"):
        read_intake(tmp_path / "export.zip", tmp_path / "scratch")


def test_a_missing_export_is_refused_saying_what_to_give(tmp_path):
    """Is a path that does not exist refused before anything is written, saying what to give?"""
    with pytest.raises(
        IntakeError, match=r"absent\.zip does not exist; give the folder or the \.zip your LMS exported"
    ):
        read_intake(tmp_path / "absent.zip", tmp_path / "scratch")
    assert not (tmp_path / "scratch").exists()


def test_suffixes_are_taken_with_or_without_the_dot_in_any_case(tmp_path):
    """Are suffixes given as 'PY' or '.Ipynb' read as .py and .ipynb?"""
    root = build(tmp_path, {"ann.py": b"", "bob.ipynb": NOTEBOOK, "cy.txt": b""}, as_zip=False)
    intake = read_intake(root, tmp_path / "scratch", suffixes=("PY", ".Ipynb"))
    assert [s.path.name for s in intake.submissions] == ["ann.py", "bob.ipynb"]


def test_submissions_come_in_name_order_with_unique_keys(tmp_path):
    """Are submissions ordered by name ignoring case and accents' form, and two students of one key told apart?"""
    root = build(
        tmp_path,
        {"bob.py": b"", "Zoe\u0301.py": b"", "ann.py": b"", "zo\u00e9.py": b"", "Ann.ipynb": b""},
        as_zip=False,
    )
    intake = read_intake(root, tmp_path / "scratch")
    assert [(s.name, s.key) for s in intake.submissions] == [
        ("Ann", "Ann"),
        ("ann", "ann-2"),
        ("bob", "bob"),
        ("Zo\u00e9", "Zoe"),
        ("zo\u00e9", "zoe-2"),
    ]


def test_what_is_graded_in_place_and_what_is_copied(tmp_path):
    """Is a lone file or a clean folder graded in place, and a folder holding a link graded from a copy without it?"""
    root = build(tmp_path, {"ann.py": b"", "bob/mha.py": b"", "cy/mha.py": b"CY"}, as_zip=False)
    os.symlink("/etc/passwd", root / "cy" / "passwd")
    scratch = tmp_path / "scratch"
    subs = by_key(read_intake(root, scratch))
    assert (subs["ann"].path, subs["bob"].path) == (root / "ann.py", root / "bob")
    assert subs["cy"].path == scratch / "students" / "cy"
    assert [(p.name, p.read_bytes()) for p in subs["cy"].path.iterdir()] == [("mha.py", b"CY")]


def test_a_folder_nested_too_deep_refuses_that_student_only(tmp_path):
    """Is a student whose folder nests deeper than the kit reads refused with the reason, her classmates read?"""
    deep = "/".join(["d"] * (trees.MAX_DEPTH + 1))
    root = build(tmp_path, {"ann/mha.py": b"", f"bob/{deep}/mha.py": b""}, as_zip=False)
    subs = by_key(read_intake(root, tmp_path / "scratch"))
    assert subs["ann"].refused == "" and subs["ann"].path == root / "ann"
    assert f"nested more than {trees.MAX_DEPTH} levels deep" in subs["bob"].refused
    assert subs["bob"].path == root / "bob"


def test_printed_fields_are_escaped(tmp_path):
    """Are the name and id an LMS gives escaped for printing in the submission, the key still safe?"""
    root = build(tmp_path, {"evil\x1b[2J/mha.py": b""}, as_zip=False)
    [evil] = read_intake(root, tmp_path / "scratch").submissions
    assert (evil.name, evil.key) == ("evil\\x1b[2J", "evil_2J")
