"""Does grade-all take a class as an LMS hands it over, and always end with a summary that tells the truth?"""

import csv
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.author.samples import sample_path
from autograder.config import GradingConfig
from autograder.deliver.class_view import report, similarity, sources
from autograder.deliver.grade_all import batch
from autograder.errors import KitError
from autograder.public import trees

from ..cohort import NAME, assert_same_class, cohort_on_canvas

pytestmark = pytest.mark.slow
KIT = [sys.executable, "-m", "autograder"]


def rows(out: Path) -> dict[str, dict]:
    with open(out / "summary.csv", newline="") as file:
        return {row["key"]: row for row in csv.DictReader(file)}


def by_name(out: Path) -> dict[str, dict]:
    """summary.csv's rows by name: a group's members each."""
    with open(out / "summary.csv", newline="") as file:
        return {row["name"]: row for row in csv.DictReader(file)}


@pytest.fixture(scope="module")
def samples(mha):
    return {"solved": sample_path(mha, None), "buggy": sample_path(mha), "blank": mha.release_dir / mha.notebook_name}


def canvas_zip(samples, path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(samples["buggy"], "doejane_12345_6789012_mha.ipynb")
        archive.write(samples["solved"], "doejane_12345_6789020_mha-1.ipynb")  # her resubmission
        archive.write(samples["blank"], "smithbob_LATE_23456_6789013_mha.ipynb")
        archive.writestr("smithbob_LATE_23456_6789014_utils.py", "HELPER = 1\n")
        archive.writestr("__MACOSX/._doejane_12345_6789012_mha.ipynb", "junk")
    return path


def moodle_folder(samples, root: Path) -> Path:
    for name, sample in (
        ("Jane Doe_1234567_assignsubmission_file_", "solved"),
        ("Bob Smith_7654321_assignsubmission_file_", "buggy"),
    ):
        (root / name).mkdir(parents=True)
        shutil.copy(samples[sample], root / name / "mha.ipynb")
    return root


def gradescope_export(samples, root: Path) -> Path:
    for number, sample in ((100001, "solved"), (100002, "buggy")):
        (root / f"submission_{number}").mkdir(parents=True)
        shutil.copy(samples[sample], root / f"submission_{number}" / "mha.ipynb")
    (root / "submission_metadata.yml").write_text(
        "submission_100001:\n  :submitters:\n  - :name: Jane Doe\n    :sid: '12345'\n    :email: jane@example.org\n"
        "  :created_at: 2026-11-01 10:00:00.000000000 -07:00\n  :status: processed\n"
        "submission_100002:\n  :submitters:\n  - :name: Bob Smith\n    :sid: '23456'\n    :email: bob@example.org\n"
        "  - :name: Eve Adams\n    :sid: '34567'\n    :email: eve@example.org\n"
        "  :created_at: 2026-11-02 11:00:00.000000000 -07:00\n  :status: processed\n"
    )
    return root


def test_a_canvas_zip(samples, tmp_path):
    """From a Canvas zip: one row per student, the latest submission graded, the late flag, the helper file kept with its student."""
    out = tmp_path / "out"
    done = subprocess.run(KIT + ["grade-all", str(canvas_zip(samples, tmp_path / "canvas.zip")), "-a", "mha", "--out", str(out), "--jobs", "2", "--quiet", "--lms-column-id", "678"],
                          capture_output=True, text=True, cwd=KIT_ROOT)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    table = rows(out)
    assert sorted(table) == ["doejane-12345", "smithbob-23456"]
    jane, bob = table["doejane-12345"], table["smithbob-23456"]
    assert (jane["score"], jane["status"], jane["late"], jane["student_id"]) == ("40", "graded", "no", "12345")
    assert "doejane_12345_6789012_mha.ipynb" in jane["earlier"]
    assert (bob["score"], bob["late"], bob["status"]) == ("0", "yes", "graded") and bob["file"].endswith("mha.ipynb")
    for key in table:
        folder = out / "students" / key
        assert {"results.json", "feedback.html", "feedback.md"} <= {p.name for p in folder.iterdir()}
    assert "__MACOSX" in (out / "report.txt").read_text()  # what was left out, and why
    with open(out / "canvas_grades.csv", newline="") as file:
        assert list(csv.reader(file)) == [
            ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "mha (678)"],
            ["    Points Possible", "", "", "", "", "47"],  # 40 automatic, 7 written (graded by hand)
            ["doejane", "12345", "", "", "", "40"],
            ["smithbob", "23456", "", "", "", "0"],
        ]
    assert f"for canvas: {out / 'canvas_grades.csv'}" in done.stdout


