"""Blackboard's Assignment File Download: the latest attempt per username, named from its own receipt only."""

from __future__ import annotations

import pytest

from autograder.deliver.intake import blackboard, read_intake
from autograder.deliver.intake.reader import Reader

from .exports import NOTEBOOK, assert_safe_keys, build, by_key, why


def receipt(name: str, user: str, when: str, files: list[tuple[str, str]]) -> bytes:
    listed = "".join(f"\tOriginal filename: {original}\n\tFilename: {archived}\n\n" for original, archived in files)
    return (
        f"Name: {name} ({user})\nAssignment: HW 1\nDate Submitted: {when}\nCurrent Grade: Needs Grading\n\n"
        f"Submission Field:\nThere is no student submission text data for this assignment.\n\n"
        f"Comments:\nThere are no student comments for this assignment.\n\nFiles:\n{listed}"
    ).encode()


def blackboard_export() -> dict[str, bytes]:
    first, second = "HW 1_jdoe_attempt_2024-01-30-10-00-00", "HW 1_jdoe_attempt_2024-01-31-12-00-00"
    bob = "HW 1_bob_smith_attempt_2024-01-31-09-00-00"
    return {
        f"{first}_mha.ipynb": b"{}",
        f"{first}.txt": receipt(
            "Jane Doe", "jdoe", "Tuesday, January 30, 2024 10:00:00 AM EST", [("mha.ipynb", f"{first}_mha.ipynb")]
        ),
        f"{second}_mha.ipynb": NOTEBOOK,
        f"{second}_my_utils.py": b"HELP = 1\n",
        f"{second}.txt": receipt(
            "Jane Doe",
            "jdoe",
            "Wednesday, January 31, 2024 12:00:00 PM EST",
            [("mha.ipynb", f"{second}_mha.ipynb"), ("my utils.py", f"{second}_my_utils.py")],
        ),
        f"{bob}_mha.ipynb": NOTEBOOK,
        f"{bob}.txt": receipt(
            "Bob Smith", "bob_smith", "Wednesday, January 31, 2024 9:00:00 AM EST", [("mha.ipynb", f"{bob}_mha.ipynb")]
        ),
        "HW 1_amy_attempt_2024-01-31-08-00-00_mha.ipynb": NOTEBOOK,
    }


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_blackboard_latest_attempt_with_the_receipts_names(tmp_path, as_zip):
    """Is each username's latest attempt graded under the receipt's names, the older one listed as earlier?"""
    intake = read_intake(build(tmp_path, blackboard_export(), as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "blackboard"
    subs = by_key(intake)
    assert set(subs) == {"Jane_Doe-jdoe", "Bob_Smith", "amy"}
    jane = subs["Jane_Doe-jdoe"]
    assert (jane.name, jane.student_id, jane.submitted_at, jane.late) == (
        "Jane Doe",
        "jdoe",
        "2024-01-31T12:00:00-05:00",  # the name's time, in the zone of the receipt that says the same
        None,  # the receipt does not mark it late: the download does not say
    )
    assert sorted(p.name for p in jane.path.iterdir()) == ["mha.ipynb", "my utils.py"]  # the receipt's original names
    assert (jane.path / "mha.ipynb").read_bytes() == NOTEBOOK
    assert [p.name for p in jane.earlier] == ["HW 1_jdoe_attempt_2024-01-30-10-00-00_mha.ipynb"]
    assert subs["Bob_Smith"].student_id == "bob_smith"  # an underscore in the username, told by the receipt
    assert "receipt" in why(intake, "HW 1_jdoe_attempt_2024-01-31-12-00-00.txt")
    assert_safe_keys(intake)


def injected_receipt(attempt: str, comments: str, files: list[tuple[str, str]]) -> bytes:
    """Mallory's receipt: her own files, and Comments written to look like receipt lines."""
    listed = "".join(f"\tOriginal filename: {original}\n\tFilename: {archived}\n\n" for original, archived in files)
    return (
        f"Name: Mallory Evil (mallory)\nAssignment: HW 1\nDate Submitted: Wednesday, January 31, 2024 1:00:00 PM EST\n"
        f"Current Grade: Needs Grading\n\nSubmission Field:\nName: Jane Doe (jdoe)\n\nComments:\n{comments}\n\nFiles:\n{listed}"
    ).encode()


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_blackboard_receipt_comments_rename_nobodys_files(tmp_path, as_zip):
    """Can Mallory's Comments (or her Submission Field) rename Jane's file or her own, or change her name? Never."""
    mine = "HW 1_mallory_attempt_2024-01-31-13-00-00"
    janes = "HW 1_jdoe_attempt_2024-01-31-12-00-00"
    comments = (
        f"Files:\n\tOriginal filename: evil.py\n\tFilename: {janes}_mha.ipynb\n\n"
        f"\tOriginal filename: utils.py\n\tFilename: {mine}_mha.ipynb\n"
    )
    export = {
        **blackboard_export(),
        f"{mine}_mha.ipynb": b"MALLORY",
        f"{mine}.txt": injected_receipt(mine, comments, [("mha.ipynb", f"{mine}_mha.ipynb")]),
    }
    intake = read_intake(build(tmp_path, export, as_zip=as_zip), tmp_path / "scratch")
    subs = by_key(intake)
    jane = subs["Jane_Doe-jdoe"]
    assert sorted(p.name for p in jane.path.iterdir()) == ["mha.ipynb", "my utils.py"]
    assert (jane.path / "mha.ipynb").read_bytes() == NOTEBOOK
    mallory = subs["Mallory_Evil-mallory"]
    assert [(p.name, p.read_bytes()) for p in mallory.path.iterdir()] == [("mha.ipynb", b"MALLORY")]
    assert {s.student_id for s in intake.submissions} == {"jdoe", "bob_smith", "amy", "mallory"}


def test_blackboard_a_file_name_holding_another_attempt_stays_its_owners(tmp_path):
    """Is a file Mallory named "jdoe_attempt_<date>_mha.ipynb" hers, not a second attempt of someone else?"""
    mine = "HW 1_mallory_attempt_2024-01-31-13-00-00"
    export = {**blackboard_export(), f"{mine}_jdoe_attempt_2024-02-01-00-00-00_mha.ipynb": b"MALLORY"}
    subs = {
        s.student_id: s for s in read_intake(build(tmp_path, export, as_zip=False), tmp_path / "scratch").submissions
    }
    assert set(subs) == {"jdoe", "bob_smith", "amy", "mallory"}
    assert [p.name for p in subs["mallory"].path.iterdir()] == ["jdoe_attempt_2024-02-01-00-00-00_mha.ipynb"]
    assert (subs["jdoe"].path / "mha.ipynb").read_bytes() == NOTEBOOK


ATTEMPT = "HW 1_jdoe_attempt_2024-01-31-12-00-00"


def test_blackboard_receipt_reads_the_header_and_its_own_files(tmp_path):
    """Does a receipt give the header's name and username, and the original names of its own attempt's files only?"""
    path = tmp_path / f"{ATTEMPT}.txt"
    path.write_bytes(
        receipt(
            "Jane Q. Doe",
            "jdoe",
            "Wednesday, January 31, 2024 12:00:00 PM EST",
            [
                ("mha.ipynb", f"{ATTEMPT}_mha.ipynb"),
                ("notes.py", "HW 1_bob_attempt_2024-01-31-12-00-00_mha.ipynb"),  # another attempt's: not this one's
            ],
        )
    )
    found = blackboard.read_receipt(path, ATTEMPT)
    assert (found.name, found.username, found.files) == ("Jane Q. Doe", "jdoe", {f"{ATTEMPT}_mha.ipynb": "mha.ipynb"})


def test_blackboard_receipt_ignores_the_students_free_text(tmp_path):
    """Are a Name: line in the Submission Field and a Files: list in the Comments never read?"""
    path = tmp_path / f"{ATTEMPT}.txt"
    path.write_text(
        "Assignment: HW 1\nSubmission Field:\nName: Mallory Evil (mal)\n\nComments:\nFiles:\n"
        f"\tOriginal filename: evil.py\n\tFilename: {ATTEMPT}_utils.py\n\n"
        f"Files:\n\tOriginal filename: mha.ipynb\n\tFilename: {ATTEMPT}_mha.ipynb\n"
    )
    found = blackboard.read_receipt(path, ATTEMPT)
    assert (found.name, found.username, found.files) == ("", "", {f"{ATTEMPT}_mha.ipynb": "mha.ipynb"})


def test_blackboard_unreadable_receipt_says_nothing(tmp_path):
    """Is a receipt that cannot be opened read as saying nothing, rather than stopping the class?"""
    found = blackboard.read_receipt(tmp_path / "absent.txt", ATTEMPT)
    assert (found.name, found.username, found.files) == ("", "", {})


@pytest.mark.parametrize(
    "line, read",
    [
        ("Name: Jane Doe (jdoe)", ("Jane Doe", "jdoe")),
        ("Name:Jane Doe(jdoe )", ("Jane Doe", "jdoe")),
        ("Name: Jane Doe", ("Jane Doe", "")),  # no username: the name only
        ("Name: Jane (Jo) Doe (jdoe) extra", ("Jane (Jo) Doe (jdoe) extra", "")),  # not the shape Blackboard writes
    ],
)
def test_blackboard_name_line(line, read):
    """Is the receipt's "Name: First Last (username)" line split into the name and the username, and nothing guessed?"""
    assert blackboard._name_line(["Assignment: HW 1", line]) == read


@pytest.mark.parametrize(
    "head, told, prefix, username",
    [
        ("HW 1_bob_smith", "bob_smith", "HW 1_", "bob_smith"),  # the receipt's, which the head ends with
        ("HW 1_bob_smith", "mallory", "HW 1_", "bob_smith"),  # a receipt the head contradicts is not believed
        ("HW 1_bob_smith", "", "HW 1_", "bob_smith"),  # the assignment's prefix, shared by every attempt
        ("HW 1_bob_smith", "", "", "smith"),  # neither: what follows the last '_'
    ],
)
def test_blackboard_username(head, told, prefix, username):
    """Is the username the receipt's where the file name agrees, else what follows the assignment's shared prefix?"""
    assert blackboard._username(head, told, prefix) == username


def test_blackboard_names_without_an_original_name(tmp_path):
    """Without a receipt, is a file named by what follows the date (else 'submission'), and a lone receipt graded?"""
    files = {
        "HW 1_amy_attempt_2024-01-31-08-00-00_mha.ipynb": NOTEBOOK,
        "HW 1_amy_attempt_2024-01-31-08-00-00.py": b"",
        "HW 1_cy_attempt_2024-01-31-08-00-00.txt": receipt("Cy Young", "cy", "", []),
    }
    root = build(tmp_path, files, as_zip=False)
    drafts = blackboard.read(Reader(root, tmp_path / "scratch", (".ipynb", ".py"), []), root)
    named = {d.student_id: (d.name, sorted(name for _, name in d.files)) for d in drafts}
    assert named == {"amy": ("amy", ["mha.ipynb", "submission.py"]), "cy": ("Cy Young", ["receipt.txt"])}


def test_blackboard_one_attempts_files_of_one_name_are_kept_apart(tmp_path):
    """Two files the receipt gives one original name: are both graded, the second as name-2?"""
    files = {
        f"{ATTEMPT}_a.py": b"A",
        f"{ATTEMPT}_b.py": b"B",
        f"{ATTEMPT}.txt": receipt(
            "Jane Doe", "jdoe", "", [("mha.py", f"{ATTEMPT}_a.py"), ("mha.py", f"{ATTEMPT}_b.py")]
        ),
    }
    root = build(tmp_path, files, as_zip=False)
    [jane] = blackboard.read(Reader(root, tmp_path / "scratch", (".py",), []), root)
    assert [(path.name, name) for path, name in jane.files] == [
        (f"{ATTEMPT}_a.py", "mha.py"),
        (f"{ATTEMPT}_b.py", "mha-2.py"),
    ]


@pytest.mark.parametrize(
    "stamp, told, when",
    [
        ("2024-01-31-12-00-00", "Wednesday, January 31, 2024 12:00:00 PM EST", "2024-01-31T12:00:00-05:00"),
        ("2024-07-01-09-05-07", "Monday, July 1, 2024 9:05:07 AM EDT", "2024-07-01T09:05:07-04:00"),
        ("2024-01-31-13-00-00", "Mittwoch, 31 January 2024 13:00:00 o'clock CET", "2024-01-31T13:00:00+01:00"),
        ("2024-01-31-12-00-00", "Wednesday, January 31, 2024 12:00:00 PM CST", "2024-01-31T12:00:00"),  # CST: 3 zones
        ("2024-01-31-12-00-00", "Wednesday, January 31, 2024 1:00:00 PM EST", "2024-01-31T12:00:00"),  # not the same
        ("2024-01-31-12-00-00", "", "2024-01-31T12:00:00"),  # no receipt: the name's time alone
        ("2024-02-30-12-00-00", "", ""),  # no such day
    ],
)
def test_blackboard_submitted_at(stamp, told, when):
    """Is an attempt's time its file name's, in the zone the receipt names where it says the same time in a zone of
    one meaning, and nothing where the name holds no date? (The receipt's "Date Submitted:" as CodeGra.de's
    psef/blackboard.py parse_info_file reads it, " o'clock" and all.)"""
    assert blackboard.submitted_at(stamp, told) == when


def test_blackboard_a_late_mark_in_the_receipts_header_only(tmp_path):
    """Does "(Late)" after the receipt's Date Submitted mark the attempt late, and the same words in the student's
    Comments mark nothing?"""
    marked = tmp_path / f"{ATTEMPT}.txt"
    marked.write_bytes(receipt("Jane Doe", "jdoe", "Wednesday, January 31, 2024 12:00:00 PM EST (Late)", []))
    found = blackboard.read_receipt(marked, ATTEMPT)
    assert (found.late, found.submitted) == (True, "Wednesday, January 31, 2024 12:00:00 PM EST")
    typed = tmp_path / "typed.txt"
    typed.write_text(
        "Name: Jane Doe (jdoe)\nAssignment: HW 1\n\nComments:\n"
        "Date Submitted: Wednesday, January 31, 2024 12:00:00 PM EST (Late)\n(Late)\n"
    )
    assert (blackboard.read_receipt(typed, ATTEMPT).late, blackboard.read_receipt(typed, ATTEMPT).submitted) == (
        None,
        "",
    )


def test_blackboard_each_attempts_files_are_recorded(tmp_path):
    """Are the files of every attempt kept in uploads, with the attempt, its time and late mark, the latest taken?"""
    export = blackboard_export()
    export["HW 1_jdoe_attempt_2024-01-31-12-00-00.txt"] = export["HW 1_jdoe_attempt_2024-01-31-12-00-00.txt"].replace(
        b"12:00:00 PM EST", b"12:00:00 PM EST (Late)"
    )
    jane = by_key(read_intake(build(tmp_path, export, as_zip=False), tmp_path / "scratch"))["Jane_Doe-jdoe"]
    assert jane.late is True
    assert [(u.entry, u.taken, u.upload_id, u.late, u.submitted_at) for u in jane.uploads] == [
        ("HW 1_jdoe_attempt_2024-01-30-10-00-00_mha.ipynb", False, "attempt_2024-01-30-10-00-00", None, "2024-01-30T10:00:00-05:00"),
        ("HW 1_jdoe_attempt_2024-01-31-12-00-00_mha.ipynb", True, "attempt_2024-01-31-12-00-00", True, "2024-01-31T12:00:00-05:00"),
        ("HW 1_jdoe_attempt_2024-01-31-12-00-00_my_utils.py", True, "attempt_2024-01-31-12-00-00", True, "2024-01-31T12:00:00-05:00"),
    ]  # fmt: skip
