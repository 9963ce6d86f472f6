"""Does grade-all's late step put each student's judgement into their results.json and feedback, rewrite only what a
changed policy changes, remove it without a policy, and say what it could not apply?"""

import json
from fractions import Fraction
from pathlib import Path

from autograder.deliver.feedback import write_feedback
from autograder.deliver.grade_all.class_folder import results_path
from autograder.deliver.intake import Intake, Submission
from autograder.deliver.late.apply import apply_late, late_total, who
from autograder.deliver.late.policy import read_policy
from autograder.results.read import read_results, read_results_file
from autograder.results.update import save_results
from autograder.results.write import not_graded_json

from ..students import student_results

POSSIBLE = Fraction(47)  # mha: 40 automatic points and 7 written
POLICY = """time_zone = "America/New_York"
grace = "15 minutes"
penalty = "1% per hour"
cap = "50%"
[mha]
due = 2025-02-14T23:59:00
[mha.extensions]
"{extended}" = "1 day"
nobody-here = "2 days"
"""


def write_policy(tmp_path: Path, extended: str = "cy-3") -> Path:
    path = tmp_path / "late.toml"
    path.write_text(POLICY.format(extended=extended))
    return path


def class_of(tmp_path: Path) -> tuple[Intake, dict, Path]:
    """Ann 10 h late, Bo on time, Cy 10 h late with a day's extension, Dee's zero, Eve flagged late by Canvas."""
    people = [
        Submission("ann-1", "Ann", "1", tmp_path, "gradescope", submitted_at="2025-02-15T09:59:00-05:00"),
        Submission("bo-2", "Bo", "2", tmp_path, "gradescope", submitted_at="2025-02-14T23:00:00-05:00"),
        Submission("cy-3", "Cy", "3", tmp_path, "gradescope", submitted_at="2025-02-15T09:59:00-05:00"),
        Submission("dee-4", "Dee", "4", tmp_path, "gradescope", submitted_at="2025-02-16T09:59:00-05:00"),
        Submission("eve-5", "Eve", "5", tmp_path, "canvas", late=True),
    ]
    out = tmp_path / "out"
    results = {}
    for person in people:
        document = (
            student_results() if person.key != "dee-4" else not_graded_json("no notebook", "mha", student_fault=True)
        )
        path = results_path(out, person.key)
        path.parent.mkdir(parents=True)
        save_results(read_results(document), path)
        results[person.key] = read_results_file(path)
        write_feedback(results[person.key], path.parent, student=person.name)
    return Intake("gradescope", people, []), results, out


def stamps(out: Path) -> dict[str, int]:
    return {path.parent.name + "/" + path.name: path.stat().st_mtime_ns for path in sorted(out.glob("students/*/*"))}