def test_the_readmes_canvas_example_and_a_file_that_reads_as_two_students(samples, tmp_path, capsys):
    """The README's Canvas files (an on-time upload, a late module, a re-upload) and Mallory's file that reads as
    user 777's or user 999's: is Jane one row, her latest notebook graded with her module, late "yes", her first
    upload listed; are users 777 and 999 each a row "not graded" saying why, with an empty grade in
    canvas_grades.csv (never 0), and named in the run's output?"""
    export = tmp_path / "canvas"
    export.mkdir()
    shutil.copy(samples["buggy"], export / "doejane_12345_6789012_mha.ipynb")
    (export / "doejane_LATE_12345_6789013_utils.py").write_text("HELPER = 1\n")
    shutil.copy(samples["solved"], export / "doejane_12345_6789014_mha-1.ipynb")
    shutil.copy(samples["solved"], export / "mallory_777_999_555_mha.ipynb")  # user 777's "555_mha.ipynb", or 999's
    out = tmp_path / "out"
    assert batch.grade_all(export, "mha", out, GradingConfig(), jobs=1, progress=False) == 0
    table = {row["student_id"]: row for row in rows(out).values()}
    assert sorted(table) == ["12345", "777", "999"]
    jane = table["12345"]
    assert (jane["name"], jane["status"], jane["score"], jane["late"]) == ("doejane", "graded", "40", "yes")
    assert jane["earlier"] == "doejane_12345_6789012_mha.ipynb" and jane["submitted_at"] == ""
    for uid in ("777", "999"):
        row = table[uid]
        assert (row["status"], row["score"], row["total"], row["unchanged"]) == ("not graded", "", "", "")
        assert row["reason"].startswith("mallory_777_999_555_mha.ipynb: a Canvas name that reads as user 777")
        assert "graded for no one" in row["reason"] and not (out / "students" / row["key"]).exists()
    with open(out / "canvas_grades.csv", newline="") as file:
        assert sorted(list(csv.reader(file))[2:]) == [
            ["doejane", "12345", "", "", "", "40"],
            ["mallory", "777", "", "", "", ""],
            ["mallory_777", "999", "", "", "", ""],
        ]
    said = capsys.readouterr().out
    assert "2 not graded: the export does not tell whose files are whose" in said
    assert batch.grade_all(export, "mha", out, GradingConfig(), jobs=1, progress=False) == 0  # a rerun
    again = {row["student_id"]: row for row in rows(out).values()}
    assert (again["12345"]["unchanged"], again["777"]["unchanged"], again["777"]["status"]) == ("yes", "", "not graded")


def test_a_moodle_folder_and_a_gradescope_export(samples, tmp_path):
    """Are Moodle's folders and Gradescope's export (names, ids, groups from its metadata) read and graded?"""
    out = tmp_path / "moodle-out"
    assert (
        batch.grade_all(
            moodle_folder(samples, tmp_path / "moodle"), "mha", out, GradingConfig(), jobs=1, progress=False
        )
        == 0
    )
    table = rows(out)
    assert {row["name"] for row in table.values()} == {"Jane Doe", "Bob Smith"}
    assert {row["student_id"]: row["score"] for row in table.values()} == {"1234567": "40", "7654321": "37.7"}
    with open(out / "moodle_grades.csv", newline="") as file:
        sheet = list(csv.DictReader(file))
    assert [(r["Identifier"], r["Full name"], r["Grade"], r["Maximum Grade"]) for r in sheet] == [
        ("Participant 7654321", "Bob Smith", "37.7", "47"),
        ("Participant 1234567", "Jane Doe", "40", "47"),
    ]
    with zipfile.ZipFile(out / "moodle_feedback.zip") as archive:
        assert sorted(archive.namelist()) == [
            "Bob Smith_7654321_assignfeedback_file_/feedback.html",
            "Jane Doe_1234567_assignfeedback_file_/feedback.html",
        ]
    out = tmp_path / "gradescope-out"
    assert (
        batch.grade_all(
            gradescope_export(samples, tmp_path / "gradescope"), "mha", out, GradingConfig(), jobs=1, progress=False
        )
        == 0
    )
    with open(out / "summary.csv", newline="") as file:
        people = {row["name"]: row for row in csv.DictReader(file)}
    assert sorted(people) == ["Bob Smith", "Eve Adams", "Jane Doe"]  # a group: one row per member, each with their id
    assert (
        people["Eve Adams"]["student_id"] == "34567"
        and people["Eve Adams"]["score"] == people["Bob Smith"]["score"] == "37.7"
    )
    assert people["Eve Adams"]["group"] == "Bob Smith, Eve Adams" and people["Jane Doe"]["group"] == ""
    assert not any("submission_metadata" in row["key"] for row in people.values())  # the yml is no student
    results = json.loads(next((out / "students").glob("*/results.json")).read_text())
    assert results["extra_data"]["student"]["source"] == "gradescope"


