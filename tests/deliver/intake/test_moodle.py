"""Moodle's Download all submissions: one student per participant id, their folder graded in place or their parts assembled."""

from __future__ import annotations

import pytest

from autograder.deliver.intake import Upload, moodle, read_intake
from autograder.deliver.intake.reader import Reader
from autograder.public import trees

from .exports import NOTEBOOK, assert_safe_keys, build, by_key, skipped_why, why

MOODLE_FOLDERS = {
    "Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK,
    "Jane Doe_1234567_assignsubmission_file_/utils.py": b"HELP = 1\n",
    "Jane Doe_1234567_assignsubmission_onlinetext_/onlinetext.html": b"<p>done</p>",
    "Zo\u00eb \u00dcnal_2345678_assignsubmission_file_/mha.ipynb": NOTEBOOK,
    "Bob Smith_3456789_assignsubmission_file_/sub/mha.ipynb": NOTEBOOK,
    "__MACOSX/Bob Smith_3456789_assignsubmission_file_/._mha.ipynb": b"\0",
}


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_moodle_folders_one_student_per_participant(tmp_path, as_zip):
    """Is each participant id one student, their file and online-text folders together, a clean folder graded in place?"""
    intake = read_intake(build(tmp_path, MOODLE_FOLDERS, as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "moodle"
    subs = by_key(intake)
    assert set(subs) == {"Jane_Doe-1234567", "Zoe_Unal-2345678", "Bob_Smith-3456789"}
    jane = subs["Jane_Doe-1234567"]
    assert (jane.name, jane.student_id) == ("Jane Doe", "1234567")
    files = sorted(p.relative_to(jane.path).as_posix() for p in jane.path.rglob("*") if p.is_file())
    assert files == ["mha.ipynb", "onlinetext/onlinetext.html", "utils.py"]
    bob = subs["Bob_Smith-3456789"]
    assert bob.path.name == "Bob Smith_3456789_assignsubmission_file_"  # one clean folder: graded in place
    assert subs["Zoe_Unal-2345678"].name == "Zo\u00eb \u00dcnal"
    assert "resource forks" in why(intake, "__MACOSX")
    assert_safe_keys(intake)


def test_moodle_without_folders(tmp_path):
    """Without 'Download submissions in folders', are a student's flattened files assembled under their own names?"""
    files = {
        "Jane Doe_1234567_assignsubmission_file_mha.ipynb": NOTEBOOK,
        "Jane Doe_1234567_assignsubmission_file_utils.py": b"",
        "Participant_7654321_assignsubmission_file_mha.ipynb": NOTEBOOK,
    }
    subs = by_key(read_intake(build(tmp_path, files, as_zip=True), tmp_path / "scratch"))
    assert sorted(p.name for p in subs["Jane_Doe-1234567"].path.iterdir()) == ["mha.ipynb", "utils.py"]
    assert subs["Participant-7654321"].student_id == "7654321"


@pytest.mark.parametrize(
    "entry, parts",
    [
        ("Jane Doe_1234567_assignsubmission_file_", ("Jane Doe", "1234567", "file", "")),
        ("Jane Doe_1234567_assignsubmission_file_mha.ipynb", ("Jane Doe", "1234567", "file", "mha.ipynb")),
        ("Team A-Jane Doe_42_assignsubmission_onlinetext_", ("Team A-Jane Doe", "42", "onlinetext", "")),  # a group
        (  # a file name holding Moodle's scheme stays the file's
            "Participant_7654321_assignsubmission_file_x_1_assignsubmission_file_y.py",
            ("Participant", "7654321", "file", "x_1_assignsubmission_file_y.py"),
        ),
    ],
)
def test_moodle_names_split_at_the_first_participant_id(entry, parts):
    """Does Moodle's pattern split an entry into name, participant id, plugin and file at the first id?"""
    match = moodle.MOODLE.match(entry)
    assert match and (match["name"], match["uid"], match["plugin"], match["file"]) == parts


def moodle_drafts(tmp_path, files: dict[str, bytes]):
    root = build(tmp_path, files, as_zip=False)
    skipped: list[tuple[str, str]] = []
    return moodle.read(Reader(root, tmp_path / "scratch", (".ipynb", ".py"), skipped), root), skipped


def test_moodle_a_lone_file_folder_is_graded_in_place(tmp_path):
    """Is a student whose only part is a file folder graded in that folder, nothing copied?"""
    drafts, _ = moodle_drafts(tmp_path, {"Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK})
    [jane] = drafts
    assert (jane.name, jane.student_id, jane.folder.name, jane.files) == (
        "Jane Doe",
        "1234567",
        "Jane Doe_1234567_assignsubmission_file_",
        None,
    )


def test_moodle_parts_are_assembled_under_their_plugins(tmp_path):
    """Are a student's file folder, online text and flattened files gathered, each other plugin in its folder?"""
    drafts, _ = moodle_drafts(
        tmp_path,
        {
            "Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK,
            "Jane Doe_1234567_assignsubmission_onlinetext_/onlinetext.html": b"<p>done</p>",
            "Jane Doe_1234567_assignsubmission_file_utils.py": b"",
        },
    )
    [jane] = drafts
    assert jane.folder is None
    assert sorted(name for _, name in jane.files) == ["mha.ipynb", "onlinetext/onlinetext.html", "utils.py"]


def test_moodle_a_folder_with_a_file_name_and_foreign_entries_are_skipped(tmp_path):
    """Is a folder named like a flattened file, or an entry Moodle did not name, left out with Moodle's scheme?"""
    drafts, skipped = moodle_drafts(
        tmp_path,
        {
            "Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK,
            "Bob_2_assignsubmission_file_mha.ipynb/inner.py": b"",
            "grades.csv": b"",
        },
    )
    assert [d.student_id for d in drafts] == ["1234567"]
    for entry in ("Bob_2_assignsubmission_file_mha.ipynb/", "grades.csv"):
        assert skipped_why(skipped, entry) == (
            "not named like a Moodle submission (Full Name_id_assignsubmission_plugin_)"
        )


def test_moodle_a_part_nested_too_deep_refuses_that_student_only(tmp_path):
    """Is a student whose part nests folders too deep refused with the reason, a classmate read?"""
    deep = "/".join(["d"] * (trees.MAX_DEPTH + 1))
    drafts, _ = moodle_drafts(
        tmp_path,
        {
            f"Jane Doe_1_assignsubmission_file_/{deep}/mha.ipynb": NOTEBOOK,
            "Jane Doe_1_assignsubmission_onlinetext_/onlinetext.html": b"",
            "Bob Li_2_assignsubmission_file_/mha.ipynb": NOTEBOOK,
        },
    )
    jane, bob = sorted(drafts, key=lambda d: d.student_id)
    assert f"nested more than {trees.MAX_DEPTH} levels deep" in jane.refused
    assert [name for _, name in jane.files] == ["onlinetext/onlinetext.html"]
    assert bob.refused == "" and bob.folder is not None


def test_moodle_a_participant_under_two_names_is_listed_saying_why_with_no_file(tmp_path):
    """A hand-edited export gives participant 1234567 two names: is that participant one submission, given neither
    folder, saying why, both folders skipped, and lateness left unknown (Moodle's download does not say it)?"""
    files = {
        "Jane Doe_1234567_assignsubmission_file_/mha.ipynb": NOTEBOOK,
        "Eve Doe_1234567_assignsubmission_file_/mha.ipynb": b"EVE",
        "Bob Smith_3456789_assignsubmission_file_/mha.ipynb": NOTEBOOK,
    }
    intake = read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch")
    subs = {s.student_id: s for s in intake.submissions}
    reason = (
        "Moodle participant id 1234567 appears with 2 names in this export ('Eve Doe', 'Jane Doe'): "
        "graded for no one; check it by hand"
    )
    assert (subs["1234567"].undecided, subs["1234567"].name, list(subs["1234567"].path.iterdir())) == (
        reason,
        "Eve Doe",
        [],
    )
    assert why(intake, "Jane Doe_1234567") == why(intake, "Eve Doe_1234567") == reason
    bob = subs["3456789"]
    assert (bob.undecided, bob.late, bob.submitted_at) == ("", None, "")
    assert bob.uploads == (Upload("Bob Smith_3456789_assignsubmission_file_/", True),)
