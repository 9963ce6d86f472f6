"""A zip unpacked member by member into the intake's scratch folder, refusing whatever could escape or explode."""

from __future__ import annotations

import stat
import zipfile

import pytest

from autograder.deliver.intake import IntakeError, read_intake, unzip

from .exports import NOTEBOOK, build, skipped_why, why
from .test_canvas import CANVAS


def test_zip_members_that_escape_or_link_are_refused(tmp_path):
    """Are members with '..', absolute paths or link modes refused, nothing written outside scratch, no link created?"""
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
    """Is a zip that unpacks to more than the cap, or holds more members than it, refused by name?"""
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
    """Are member names written without the UTF-8 flag read as UTF-8 where they are, else as code page 437?"""
    archive = tmp_path / "names.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("cafX.ipynb", NOTEBOOK)  # patched below to cp437 bytes
        zf.writestr("ZoXY.ipynb", NOTEBOOK)  # patched below to UTF-8 bytes without the flag
    data = archive.read_bytes().replace(b"cafX", b"caf\x82").replace(b"ZoXY", b"Zo\xc3\xab")
    archive.write_bytes(data)
    intake = read_intake(archive, tmp_path / "scratch")
    assert sorted(s.name for s in intake.submissions) == ["Zo\u00eb", "caf\u00e9"]


def test_a_foreign_scratch_is_refused_and_left_alone(tmp_path):
    """Is a scratch folder holding files the intake did not write refused, and nothing in it touched?"""
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("mine")
    with pytest.raises(IntakeError, match="not empty"):
        read_intake(build(tmp_path, CANVAS, as_zip=False), busy)
    assert (busy / "thesis.tex").exists()


def test_a_second_run_clears_its_own_scratch(tmp_path):
    """Does a second run over the same scratch clear what the first wrote and give the same submissions?"""
    export = build(tmp_path, CANVAS, as_zip=True)
    first = read_intake(export, tmp_path / "scratch")
    second = read_intake(export, tmp_path / "scratch")
    assert [s.key for s in first.submissions] == [s.key for s in second.submissions]


def info(name: str, *, flags: int = 0) -> zipfile.ZipInfo:
    member = zipfile.ZipInfo(name)
    member.flag_bits = flags
    return member


def test_member_name_decodes_as_the_writer_meant():
    """Is a name read as UTF-8 where flagged or where its bytes are UTF-8, and as code page 437 otherwise?"""
    as_cp437 = "Zo\u00eb".encode().decode("cp437")  # how zipfile shows UTF-8 bytes written without the flag
    assert unzip.member_name(info(as_cp437)) == "Zo\u00eb"
    assert unzip.member_name(info("caf\u00e9", flags=0x800)) == "caf\u00e9"
    assert unzip.member_name(info(as_cp437, flags=0x800)) == as_cp437  # flagged: taken as it is
    assert unzip.member_name(info(b"caf\x82".decode("cp437"))) == "caf\u00e9"  # not UTF-8: code page 437's é


@pytest.mark.parametrize(
    "name, mode, refusal",
    [
        ("/etc/x.py", 0, "an absolute path in the zip: not unpacked"),
        ("\\x.py", 0, "an absolute path in the zip: not unpacked"),
        ("C:x.py", 0, "an absolute path in the zip: not unpacked"),
        ("a/../../x.py", 0, "a path climbing out of the zip's folder ('..'): not unpacked"),
        ("a\x00.py", 0, "a name holding a NUL character: not unpacked"),
        ("a.py", stat.S_IFLNK | 0o777, "a symbolic link in the zip: never created"),
        ("a.py", stat.S_IFIFO | 0o644, "not a regular file (a device, pipe or socket): not unpacked"),
        ("a.py", stat.S_IFCHR | 0o644, "not a regular file (a device, pipe or socket): not unpacked"),
        ("a..py", 0, ""),  # dots in a name are no '..' part
        ("a/b.py", stat.S_IFREG | 0o644, ""),
        ("a/", stat.S_IFDIR | 0o755, ""),
    ],
)
def test_refusal_names_why_a_member_is_never_unpacked(name, mode, refusal):
    """Is each member that could escape the folder, or be no plain file, refused with its reason, and no other?"""
    parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".")]
    assert unzip._refusal(name, parts, mode) == refusal


