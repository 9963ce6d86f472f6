"""Canvas's Download Submissions zip: each file bound to the one user id its name can mean, the latest version graded."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.deliver.intake import canvas, read_intake
from autograder.deliver.intake.canvas import Reading, readings
from autograder.deliver.intake.reader import Reader

from .exports import NOTEBOOK, assert_safe_keys, build, by_key, files_of, skipped_why, why

CANVAS = {
    "doejane_12345_6789001_mha.ipynb": b'{"old": 1}',
    "doejane_12345_6789002_mha-1.ipynb": NOTEBOOK,
    "doejane_12345_6789003_utils.py": b"HELP = 1\n",
    "smithbob_LATE_23456_6789004_mha.ipynb": NOTEBOOK,
    "m\u00fcllerj\u00fcrgen_34567_6789005_mha.ipynb": NOTEBOOK,
    "o_brienpat_45678_text.html": b"<p>see attached</p>",
    "notes for TAs.txt": b"not a submission",
    ".DS_Store": b"\0",
}


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_canvas_grades_the_latest_upload_with_its_module_and_flags_late(tmp_path, as_zip):
    """Is each user's latest upload graded with the module beside it, under its own name, late flagged, junk skipped?"""
    intake = read_intake(build(tmp_path, CANVAS, as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "canvas"
    subs = by_key(intake)
    assert set(subs) == {"doejane-12345", "smithbob-23456", "mullerjurgen-34567", "o_brienpat-45678"}
    jane = subs["doejane-12345"]
    assert (jane.name, jane.student_id, jane.late, jane.source) == ("doejane", "12345", False, "canvas")
    assert jane.path.is_dir() and sorted(p.name for p in jane.path.iterdir()) == ["mha.ipynb", "utils.py"]
    assert (jane.path / "mha.ipynb").read_bytes() == NOTEBOOK  # mha-1, the re-upload, under its own name
    assert [p.name for p in jane.earlier] == ["doejane_12345_6789001_mha.ipynb"]
    assert subs["smithbob-23456"].late and not subs["mullerjurgen-34567"].late
    assert subs["mullerjurgen-34567"].name == "m\u00fcllerj\u00fcrgen"
    assert [p.name for p in subs["o_brienpat-45678"].path.iterdir()] == ["text.html"]
    assert "Canvas" in why(intake, "notes for TAs.txt")
    assert "Finder" in why(intake, ".DS_Store")
    assert_safe_keys(intake)


def test_canvas_anonymous_grading(tmp_path):
    """With anonymous grading (no names, anon_<id>), is each anonymous student one submission, late flag kept?"""
    files = {
        "LATE_anon_x1Y2z_6789006_mha.ipynb": NOTEBOOK,
        "anon_abcde_6789007_mha.ipynb": NOTEBOOK,
        "anon_abcde_6789008_utils_2.py": b"",
    }
    subs = by_key(read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch"))
    assert set(subs) == {"anon_x1Y2z", "anon_abcde"}
    assert subs["anon_x1Y2z"].late and not subs["anon_abcde"].late
    assert sorted(p.name for p in subs["anon_abcde"].path.iterdir()) == ["mha.ipynb", "utils_2.py"]


def test_canvas_versions_follow_the_attachment_id(tmp_path):
    """Is the newer upload the one with the larger attachment id, whatever its '-N' says?"""
    files = {"doejane_12345_7000002_mha.ipynb": NOTEBOOK, "doejane_12345_7000001_mha-1.ipynb": b"{}"}
    jane = read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch").submissions[0]
    assert (jane.path / "mha.ipynb").read_bytes() == NOTEBOOK
    assert [p.name for p in jane.earlier] == ["doejane_12345_7000001_mha-1.ipynb"]


# Canvas impersonation: Canvas keeps "_<digits>" at the end of a sortable name, and a file
# name may start with "<digits>_", so a name like mallory_12345_999_555_mha.ipynb also reads
# as user 12345's. Alice is user 12345 ("Smith, Alice"), Bob 23456; Mallory is user 999.
HONEST = {
    "smithalice_12345_7001_mha.ipynb": NOTEBOOK,
    "smithalice_12345_7002_utils.py": b"HELP = 1\n",
    "jonesbob_23456_7003_mha.ipynb": NOTEBOOK,
}


def canvas_class(tmp_path, extra: dict[str, bytes], honest=HONEST):
    intake = read_intake(build(tmp_path, {**honest, **extra}, as_zip=False), tmp_path / "scratch")
    return intake, {s.student_id: s for s in intake.submissions}


@pytest.mark.parametrize(
    "mallory, settled",
    [
        ("mallory_12345_999_555_mha.ipynb", True),  # her name is "Mallory_12345"
        ("mallory_12345_LATE_999_555_mha.ipynb", True),  # late, as Alice is not
        ("mallory_999_555_12345_7009_mha.ipynb", False),  # her file is "12345_7009_mha.ipynb": user 999's or 555's
    ],
)
def test_canvas_a_name_or_file_holding_an_id_takes_no_one_elses_place(tmp_path, mallory, settled):
    """Does a file that also reads as Alice's stay out of Alice's submission: Mallory's where only that fits, else no one's?"""
    intake, subs = canvas_class(tmp_path, {mallory: b"MALLORY"})
    assert files_of(subs["12345"]) == ["mha.ipynb", "utils.py"] and files_of(subs["23456"]) == ["mha.ipynb"]
    assert (subs["12345"].path / "mha.ipynb").read_bytes() == NOTEBOOK and subs["12345"].name == "smithalice"
    if settled:
        assert set(subs) == {"12345", "23456", "999"} and subs["999"].name == "mallory_12345"
        assert [p.read_bytes() for p in subs["999"].path.iterdir()] == [b"MALLORY"]
    else:  # user 999 or user 555: each is listed, saying why, and given nothing
        assert set(subs) == {"12345", "23456", "999", "555"} and "graded for no one" in why(intake, mallory)
        for uid in ("999", "555"):
            assert files_of(subs[uid]) == [] and subs[uid].undecided == f"{mallory}: {why(intake, mallory)}"
    assert not subs["12345"].undecided and not subs["23456"].undecided
    assert "user 12345" not in " ".join(reason for entry, reason in intake.skipped if entry == mallory)


def test_canvas_a_file_that_reads_as_two_students_goes_to_neither(tmp_path):
    """With nothing in the export to tell the readings apart, is the file skipped with both, and no one's?"""
    name = "smithalice_12345_999_555_mha.ipynb"  # Mallory named herself "smithalice_12345"
    intake, subs = canvas_class(tmp_path, {name: b"MALLORY"})
    assert set(subs) == {"12345", "23456", "999"} and files_of(subs["12345"]) == ["mha.ipynb", "utils.py"]
    reason = why(intake, name)
    assert "user 12345" in reason and "user 999" in reason and "graded for no one" in reason
    assert (subs["999"].undecided, files_of(subs["999"])) == (f"{name}: {reason}", [])  # listed, given nothing
    assert not subs["12345"].undecided  # Alice keeps her grade: no one can take it from her by naming a file
    intake, subs = canvas_class(tmp_path / "absent", {"mallory_12345_999_555_mha.ipynb": b"MALLORY"}, honest={})
    assert set(subs) == {"12345", "999"} and all(files_of(s) == [] and s.undecided for s in subs.values())
    assert "user 12345" in why(intake, "mallory_12345_999_555_mha.ipynb")


def test_canvas_an_honest_file_name_starting_with_digits_is_kept(tmp_path):
    """Is a file name like "1_intro.ipynb" kept with its student where another file of hers settles it?"""
    files = {
        "doejane_12345_7001_1_intro.ipynb": NOTEBOOK,
        "doejane_12345_7002_utils.py": b"",
        "doejane_7001_7005_x.py": b"",
    }
    intake, subs = canvas_class(tmp_path, files, honest={})
    assert files_of(subs["12345"]) == ["1_intro.ipynb", "utils.py"]  # user 7001 is "doejane", not "doejane_12345"
    assert files_of(subs["7001"]) == ["x.py"]


def test_canvas_readings_follow_canvas_naming():
    """Are the readings of a name exactly those Canvas's content_zipper.rb could have written?"""
    assert readings("doejane_12345_678_mha.ipynb", False) == [Reading("doejane", False, "12345", 678, "mha.ipynb")]
    assert readings("_12345_678_mha.ipynb", False) == [Reading("", False, "12345", 678, "mha.ipynb")]  # an empty name
    assert readings("doejane_LATE_12345_text.html", False) == [Reading("doejane", True, "12345", 0, "text.html")]
    assert readings("a_1_2_3_x.py", False) == [
        Reading("a", False, "1", 2, "3_x.py"),
        Reading("a_1", False, "2", 3, "x.py"),
    ]
    assert readings("Doe_12345_678_x.py", False) == []  # Canvas lower-cases names: "Doe" is not one
    assert readings("doejane_012345_678_x.py", False) == []  # nor writes an id with a leading zero
    assert readings("LATE_anon_x1Y2z_678_mha.ipynb", True) == [Reading("", True, "anon_x1Y2z", 678, "mha.ipynb")]


def test_canvas_looks_like_only_its_own_scheme():
    """Does looks_like (which tells Canvas exports from others) take Canvas's names, named or anonymous, and nothing else?"""
    assert canvas.looks_like("doejane_12345_678_mha.ipynb")
    assert canvas.looks_like("doejane_LATE_12345_link.html")
    assert canvas.looks_like("LATE_anon_x1Y2z_678_mha.ipynb")
    assert not canvas.looks_like("notes for TAs.txt")
    assert not canvas.looks_like("Jane Doe_1234567_assignsubmission_file_mha.ipynb")  # Moodle's: a capital, a space
    assert not canvas.looks_like("doejane_12345_mha.ipynb")  # no attachment id
    assert not canvas.looks_like("doejane_12345_678_")  # no file name after the attachment id


def test_canvas_is_anonymous_only_when_every_file_is():
    """Is an export read as anonymous only when every file starts with anon_ or LATE_anon_ (and not when empty)?"""
    assert canvas.is_anonymous(["anon_abc_1_x.py", "LATE_anon_def_2_y.py"])
    assert not canvas.is_anonymous(["anon_abc_1_x.py", "doejane_12345_2_y.py"])
    assert not canvas.is_anonymous([])


@pytest.mark.parametrize(
    "uploaded, restored",
    [
        ("mha-1.ipynb", ("mha.ipynb", 1)),
        ("mha-12.ipynb", ("mha.ipynb", 12)),  # a number, not a digit: -12 is newer than -2
        ("a.tar-1.gz", ("a.tar.gz", 1)),  # before the extension
        ("a-1.tar.gz", ("a.tar.gz", 1)),  # before the first dot
        ("notes-3", ("notes", 3)),
        ("mha.ipynb", ("mha.ipynb", 0)),
        ("-1.py", ("-1.py", 0)),  # nothing before the '-': the student's own name
        ("my-2nd-try.py", ("my-2nd-try.py", 0)),
    ],
)
def test_canvas_restore_version(uploaded, restored):
    """Is Canvas's "-N" for a re-upload taken off where Canvas puts it, and a student's own '-' left alone?"""
    assert canvas.restore_version(uploaded) == restored


def test_canvas_resolve_settles_a_reading_from_the_other_files():
    """Is a file with two readings given to the one left once the export's other files settle their users' names?"""
    twofold = Path("twofold")
    candidates = {
        Path("user 1"): readings("a_1_70_x.py", False),
        Path("user 2"): readings("b_2_80_z.py", False),  # user 2 is "b", so not "a_1"
        twofold: readings("a_1_2_3_y.py", False),  # user 1 named "a", or user 2 named "a_1"
    }
    chosen, unresolved = canvas.resolve(candidates)
    assert unresolved == {} and chosen[twofold] == Reading("a", False, "1", 2, "3_y.py")


def test_canvas_resolve_rules_out_a_reused_attachment_id():
    """Is the reading that reuses an attachment id another file of that user holds ruled out?"""
    settled, twofold = Path("settled"), Path("twofold")
    candidates = {
        settled: readings("a_1_2_x.py", False),
        twofold: [Reading("a", False, "1", 2, "3_y.py"), Reading("b", False, "9", 3, "y.py")],
    }
    chosen, unresolved = canvas.resolve(candidates)
    assert unresolved == {} and chosen[twofold].uid == "9"


def test_canvas_resolve_believes_no_name_of_a_user_with_two():
    """A hand-edited export gives user 12345 two names: is every file of that user graded for no one, saying why?"""
    first, second, other = Path("first"), Path("second"), Path("other")
    candidates = {
        first: readings("doejane_12345_1_a.py", False),
        second: readings("smithjane_12345_2_b.py", False),
        other: readings("jonesbob_23456_3_c.py", False),
    }
    chosen, unresolved = canvas.resolve(candidates)
    assert list(chosen) == [other]
    assert set(unresolved) == {first, second}
    assert unresolved[first] == (
        "Canvas user id 12345 appears with 2 names in this export (doejane, smithjane): graded for no one; check it by hand"
    )


def test_canvas_resolve_names_both_readings_when_nothing_tells():
    """Is a file left with two readings refused with both, saying that nothing in the export tells which?"""
    twofold = Path("twofold")
    _, unresolved = canvas.resolve({twofold: readings("a_1_2_3_y.py", False)})
    assert unresolved == {
        twofold: "a Canvas name that reads as user 1 (a), file '3_y.py' or as user 2 (a_1), file 'y.py'"
        " (a name or a file name holding '_<digits>'), and no other file tells which: graded for no one; check it by hand"
    }


def test_canvas_resolve_refuses_a_file_every_reading_of_which_is_contradicted():
    """Users 1 and 2 are settled under other names: is a file that reads as either refused, naming what it read as?"""
    twofold = Path("twofold")
    candidates = {
        Path("user 1"): readings("x_1_70_x.py", False),
        Path("user 2"): readings("y_2_80_y.py", False),
        twofold: readings("a_1_2_3_y.py", False),
    }
    chosen, unresolved = canvas.resolve(candidates)
    assert twofold not in chosen and unresolved == {
        twofold: "named for user 1 (a), file '3_y.py' or user 2 (a_1), file 'y.py', which other files of the export "
        "contradict: graded for no one"
    }


def test_canvas_read_skips_folders_and_foreign_names(tmp_path):
    """Are a folder and a file not named by Canvas's scheme left out, each with the scheme it should follow?"""
    root = tmp_path / "export"
    (root / "extras").mkdir(parents=True)
    (root / "doejane_12345_678_mha.ipynb").write_bytes(NOTEBOOK)
    (root / "grades.csv").write_bytes(b"")
    skipped: list[tuple[str, str]] = []
    drafts = canvas.read(Reader(root, tmp_path / "scratch", (".ipynb", ".py"), skipped), root)
    assert [(d.name, d.student_id, d.late, [name for _, name in d.files]) for d in drafts] == [
        ("doejane", "12345", False, ["mha.ipynb"])
    ]
    for entry in ("extras/", "grades.csv"):
        assert skipped_why(skipped, entry) == "not named like a Canvas submission file (name_userid_fileid_file)"


def test_canvas_an_anonymous_student_is_named_by_the_anonymous_id(tmp_path):
    """With anonymous grading, is the draft named anon_<id> (Canvas gives no name) and keyed by it?"""
    root = tmp_path / "export"
    root.mkdir()
    (root / "anon_q7R_678_mha.ipynb").write_bytes(NOTEBOOK)
    drafts = canvas.read(Reader(root, tmp_path / "scratch", (".ipynb",), []), root)
    assert [(d.name, d.student_id) for d in drafts] == [("anon_q7R", "anon_q7R")]


def test_canvas_resolve_the_late_flag_rules_no_reading_out():
    """User 1 ("a") has a late file; a file that reads as user 1's on-time upload or as user 2's: is it kept from user 2
    (an export merged from two downloads holds one user's files with and without LATE)?

    content_zipper.rb's get_filename writes LATE per submission, so one download gives all of a user's files the same
    flag; two downloads merged, as the README's example is, do not."""
    twofold = Path("twofold")
    candidates = {Path("user 1"): readings("a_LATE_1_70_x.py", False), twofold: readings("a_1_2_3_y.py", False)}
    chosen, unresolved = canvas.resolve(candidates)
    assert twofold not in chosen and "user 1 (a)" in unresolved[twofold] and "user 2 (a_1)" in unresolved[twofold]


def test_canvas_a_user_under_two_names_is_listed_saying_why_with_no_file(tmp_path):
    """A hand-edited export gives user 12345 two names: is that user one submission, given no file, saying why, and
    are both files skipped?"""
    files = {"doejane_12345_1_a.py": b"A", "smithjane_12345_2_b.py": b"B", "jonesbob_23456_3_mha.ipynb": NOTEBOOK}
    intake, subs = canvas_class(tmp_path, files, honest={})
    assert set(subs) == {"12345", "23456"} and not subs["23456"].undecided
    reason = "Canvas user id 12345 appears with 2 names in this export (doejane, smithjane): graded for no one; check it by hand"
    assert subs["12345"].undecided == f"doejane_12345_1_a.py: {reason}; smithjane_12345_2_b.py: {reason}"
    assert files_of(subs["12345"]) == [] and subs["12345"].name == "doejane"
    assert why(intake, "doejane_12345_1_a.py") == why(intake, "smithjane_12345_2_b.py") == reason
    assert [(u.entry, u.taken) for u in subs["12345"].uploads] == [
        ("doejane_12345_1_a.py", False),
        ("smithjane_12345_2_b.py", False),
    ]