def test_each_students_record_and_feedback_and_only_what_changes_is_written(tmp_path):
    """Is Ann's 10 h taken off (10% of 47 points: 31.2 becomes 26.5) in results.json, with the raw score kept, and
    said on her feedback page and Markdown; does a rerun write nothing; does an extension for Ann rewrite hers
    alone; and without a policy are the records gone?"""
    intake, results, out = class_of(tmp_path)
    lines = apply_late(read_policy(write_policy(tmp_path), "mha"), intake, results, out, POSSIBLE)
    ann = json.loads(results_path(out, "ann-1").read_text())
    assert ann["score"] == 31.2 and ann["extra_data"]["late_penalty"] | {"line": ""} == {
        "status": "late", "percent": 10.0, "of": "possible", "line": "", "note": "",
        "submitted_at": "2025-02-15T09:59:00-05:00", "due": "2025-02-14T23:59:00-05:00",
        "student_due": "2025-02-14T23:59:00-05:00", "late_seconds": 36000, "possible": 47.0, "raw_score": 31.2,
        "deducted": 4.7, "score": 26.5,
    }  # fmt: skip
    assert results["ann-1"].late is not None and results["ann-1"].late.score == 26.5  # handed back, typed
    line = "Submitted 10 h late (due 2025-02-14 23:59 EST): −10% of the points possible (10 hours started, 1% each)."
    page = (out / "students" / "ann-1" / "feedback.html").read_text()
    assert line in page and '<span class="big" id="total">26.5</span>' in page
    assert "31.2 points before the penalty, −4.7." in page
    assert line in (out / "students" / "ann-1" / "feedback.md").read_text()
    assert results["bo-2"].late.status == "on time" and results["bo-2"].late.deducted == 0
    assert results["cy-3"].late.status == "on time" and results["cy-3"].late.student_due == "2025-02-15T23:59:00-05:00"
    assert results["dee-4"].late is None  # not graded: nothing to take from
    assert results["eve-5"].late.status == "flagged" and results["eve-5"].late.deducted == 0
    assert lines[0].startswith(f"late policy ({tmp_path / 'late.toml'}, [mha]): due 2025-02-14 23:59 EST")
    assert lines[1] == (
        "  1 late, 2 on time (0 within the grace period), 1 marked late with no time, 0 with no time known; "
        "1 with a penalty"
    )
    assert any(
        "Canvas marks it late and gives no time: nothing applied" in x and x.endswith("(1): eve-5") for x in lines
    )
    assert any(f"{tmp_path / 'late.toml'}:9: the extension for 'nobody-here' matches no student" in x for x in lines)

    before = stamps(out)
    apply_late(read_policy(write_policy(tmp_path), "mha"), intake, results, out, POSSIBLE)
    assert stamps(out) == before  # the same policy: nothing written

    apply_late(read_policy(write_policy(tmp_path, extended="1"), "mha"), intake, results, out, POSSIBLE)  # Ann's id
    after = stamps(out)
    assert {name for name in after if after[name] != before[name]} == {
        "ann-1/results.json", "ann-1/feedback.html", "ann-1/feedback.md",
        "cy-3/results.json", "cy-3/feedback.html", "cy-3/feedback.md",
    }  # fmt: skip
    assert read_results_file(results_path(out, "ann-1")).late.score == 31.2
    assert read_results_file(results_path(out, "cy-3")).late.score == 26.5

    apply_late(None, intake, results, out, POSSIBLE)
    assert all(read_results_file(results_path(out, p.key)).late is None for p in intake.submissions)
    assert "late_penalty" not in json.loads(results_path(out, "cy-3").read_text())["extra_data"]
    assert "Submitted" not in (out / "students" / "cy-3" / "feedback.html").read_text()


def test_without_a_policy_the_late_flags_are_said():
    """No --late-policy on an export that marks students late: does the run say that nothing was applied, and to whom?"""
    people = [Submission(k, k, k, Path(k), "canvas", late=k != "b") for k in ("a", "b", "c")]
    assert apply_late(None, Intake("canvas", people, []), {}, Path("."), POSSIBLE) == [
        "no --late-policy: no late penalty applied; the export marks 2 late: a, c"
    ]


def test_an_extension_may_name_the_key_the_lms_id_or_a_group_member():
    """Are the names an extension can give a submission its key, its LMS id and each member's id?"""
    group = Submission("team", "Team", "", Path("t"), "gradescope", members=(("Dev", "4", "d@x"), ("Eve", "5", "e@x")))
    assert who(group) == ("team", "", "4", "5")


def test_the_total_less_the_penalty():
    """Is summary.csv's total the raw total less the percent (of the points possible, or of the total), and left
    as it is where nothing is taken or the raw total waits for written answers?"""
    late = read_results({"extra_data": {"late_penalty": {"status": "late", "percent": 10, "of": "possible"}}}).late
    assert late_total(late, "38", POSSIBLE) == ("4.7", "33.3")
    ours = read_results({"extra_data": {"late_penalty": {"status": "late", "percent": 10, "of": "score"}}}).late
    assert late_total(ours, "38", POSSIBLE) == ("3.8", "34.2")
    assert late_total(late, "2", POSSIBLE) == ("2", "0")  # never below zero
    assert late_total(late, "", POSSIBLE) == ("", "") and late_total(None, "38", POSSIBLE) == ("", "38")