LATE_POLICY = """time_zone = "America/Los_Angeles"
penalty = "10% per day"
[mha]
due = 2026-11-01T23:59:00
[mha.extensions]
"""


def test_a_late_policy_and_its_extensions_change_the_totals_without_grading_anyone(
    samples, tmp_path, capsys, monkeypatch
):
    """A Gradescope export graded once, then with a late policy (Bob's group 10 h late: 10% of 47 points) and then
    with an extension for Eve: does each rerun grade no one, and change summary.csv's total (beside the raw
    total), the LMS file's and the feedback page's, each time as the docs say?"""
    export, out = gradescope_export(samples, tmp_path / "gradescope"), tmp_path / "out"
    assert batch.grade_all(export, "mha", out, GradingConfig(), progress=False) == 0
    graded = {path: path.stat().st_mtime_ns for path in out.glob("students/*/submission.ipynb")}

    def no_grading(*args, **kwargs):
        raise AssertionError("a change of the late policy graded a student again")

    monkeypatch.setattr(batch, "grade_students", no_grading)
    policy = tmp_path / "late.toml"
    policy.write_text(LATE_POLICY)
    assert batch.grade_all(export, "mha", out, GradingConfig(), progress=False, late_policy=policy) == 0
    said = capsys.readouterr().out
    assert "0 graded, 2 unchanged" in said
    assert (
        "late policy (" in said
        and "1 late, 1 on time (0 within the grace period)" in said
        and "1 with a penalty" in said
    )
    people = by_name(out)
    bob, eve, jane = people["Bob Smith"], people["Eve Adams"], people["Jane Doe"]
    assert (bob["score"], bob["raw_total"], bob["late_penalty"], bob["total"], bob["late_by"]) == (
        "37.7", "37.7", "4.7", "33", "10 h 1 min"
    )  # fmt: skip
    assert eve["total"] == "33" and (jane["total"], jane["late_penalty"]) == ("40", "")
    with open(out / "gradescope_grades.csv", newline="") as file:
        assert {r["Name"]: r["Total Score"] for r in csv.DictReader(file)} == {
            "Bob Smith": "33", "Eve Adams": "33", "Jane Doe": "40"
        }  # fmt: skip
    page = out / "students" / bob["key"] / "feedback.html"
    assert "Submitted 10 h 1 min late (due 2026-11-01 23:59 PST): −10% of the points possible" in page.read_text()

    policy.write_text(LATE_POLICY + '"34567" = "1 day"\n')  # Eve's SID: the group's latest extension
    assert batch.grade_all(export, "mha", out, GradingConfig(), progress=False, late_policy=policy) == 0
    assert "0 graded, 2 unchanged" in capsys.readouterr().out
    people = by_name(out)
    assert [(people[n]["late_penalty"], people[n]["total"]) for n in ("Bob Smith", "Eve Adams")] == [("", "37.7")] * 2
    assert "Submitted" not in page.read_text()
    assert {path: path.stat().st_mtime_ns for path in out.glob("students/*/submission.ipynb")} == graded


def deep_chain(root: Path, depth: int) -> None:
    """depth nested folders under root, made relative to open folders, a notebook-like file at the bottom."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("x.ipynb", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.close(fd)


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_one_students_tree_deeper_than_recursion_refuses_that_student_only(samples, tmp_path, monkeypatch, as_zip):
    """A student's folder 1100 levels deep: is she refused with the reason, the class graded, and scratch removed?"""
    export = moodle_folder(samples, tmp_path / "moodle")
    mallory = export / "Mallory Deep_7777777_assignsubmission_file_"
    mallory.mkdir()
    shutil.copy(samples["solved"], mallory / "mha.ipynb")
    deep_chain(mallory, sys.getrecursionlimit() + 100)
    if as_zip:
        with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as archive:
            for folder, _, files in trees.walk(export, max_depth=10_000):
                for name in files:
                    archive.write(folder / name, (folder / name).relative_to(export).as_posix())
        export = tmp_path / "moodle.zip"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "out"
    try:
        assert batch.grade_all(export, "mha", out, GradingConfig(), jobs=1, progress=False) == 0
    finally:
        trees.remove_tree(mallory)  # pytest's own clean-up of old temporary folders recurses
    table = {row["name"]: row for row in rows(out).values()}
    assert {name: row["score"] for name, row in table.items() if name != "Mallory Deep"} == {
        "Jane Doe": "40",
        "Bob Smith": "37.7",
    }
    assert table["Mallory Deep"]["status"] == "not graded"
    assert "levels deep" in table["Mallory Deep"]["reason"]
    assert list(scratch.iterdir()) == []  # the unpacked export and every student's copy are gone