def test_prepare_scratch_refuses_a_file_a_link_and_an_export_inside(tmp_path):
    """Is scratch refused where it is a file, a link, or holds the export it would clear, each saying what to give?"""
    (tmp_path / "file").write_text("")
    with pytest.raises(IntakeError, match=r"is not a folder; give an empty folder"):
        unzip.prepare_scratch(tmp_path / "file", tmp_path / "export.zip")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(IntakeError, match=r"is not a folder"):
        unzip.prepare_scratch(tmp_path / "link", tmp_path / "export.zip")
    scratch = tmp_path / "scratch"
    unzip.prepare_scratch(scratch, tmp_path / "export.zip")
    (scratch / "unzipped" / "export").mkdir(parents=True)
    with pytest.raises(IntakeError, match=r"lies in .*unzipped, which the intake clears; move it out of scratch"):
        unzip.prepare_scratch(scratch, scratch / "unzipped" / "export")
    assert (scratch / "unzipped" / "export").is_dir()


def test_prepare_scratch_clears_what_it_made_and_only_that(tmp_path):
    """On a second run, are the unpacked zip and assembled folders removed, and anything else in scratch kept?"""
    scratch = tmp_path / "scratch"
    unzip.prepare_scratch(scratch, tmp_path / "export")
    assert (scratch / unzip.SCRATCH_MARK).is_file()
    for made in ("unzipped/a.py", "students/ann/mha.ipynb", "notes.txt"):
        (scratch / made).parent.mkdir(parents=True, exist_ok=True)
        (scratch / made).write_text("")
    unzip.prepare_scratch(scratch, tmp_path / "export")
    assert sorted(p.name for p in scratch.iterdir()) == [unzip.SCRATCH_MARK, "notes.txt"]


def test_unpack_refuses_a_file_that_is_no_zip(tmp_path):
    """Is a damaged zip refused with the reason and what to do, nothing unpacked?"""
    (tmp_path / "broken.zip").write_bytes(b"PK\x05\x06" + b"\0" * 10)
    with pytest.raises(IntakeError, match=r"broken\.zip is not a readable zip \(.*\); download it again"):
        unzip.unpack(tmp_path / "broken.zip", tmp_path / "out", [])
    assert not (tmp_path / "out").exists()


def packed(tmp_path, write) -> tuple[list[tuple[str, str]], object]:
    """Unpack the zip write(zf) fills; (skipped, the folder it unpacked to)."""
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        write(zf)
    skipped: list[tuple[str, str]] = []
    return skipped, unzip.unpack(archive, tmp_path / "out", skipped)


def test_unpack_keeps_the_first_of_two_members_of_one_name(tmp_path):
    """Two members of one name: is the first kept and the second noted, never written over it?"""

    def write(zf):
        zf.writestr("ann/mha.py", b"first")
        with pytest.warns(UserWarning, match="Duplicate name"):
            zf.writestr("ann/mha.py", b"second")

    skipped, out = packed(tmp_path, write)
    assert (out / "ann" / "mha.py").read_bytes() == b"first"
    assert skipped == [("ann/mha.py", "a second member with the same name: the first one was kept")]


def test_unpack_never_writes_through_a_file_taken_for_a_folder(tmp_path):
    """A member under a folder the zip also holds as a file: is it left out, the file kept?"""

    def write(zf):
        zf.writestr("ann", b"a file")
        zf.writestr("ann/mha.py", b"")

    skipped, out = packed(tmp_path, write)
    assert (out / "ann").read_bytes() == b"a file"
    assert skipped == [("ann/mha.py", "its folder is a file of the same name in the zip: not unpacked")]


def test_unpack_notes_macos_forks_once_and_makes_empty_folders(tmp_path):
    """Is __MACOSX/ noted once however many members it has, and a folder member made even when empty?"""

    def write(zf):
        zf.writestr("__MACOSX/ann/._mha.py", b"")
        zf.writestr("__MACOSX/bob/._mha.py", b"")
        zf.writestr("empty/", b"")

    skipped, out = packed(tmp_path, write)
    assert skipped == [("__MACOSX/", "macOS resource forks added by Archive Utility")]
    assert [p.name for p in out.iterdir()] == ["empty"] and (out / "empty").is_dir()


def test_unpack_a_corrupt_member_is_skipped_and_removed(tmp_path):
    """A member whose data fails its checksum: is it left out with the reason, its partial file removed, the rest kept?"""
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ann/mha.py", b"GOOD DATA")
        zf.writestr("bob/mha.py", b"BOB'S DATA")
    archive.write_bytes(archive.read_bytes().replace(b"BOB'S DATA", b"EVE'S DATA"))
    skipped: list[tuple[str, str]] = []
    out = unzip.unpack(archive, tmp_path / "out", skipped)
    assert (out / "ann" / "mha.py").read_bytes() == b"GOOD DATA" and not (out / "bob" / "mha.py").exists()
    assert skipped_why(skipped, "bob/mha.py") == "could not be unpacked (Bad CRC-32 for file 'bob/mha.py')"
