"""The class intake reads each LMS's export, as a folder and as a zip, and refuses what could hurt."""

from __future__ import annotations

import os
import stat
import zipfile

import pytest

from autograder.deliver.intake import IntakeError, read_intake, unzip

from .exports import NOTEBOOK, assert_safe_keys, build, why
from .test_canvas import CANVAS

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


# ------------------------------------------------------------------ zip safety


def test_zip_members_that_escape_or_link_are_refused(tmp_path):
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("alice/mha.ipynb", NOTEBOOK)
        zf.writestr("../evil.py", b"boom")
        zf.writestr("alice/../../evil2.py", b"boom")
        zf.writestr("/etc/evil3.py", b"boom")
        link = zipfile.ZipInfo("bob/mha.ipynb")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("bob/mha.py", b"")
        zf.writestr("carol\\mha.ipynb", NOTEBOOK)  # written on Windows
        zf.writestr("..\\evil4.py", b"boom")
    scratch = tmp_path / "scratch"
    intake = read_intake(archive, scratch)
    assert "'..'" in why(intake, "../evil.py") and "'..'" in why(intake, "alice/../../evil2.py")
    assert "absolute" in why(intake, "/etc/evil3.py") and "'..'" in why(intake, "evil4.py")
    assert "symbolic link" in why(intake, "bob/mha.ipynb")
    assert not (tmp_path / "evil.py").exists() and not (scratch / "evil.py").exists()
    assert not any(p.is_symlink() for p in scratch.rglob("*"))
    assert sorted(s.key for s in intake.submissions) == ["alice", "bob", "carol"]


def test_zip_bomb_and_member_count_are_capped(tmp_path, monkeypatch):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("alice/mha.ipynb", b"\0" * 2_000_000)  # a few KiB packed
    monkeypatch.setattr(unzip, "MAX_TOTAL_BYTES", 1_000_000)
    with pytest.raises(IntakeError, match="unpacks to more than"):
        read_intake(archive, tmp_path / "scratch")
    many = build(tmp_path, {f"s{i}.py": b"" for i in range(5)}, as_zip=True, name="many")
    monkeypatch.setattr(unzip, "MAX_MEMBERS", 4)
    with pytest.raises(IntakeError, match="holds 5 members"):
        read_intake(many, tmp_path / "scratch")


def test_zip_names_without_the_utf8_flag_are_decoded(tmp_path):
    archive = tmp_path / "names.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("cafX.ipynb", NOTEBOOK)  # patched below to cp437 bytes
        zf.writestr("ZoXY.ipynb", NOTEBOOK)  # patched below to UTF-8 bytes without the flag
    data = archive.read_bytes().replace(b"cafX", b"caf\x82").replace(b"ZoXY", b"Zo\xc3\xab")
    archive.write_bytes(data)
    intake = read_intake(archive, tmp_path / "scratch")
    assert sorted(s.name for s in intake.submissions) == ["Zo\u00eb", "caf\u00e9"]


def test_not_a_zip_and_a_foreign_scratch_are_refused(tmp_path):
    (tmp_path / "export.zip").write_bytes(b"not a zip")
    with pytest.raises(IntakeError, match="neither a folder nor a .zip"):
        read_intake(tmp_path / "export.zip", tmp_path / "scratch")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("mine")
    with pytest.raises(IntakeError, match="not empty"):
        read_intake(build(tmp_path, CANVAS, as_zip=False), busy)
    assert (busy / "thesis.tex").exists()


def test_a_second_run_clears_its_own_scratch(tmp_path):
    export = build(tmp_path, CANVAS, as_zip=True)
    first = read_intake(export, tmp_path / "scratch")
    second = read_intake(export, tmp_path / "scratch")
    assert [s.key for s in first.submissions] == [s.key for s in second.submissions]