def test_a_class_gets_errors_carried_forward(mha, tmp_path):
    """Does grade-all give a student whose split_heads is wrong, and layer right, all of MultiHeadAttention's points,
    in the summary, with the feedback page saying that the reference's split_heads stood in?"""
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(sample_path(mha, "split_heads_without_transpose"), folder / "ann.ipynb")
    out = tmp_path / "out"
    assert batch.grade_all(folder, "mha", out, GradingConfig(), jobs=1, progress=False) == 0
    row = rows(out)["ann"]
    assert row["MultiHeadAttention"] == "8" and float(row["split_heads"]) < 3
    note = "MultiHeadAttention graded with the reference's split_heads, since yours fails its own checks"
    assert note in (out / "students" / "ann" / "feedback.md").read_text().replace("\\_", "_")  # Markdown escapes _


def test_a_rerun_grades_only_what_changed(samples, tmp_path, capsys):
    """Is an unchanged class not graded again; a change of grading option (or --force) regrade everyone?"""
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(samples["buggy"], folder / "ada.ipynb")
    out = tmp_path / "out"
    config = GradingConfig()
    assert batch.grade_all(folder, "mha", out, config, progress=False) == 0
    stamp = (out / "students" / "ada" / "results.json").stat().st_mtime_ns
    assert batch.grade_all(folder, "mha", out, config, progress=False) == 0
    assert "0 graded, 1 unchanged" in capsys.readouterr().out
    assert (out / "students" / "ada" / "results.json").stat().st_mtime_ns == stamp
    ada = rows(out)["ada"]
    assert (ada["status"], ada["reason"], ada["unchanged"], ada["score"]) == ("graded", "", "yes", "37.7")
    assert batch.grade_all(folder, "mha", out, config.with_options(memory=1.5), progress=False) == 0
    assert "1 graded, 0 unchanged" in capsys.readouterr().out
    assert batch.grade_all(folder, "mha", out, config.with_options(memory=1.5), progress=False, force=True) == 0
    assert "1 graded, 0 unchanged" in capsys.readouterr().out


def test_a_rerun_with_nothing_to_grade_reads_the_class_views_back(samples, tmp_path, monkeypatch):
    """With nothing changed, does a rerun write the same class views without reading a submission's code,
    comparing a pair with copydetect or drawing report.png (each kept from the first run)?"""
    folder = tmp_path / "class"
    folder.mkdir()
    for name, sample in (("ada", "buggy"), ("ben", "buggy"), ("cleo", "solved")):
        shutil.copy(samples[sample], folder / f"{name}.ipynb")
    out = tmp_path / "out"
    made = []  # the records this process makes: none, each worker kept its students'
    real = sources.code_record
    monkeypatch.setattr(sources, "code_record", lambda *args: made.append(args) or real(*args))
    assert batch.grade_all(folder, "mha", out, GradingConfig(), jobs=2, progress=False) == 0
    assert all((out / "students" / key / "code.json").is_file() for key in ("ada", "ben", "cleo")) and not made
    views = ("similarity.csv", "clusters.json", "report.html", "report.txt", "report.png")
    first = {name: (out / name).read_bytes() for name in views}

    def refuse(*args, **kwargs):
        raise AssertionError("computed again")

    for module, name in ((sources, "student_code"), (similarity, "compare"), (report, "report_figure")):
        monkeypatch.setattr(module, name, refuse)
    assert batch.grade_all(folder, "mha", out, GradingConfig(), jobs=2, progress=False) == 0
    assert {name: (out / name).read_bytes() for name in views} == first


def test_grade_all_loads_no_library_a_rerun_does_not_need():
    """Does grade-all's module load without nbformat (its JSON schema checks), copydetect, Pygments or
    matplotlib: seconds of imports that a rerun with nothing to grade never uses?"""
    heavy = ("nbformat", "jsonschema", "copydetect", "pygments", "matplotlib")
    code = f"import sys, autograder.deliver.grade_all.batch; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=KIT_ROOT, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.slow(seconds=9)
