"""Does the class report count the graded students only, and list everyone who was not graded, with why?"""

import os
from pathlib import Path

import pytest

from autograder.deliver.class_view import report
from autograder.deliver.class_view.report import class_figures, report_text, write_report
from autograder.deliver.intake import Intake
from autograder.results.outcome import KIT_ERROR
from autograder.results.read import read_results
from autograder.results.write import gradescope_json, not_graded_json

from ..students import student_report


def class_results() -> dict:
    broken = gradescope_json(student_report())
    broken["extra_data"]["status"] = KIT_ERROR  # graded, but a check of the kit broke: out of the figures
    return {
        "ada": read_results(gradescope_json(student_report())),
        "ben": read_results(gradescope_json(student_report())),
        "cleo": read_results(broken),
        "dev": read_results(not_graded_json("no notebook", "mha", student_fault=True)),
    }


def test_the_figures_are_the_graded_students(mha):
    """Are the totals, full marks per exercise and mistakes those of the graded students alone?"""
    figures = class_figures(mha, class_results())
    assert figures["students"] == 2 and [float(t) for t in figures["totals"]] == [31.2, 31.2]
    assert figures["full_marks"]["tokenize"] == 2 and figures["full_marks"]["PositionalEncoding"] == 0
    assert figures["mistakes"] == {"positional_cosine_exponent_off_by_one": 2}
    assert figures["max_score"] == sum(mha.points.values())


def test_the_report_lists_who_was_not_graded(mha, tmp_path):
    """Do report.txt and report.png get written, the text naming each student not graded and each entry left out?"""
    status = {
        "ada": ("graded", ""),
        "cleo": ("error", "the kit failed on some checks"),
        "dev": ("not graded", "no notebook"),
    }
    intake = Intake("folders", [], [("notes.txt", "not a submission")])
    text = write_report(mha, tmp_path, intake, class_results(), status)
    assert (tmp_path / "report.txt").read_text() == text and (tmp_path / "report.png").stat().st_size > 10_000
    assert text.startswith("mha: 2 students graded\nscore: mean 31.20, median 31.20, lowest 31.2, highest 31.2")
    assert "not graded (2):\n  cleo: error: the kit failed on some checks\n  dev: not graded: no notebook" in text
    assert "left out of the class (1): not submissions\n  notes.txt: not a submission" in text
    assert report_text(mha, class_figures(mha, {}), {}, []) == "mha: no graded submissions\n"


def test_an_exercise_a_results_json_does_not_list_earned_nothing(mha):
    """A graded results.json from an older kit, without one exercise: counted as no full marks, not a crash?"""
    document = gradescope_json(student_report())
    del document["extra_data"]["by_name"]["tokenize"]
    document["tests"] = [t for t in document["tests"] if t.get("tags") != ["tokenize"]]
    figures = class_figures(mha, {"ada": read_results(document)})
    assert figures["students"] == 1 and figures["full_marks"]["tokenize"] == 0


def test_no_student_graded_still_writes_the_report(mha, tmp_path: Path):
    """With no student graded, are report.txt and report.png written all the same, saying so?"""
    intake = Intake("folders", [], [])
    assert write_report(mha, tmp_path, intake, {}, {}) == "mha: no graded submissions\n"
    assert (tmp_path / "report.png").exists()


def test_the_figure_is_drawn_again_only_when_it_changes(mha, tmp_path, monkeypatch):
    """Is report.png drawn once for the same figures (matplotlib is the report's slowest part), and again when a
    student's points change or the picture is gone?"""
    drawn = []
    real = report.report_figure

    def counted(assignment, figures, path):
        drawn.append(figures["students"])
        real(assignment, figures, path)

    monkeypatch.setattr(report, "report_figure", counted)
    intake = Intake("folders", [], [])
    results = class_results()
    write_report(mha, tmp_path, intake, results, {})
    write_report(mha, tmp_path, intake, class_results(), {})
    assert drawn == [2]
    del results["ben"]
    write_report(mha, tmp_path, intake, results, {})
    (tmp_path / "report.png").unlink()
    write_report(mha, tmp_path, intake, results, {})
    assert drawn == [2, 1, 1] and (tmp_path / "report.png").exists()


@pytest.mark.slow
def test_a_figure_drawn_by_a_process_of_its_own_is_the_same_and_kept(mha, tmp_path, monkeypatch):
    """Started in a process of its own (grade-all with jobs), is report.png the figure drawn here, byte for byte, and
    its key kept, so that a rerun draws nothing; and is it drawn here where that process failed, or where the
    figures changed after it started?"""
    intake = Intake("folders", [], [])
    here, apart = tmp_path / "here", tmp_path / "apart"
    here.mkdir(), apart.mkdir()
    write_report(mha, here, intake, class_results(), {})
    write_report(mha, apart, intake, class_results(), {}, drawing=report.start_figure(mha, apart, class_results()))
    assert (apart / "report.png").read_bytes() == (here / "report.png").read_bytes()

    parent, drawn = os.getpid(), []
    real = report.report_figure

    def only_here(assignment, figures, path):
        if os.getpid() != parent:
            os._exit(3)  # the process of its own fails
        drawn.append(figures["students"])
        real(assignment, figures, path)

    monkeypatch.setattr(report, "report_figure", only_here)
    write_report(mha, apart, intake, class_results(), {}, drawing=report.start_figure(mha, apart, class_results()))
    assert drawn == []  # the same figures: nothing started, nothing drawn
    fewer = class_results()
    del fewer["ben"]
    write_report(mha, apart, intake, fewer, {}, drawing=report.start_figure(mha, apart, fewer))
    assert drawn == [1]  # its process failed: drawn here
    monkeypatch.setattr(report, "report_figure", real)
    started = report.start_figure(mha, apart, class_results())
    monkeypatch.setattr(report, "report_figure", only_here)
    write_report(mha, apart, intake, fewer, {}, drawing=started)
    assert drawn == [1, 1]  # drawn there for two students, here again for the one left
    write_report(mha, apart, intake, fewer, {})
    assert drawn == [1, 1]
