"""read_intake, the intake's face: an export (a folder or a zip) in, one submission per student out, each with a safe
key and a path to grade, everything else listed in skipped with the reason. Each LMS's naming is tested in its
reader's file (test_canvas.py, ...); here, what read_intake itself decides for every export."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from autograder.deliver import intake
from autograder.deliver.intake import IntakeError, canvas, folders, read_intake
from autograder.deliver.intake.model import Draft
from autograder.deliver.intake.reader import Reader
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


CANVAS_FILE = "doejane_12345_678_mha.ipynb"


def reader_of(root) -> Reader:
    return Reader(root, root.parent / "scratch", (".ipynb", ".py"), [])


def test_the_registry_is_each_lms_once_with_what_the_intake_asks_of_it():
    """Is every LMS of the registry a module with its SOURCE, votes(root, entries) and read(reader, root), and
    SOURCES exactly theirs, in order, with plain folders last?"""
    assert intake.SOURCES == tuple(lms.SOURCE for lms in intake.LMSES) + ("folders",)
    for lms in intake.LMSES:
        assert callable(lms.votes) and callable(lms.read), lms.SOURCE


def test_a_new_lms_is_one_module_and_one_line_of_the_registry(tmp_path, monkeypatch):
    """With one more module in the registry (its naming, its reader), is an export in its naming read by it?"""

    def votes(root, entries):
        return sum(e.name.startswith("new-") for e in entries)

    def read(reader, root):
        return [
            Draft(name=e.name.removeprefix("new-"), student_id="", origin=e.name, folder=e)
            for e in reader.entries(root)
        ]

    newcomer = SimpleNamespace(SOURCE="newlms", votes=votes, read=read)
    monkeypatch.setattr(intake, "LMSES", (*intake.LMSES, newcomer))
    export = build(tmp_path, {"new-ann/mha.ipynb": NOTEBOOK, "new-bob/mha.ipynb": NOTEBOOK}, as_zip=False)
    read_back = intake.read_intake(export, tmp_path / "scratch")
    assert read_back.source == "newlms" and [s.name for s in read_back.submissions] == ["ann", "bob"]


@pytest.mark.parametrize(
    "files, source",
    [
        ({"submission_metadata.yml": b"", "notes.txt": b"", "other.txt": b""}, "gradescope"),  # the file alone decides
        ({CANVAS_FILE: b"", "readme.txt": b""}, "canvas"),  # half the entries are enough
        ({CANVAS_FILE: b"", "readme.txt": b"", "notes.txt": b""}, None),  # fewer are not
        ({"Jane Doe_1_assignsubmission_file_/a.py": b"", "x.txt": b""}, "moodle"),
        ({"HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb": b""}, "blackboard"),
        ({"mha-ann/.git/HEAD": b"", "mha-bob/.git/HEAD": b""}, "classroom"),
        ({"ann.ipynb": b"", "bob/mha.py": b""}, None),
        ({CANVAS_FILE: b"", ".DS_Store": b"", "__MACOSX/x": b"", "._x": b""}, "canvas"),  # junk does not vote
    ],
)
def test_detect_follows_the_naming_most_entries_follow(tmp_path, files, source):
    """Is the LMS the one at least half the visible entries are named for, Gradescope wherever its metadata is?"""
    root = build(tmp_path, files, as_zip=False)
    found = intake._detect(reader_of(root), root)
    assert (found.SOURCE if found else None) == source


def test_locate_unwraps_the_folders_an_export_is_wrapped_in(tmp_path):
    """Is an export wrapped in folders (a zip of a folder of a folder) read where its entries are?"""
    root = build(tmp_path, {f"outer/inner/{CANVAS_FILE}": b"", "outer/inner/readme.txt": b""}, as_zip=False)
    assert intake._locate(reader_of(root)) == (root / "outer" / "inner", canvas)


def test_locate_takes_a_folder_of_students_as_plain_folders(tmp_path):
    """Is a folder holding students' folders or gradable files read as plain folders, at the top?"""
    root = build(tmp_path, {"ann/mha.ipynb": b"", "bob.py": b""}, as_zip=False)
    assert intake._locate(reader_of(root)) == (root, folders)


def test_locate_names_at_most_six_entries_it_could_not_read(tmp_path):
    """Is the refusal of an unknown export short: six of its entries, then '...'?"""
    root = build(tmp_path, {f"f{i}.pdf": b"" for i in range(8)}, as_zip=False)
    with pytest.raises(IntakeError) as refused:
        intake._locate(reader_of(root))
    assert f"cannot tell what exported {root}: it holds f0.pdf, f1.pdf, f2.pdf, f3.pdf, f4.pdf, f5.pdf, ...." in str(
        refused.value
    )