def test_ctrl_c_stops_quietly_and_a_rerun_resumes(samples, tmp_path):
    """Ctrl-C during grade-all: one line and exit 130, no traceback; does the rerun grade only what is left?"""
    folder = tmp_path / "class"
    folder.mkdir()
    for n in range(8):
        shutil.copy(samples["buggy" if n % 2 else "solved"], folder / f"s{n}.ipynb")
    out = tmp_path / "out"
    command = KIT + ["grade-all", str(folder), "-a", "mha", "--out", str(out), "--jobs", "2", "--quiet"]
    run = ctrl_c_after_the_first_student(command, out, ctrl_c=signal.SIG_DFL)  # as a terminal's foreground job
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stdout[-2000:] + stderr[-2000:]
    assert "interrupted: rerun to resume" in stderr and "Traceback" not in stderr, stderr[-3000:]
    kept = [
        p for p in out.glob("students/*/results.json") if json.loads(p.read_text())["extra_data"]["status"] == "graded"
    ]
    rerun = subprocess.run(command, cwd=KIT_ROOT, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert kept and f"{8 - len(kept)} graded, {len(kept)} unchanged since the last run" in rerun.stdout, rerun.stdout[
        -500:
    ]
    assert sorted(row["status"] for row in rows(out).values()) == ["graded"] * 8


def ctrl_c_after_the_first_student(command: list[str], out: Path, ctrl_c) -> subprocess.Popen:
    """Start grade-all in a process group of its own, with Ctrl-C's disposition ``ctrl_c`` (a terminal's foreground
    job has SIG_DFL; a shell script's background job, SIG_IGN), whatever the suite itself was started with; then,
    once the first student is done, send the group Ctrl-C, as a terminal sends it to the whole foreground group."""
    run = subprocess.Popen(
        command,
        cwd=KIT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, ctrl_c),
    )
    for _ in range(1200):
        if list(out.glob("students/*/results.json")) or run.poll() is not None:
            break
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGINT)
    return run


@pytest.mark.slow
def test_a_command_started_ignoring_ctrl_c_grades_every_student_through_it(samples, tmp_path):
    """Started ignoring Ctrl-C (a script's background job, nohup), does grade-all, workers included, grade the whole
    class through a Ctrl-C sent to its group, with no student a kit error?"""
    folder = tmp_path / "class"
    folder.mkdir()
    for n in range(4):
        shutil.copy(samples["solved"], folder / f"s{n}.ipynb")
    out = tmp_path / "out"
    command = KIT + ["grade-all", str(folder), "-a", "mha", "--out", str(out), "--jobs", "2", "--quiet"]
    run = ctrl_c_after_the_first_student(command, out, ctrl_c=signal.SIG_IGN)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert sorted(row["status"] for row in rows(out).values()) == ["graded"] * 4


def test_any_entry_name_and_a_summary_always(samples, tmp_path):
    """Do undecodable, shell-like and output-file names each get a row, and the summary get written?"""
    folder = tmp_path / "class"
    folder.mkdir()
    names = [b"caf\xe9.ipynb", b"summary.csv.ipynb", b"$(rm -rf x);`id`.ipynb", b"report.txt.ipynb"]
    for name in names:
        shutil.copy(samples["buggy"], os.path.join(os.fsencode(folder), name))
    out = tmp_path / "out"
    assert batch.grade_all(folder, "mha", out, GradingConfig(), jobs=2, progress=False) == 0
    table = rows(out)
    assert len(table) == 4 and all(row["status"] == "graded" for row in table.values())
    assert all(key.replace("-", "").replace("_", "").replace(".", "").isalnum() for key in table)
    written = ["answers.html", "manual_points_template.csv"]  # mha asks written answers: deliver/grade_all/answers.py
    insight = ["clusters.json", "report.html", "similarity.csv"]  # deliver/class_view/insight.py
    kept = [".cache"]  # what a rerun reads back (deliver/grade_all/class_folder.py)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*written, *insight, *kept, "report.png", "report.txt", "students", "summary.csv"]
    )


