"""Does `make demo` grade the reference, the blank release and a notebook with one bug, and print a table one reads at a glance?"""

from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace

import pytest

from autograder import assignments, demo
from autograder.author.build import build as demo_build


@dataclass
class Scored:
    """What score_table reads of a report: points per graded name and the total."""

    points: dict[str, tuple[Fraction, Fraction]]

    def by_name(self):
        return self.points

    @property
    def score(self):
        return sum((score for score, _ in self.points.values()), Fraction(0))

    @property
    def max_score(self):
        return sum((top for _, top in self.points.values()), Fraction(0))


def test_the_score_table_has_a_row_per_exercise_and_a_column_per_sample():
    """Are the rows the graded names and the total, the columns the samples, points in two decimals at most, aligned?"""
    assignment = SimpleNamespace(name="tiny", graded=("softmax", "qkv_attention"))
    reports = {
        "reference": Scored({"softmax": (Fraction(2), Fraction(2)), "qkv_attention": (Fraction(3), Fraction(3))}),
        "one bug": Scored({"softmax": (Fraction(2), Fraction(2)), "qkv_attention": (Fraction(5, 3), Fraction(3))}),
    }
    assert demo.score_table(assignment, reports).split("\n") == [
        "tiny           reference    one bug",
        "softmax              2/2        2/2",
        "qkv_attention        3/3     1.67/3",
        "total                5/5     3.67/5",
    ]


def test_the_demo_grades_the_reference_the_blank_release_and_one_bug():
    """Are the demo's samples the reference, the release notebook as handed out, and the sample with the demo's mistake?"""
    numpy_assignment = assignments.get("attention_numpy")
    samples = demo.samples(numpy_assignment)
    assert list(samples) == ["reference", "blank release", "one bug"]
    assert samples["reference"] == numpy_assignment.reference_path
    assert samples["blank release"] == numpy_assignment.release_dir / "attention_numpy.ipynb"
    assert samples["one bug"].name == f"one_bug_{numpy_assignment.demo_mistake}.ipynb"


@pytest.mark.slow
def test_the_demo_gives_full_marks_zero_and_names_the_bug(monkeypatch, tmp_path, capsys):
    """Run for attention_numpy (its gradebook and results in a scratch folder), does the demo print full marks for the
    reference, 0 for the blank release, and the demo's mistake named for the one-bug notebook?"""
    numpy_assignment = assignments.get("attention_numpy")
    monkeypatch.setattr(demo.assignments, "discover", lambda: {"attention_numpy": numpy_assignment})
    monkeypatch.setattr(demo, "build", lambda assignment: demo_build(assignment, course=tmp_path))
    monkeypatch.setattr(demo, "KIT_ROOT", tmp_path)
    monkeypatch.setattr(demo, "OUT", tmp_path / "out" / "demo")
    assert demo.demo() == 0
    out = capsys.readouterr().out
    assert out.startswith("built attention_numpy with nbgrader: updated ")  # the scratch course's gradebook.db
    total = next(line for line in out.splitlines() if line.startswith("total"))
    top = sum(numpy_assignment.points.values())
    assert total.split()[1:3] == [f"{top:g}/{top:g}", f"0/{top:g}"]
    assert f"one bug: the feedback names {numpy_assignment.demo_mistake}" in out
    assert (tmp_path / "out" / "demo" / "attention_numpy" / "one_bug" / "results.json").exists()
