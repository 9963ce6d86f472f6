"""The class intake reads each LMS's export, as a folder and as a zip, and refuses what could hurt."""

from __future__ import annotations

import os

import pytest

from autograder.deliver.intake import IntakeError, read_intake

from .exports import NOTEBOOK, assert_safe_keys, why

# ------------------------------------------------------------------ plain folders, weird names, links


def test_folders_with_hostile_names_links_and_output_names(tmp_path):
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