def test_a_kit_failure_is_loud_and_no_students_zero(samples, tmp_path, monkeypatch, capsys):
    """Does an error inside a grader give exit status 3, a column in summary.csv, a line in the report, and no score of 0?"""
    from autograder.grade import engine, plan

    collect = plan.collect

    def broken(assignment):
        checks = collect(assignment)
        first = checks[0]

        def crash(student, reference, submission, **kwargs):  # a grader bug that only one student's work meets
            if submission is not None and submission.path.name == "ada.ipynb":
                raise KeyError("a bug of the kit")
            given = {"student": student, "reference": reference, "submission": submission}
            return first.function(**{name: given[name] for name in first.fixtures}, **kwargs)

        checks[0] = plan.Check(first.name, first.module, first.function_name, first.title, first.case, first.weight,
                               first.gate, crash, first.arguments, ("student", "reference", "submission"))  # fmt: skip
        return checks

    monkeypatch.setattr(engine, "collect", broken)
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(samples["solved"], folder / "ada.ipynb")
    out = tmp_path / "out"
    assert batch.grade_all(folder, "mha", out, GradingConfig(), progress=False) == 3
    row = rows(out)["ada"]
    assert row["status"] == "error" and "a bug of the kit" in row["reason"] and row["internal_errors"] == "1"
    results = json.loads((out / "students" / "ada" / "results.json").read_text())
    assert results["extra_data"]["status"] == "error" and results["extra_data"]["internal_errors"]
    assert "ada: error" in (out / "report.txt").read_text() and "errors of the kit" in capsys.readouterr().out


def test_the_run_stops_when_the_host_cannot_grade(samples, tmp_path, monkeypatch):
    """When the reference itself cannot get full marks here, is nobody graded, everyone listed, and the exit status 3?"""
    from autograder.grade.engine import Grader, HostError

    def cannot(self):
        raise HostError("this host cannot grade: the reference itself loses points")

    monkeypatch.setattr(Grader, "check_host", cannot)
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ada", "ben"):
        shutil.copy(samples["solved"], folder / f"{name}.ipynb")
    out = tmp_path / "out"
    assert batch.grade_all(folder, "mha", out, GradingConfig(), progress=False) == 3
    table = rows(out)
    assert {row["status"] for row in table.values()} == {"error"} and all(row["score"] == "" for row in table.values())
    assert all("the reference itself loses points" in row["reason"] for row in table.values())
    assert "not graded (2)" in (out / "report.txt").read_text()


def test_workers_write_nothing_when_the_reference_then_fails(samples, tmp_path, monkeypatch):
    """With two jobs the reference is graded beside the workers' first students: when it then loses points, is the
    students' grading, done already, written nowhere, and everyone listed as the kit's error?"""
    from autograder.deliver.grade_all import workers
    from autograder.grade.engine import Grader, HostError

    graded = tmp_path / "graded"
    graded.mkdir()
    grade = workers._grade_student

    def grade_and_say_so(grader, submission):  # in the workers, which fork with it
        outcome = grade(grader, submission)
        (graded / submission.key).touch()
        return outcome

    def fails_once_a_student_is_graded(self):
        deadline = time.monotonic() + 120
        while not any(graded.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        raise HostError("this host cannot grade: the reference itself loses points")

    monkeypatch.setattr(workers, "_grade_student", grade_and_say_so)
    monkeypatch.setattr(Grader, "check_host", fails_once_a_student_is_graded)
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ada", "ben", "cy"):
        shutil.copy(samples["solved"], folder / f"{name}.ipynb")
    out = tmp_path / "out"
    assert batch.grade_all(folder, "mha", out, GradingConfig(), jobs=2, progress=False) == 3
    assert any(graded.iterdir())  # a worker graded someone before the verdict
    assert not list(out.glob("students/*/results.json"))
    table = rows(out)
    assert {row["status"] for row in table.values()} == {"error"} and all(row["score"] == "" for row in table.values())
    assert all("the reference itself loses points" in row["reason"] for row in table.values())


@pytest.mark.slow(seconds=21)
def test_a_busy_neighbour_does_not_time_an_honest_student_out(mha, samples, tmp_path):
    """With a student who spins 60 busy threads graded beside an honest one, does the honest one keep every point?"""
    folder = tmp_path / "class"
    folder.mkdir()
    hog = (
        mha.reference_path.read_text()
        + """

import threading

def _spin():
    while True:
        pass

for _ in range(60):
    threading.Thread(target=_spin, daemon=True).start()
"""
    )
    (folder / "hog.py").write_text(hog)
    shutil.copy(samples["solved"], folder / "honest.ipynb")
    out = tmp_path / "out"
    batch.grade_all(folder, "mha", out, GradingConfig(timeout=4.0, processes=96), jobs=2, progress=False)
    assert rows(out)["honest"]["score"] == "40"


def test_the_class_stays_in_the_intakes_order(tmp_path):
    """Students graded in any order (workers finish when they finish), some kept from an earlier run: are everyone's
    status and results in the intake's order, a student graded again whose results were not written left out?"""
    from autograder.deliver.grade_all.workers import Grading
    from autograder.deliver.intake import Intake, Submission
    from autograder.results.outcome import GRADED, KIT_ERROR, NOT_GRADED
    from autograder.results.read import read_results
    from autograder.results.write import not_graded_json

    keys = ["ada", "ben", "cleo", "dev"]
    intake = Intake(
        "folders", [Submission(k, k.title(), str(i), tmp_path / k, "folders") for i, k in enumerate(keys)], []
    )
    zero = read_results(not_graded_json("holds no notebook", "mha", student_fault=True))
    gradings = {  # as the workers handed them back: the last first
        "dev": Grading(NOT_GRADED, "holds no notebook", zero),
        "ada": Grading(KIT_ERROR, "its worker stopped before grading it"),
        "cleo": Grading(NOT_GRADED, "holds no notebook", zero),
    }
    status = batch._class_status(intake, {"ben"}, gradings)
    assert list(status) == keys
    assert status["ben"] == (GRADED, "") and status["ada"] == (KIT_ERROR, "its worker stopped before grading it")
    earlier = {"ben": zero, "ada": zero}  # ada's earlier results are not hers any more: she was graded again
    results = batch._class_results(intake, earlier, gradings)
    assert list(results) == ["ben", "cleo", "dev"]


def test_a_student_the_export_does_not_tell_is_not_graded_and_has_no_results(tmp_path):
    """A student whose files the export does not tell (undecided): is their status "not graded" with the reason,
    whatever an earlier run left under their key, and are they given no results?"""
    from autograder.deliver.intake import Intake, Submission
    from autograder.results.outcome import NOT_GRADED
    from autograder.results.read import read_results
    from autograder.results.write import not_graded_json

    why = "x.py: reads as user 1 or user 2: graded for no one"
    intake = Intake("canvas", [Submission("u1", "a", "1", tmp_path / "u1", "canvas", undecided=why)], [])
    earlier = {"u1": read_results(not_graded_json("old", "mha", student_fault=True))}
    assert batch._class_status(intake, {"u1"}, {}) == {"u1": (NOT_GRADED, why)}
    assert batch._class_results(intake, earlier, {}) == {}


SHARDS = 4  # the cohort's keys fall to shards 2, 3, 3, 2, 4 and 3 of 4: shard 1 holds no one


def test_a_class_in_shards_merged_is_one_grade_all(tmp_path, monkeypatch, capsys):
    """The small class graded in 4 shards (one of them empty) and merged, and graded by one grade-all: the same
    summary.csv, Canvas file, groups (with a note), alike pairs, reports, written answers' files and feedback? Then
    one submission changed: is the merge refused until its shard runs again, does that shard grade that student
    alone, and do the merge and one grade-all's rerun still agree (its ``unchanged`` column included)? And a student
    graded again with --force in their shard: does the next merge take the new results?"""
    from autograder.deliver.class_view import clusters as clustering

    notes = tmp_path / "cluster_notes.toml"
    notes.write_text('"a0cf52f29687" = "The base is 10000, not 1000."\n')  # ada and ben's slip (README's example)
    monkeypatch.setattr(clustering, "notes_path", lambda assignment: notes)
    export = cohort_on_canvas(tmp_path / "canvas")
    shards = [tmp_path / f"shard-{i}" for i in range(1, SHARDS + 1)]
    for i, folder in enumerate(shards, start=1):
        assert batch.grade_all(export, NAME, folder, GradingConfig(), progress=False, shard=(i, SHARDS)) == 0
    said = capsys.readouterr().out
    assert f"shard 1/{SHARDS}: 0 students, 0 graded" in said and f"shard 3/{SHARDS}: 3 students, 3 graded" in said
    merged, one = tmp_path / "merged", tmp_path / "one"
    assert batch.merge(export, shards[::-1], merged, jobs=2, lms_column_id="55") == 0  # in any order
    assert "6 graded, 0 unchanged" in capsys.readouterr().out
    assert batch.grade_all(export, NAME, one, GradingConfig(), jobs=2, progress=False, lms_column_id="55") == 0
    assert_same_class(one, merged)
    assert "The base is 10000" in (merged / "students" / "ada-101" / "feedback.md").read_text()
    assert rows(merged)["mallory-777"]["status"] == "not graded" and rows(merged)["ben-102"]["late"] == "yes"

    ben = export / "ben_LATE_102_7002_attention.py"
    ben.write_text(ben.read_text() + "\n# checked once more\n")
    with pytest.raises(KitError, match=f"ben-102's submission changed since shard 3/{SHARDS} graded it"):
        batch.merge(export, shards, merged)
    stamps = {
        key: (shards[2] / "students" / key / "results.json").stat().st_mtime_ns for key in ("cleo-103", "fay-106")
    }
    capsys.readouterr()
    assert batch.grade_all(export, NAME, shards[2], GradingConfig(), progress=False, shard=(3, SHARDS)) == 0
    assert f"shard 3/{SHARDS}: 3 students, 1 graded, 2 unchanged" in capsys.readouterr().out
    assert {key: (shards[2] / "students" / key / "results.json").stat().st_mtime_ns for key in stamps} == stamps
    assert batch.merge(export, shards, merged, jobs=2, lms_column_id="55") == 0
    assert batch.grade_all(export, NAME, one, GradingConfig(), jobs=2, progress=False, lms_column_id="55") == 0
    assert_same_class(one, merged)
    assert [r["key"] for r in rows(merged).values() if r["unchanged"] == "yes"] == [
        "ada-101", "cleo-103", "dev-104", "eli-105", "fay-106"
    ]  # fmt: skip
    assert batch.grade_all(export, NAME, shards[3], GradingConfig(), progress=False, shard=(4, SHARDS), force=True) == 0
    assert batch.merge(export, shards, merged) == 0  # eli graded again in her shard: her new results, not the copy
    eli = [json.loads((out / "students" / "eli-105" / "results.json").read_text()) for out in (shards[3], merged)]
    assert eli[0]["execution_time"] == eli[1]["execution_time"] and rows(merged)["eli-105"]["unchanged"] == ""


def shard_record(folder: Path, shard: int, shards: int = 2, digest: str = "g") -> Path:
    folder.mkdir()
    record = batch.ShardRecord(shard, shards, NAME, digest, False, {})
    (folder / batch.SHARD_RECORD).write_text(json.dumps(dataclasses.asdict(record)))
    return folder


def test_merge_takes_the_shards_of_one_grading_only(tmp_path):
    """Is a merge refused, naming what to do, for a folder no shard finished, a shard given twice or missing, and
    shards graded otherwise (another kit, options or number of shards)?"""
    first, second = shard_record(tmp_path / "a", 1), shard_record(tmp_path / "b", 2)
    assert sorted(batch.read_shards([second, first])) == [1, 2]
    with pytest.raises(KitError, match="has no shard.json: .* run it again"):
        batch.read_shards([first, tmp_path])
    with pytest.raises(KitError, match="are both shard 1/2"):
        batch.read_shards([first, shard_record(tmp_path / "c", 1)])
    with pytest.raises(KitError, match="shard 2/2 missing: grade it"):
        batch.read_shards([first])
    with pytest.raises(KitError, match="not graded alike \\(grading_digest"):
        batch.read_shards([first, shard_record(tmp_path / "d", 2, digest="other")])
    with pytest.raises(KitError, match="not graded alike \\(shards"):
        batch.read_shards([first, shard_record(tmp_path / "e", 2, shards=3)])
    with pytest.raises(KitError, match="is one of the shards' folders"):
        batch.merge(tmp_path, [first, second], second)


def test_a_merge_copies_a_students_results_after_the_rest_of_their_folder(tmp_path, monkeypatch):
    """Is a shard's results.json copied after the student's feedback and notebook, so that a merge stopped half way
    (a full disk) leaves no results.json that the next merge would read as copied, the feedback never there?"""
    shard = batch.student_folder(tmp_path / "shard", "ada")
    shard.mkdir(parents=True)
    for name in ("feedback.html", "feedback.md", "results.json", "submission.ipynb", "code.json"):
        (shard / name).write_text(name)
    copied, copy2 = [], shutil.copy2

    def copy(source, target, **kwargs):
        copied.append(Path(source).name)
        return copy2(source, target, **kwargs)

    monkeypatch.setattr(batch.shutil, "copy2", copy)
    batch._copy_student(tmp_path / "shard", tmp_path / "out", "ada", kept=True)
    assert copied[-1] == "results.json" and sorted(copied) == sorted(p.name for p in shard.iterdir())
    assert (batch.student_folder(tmp_path / "out", "ada") / "feedback.md").read_text() == "feedback.md"
