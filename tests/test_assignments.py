"""Is each assignment what its folder solutions/<name>/ says: its graded names, framework, points, written answers?"""

import shutil

import pytest

from autograder import KIT_ROOT, assignments
from autograder.errors import KitError


@pytest.mark.parametrize(
    "table, problem",
    [
        ("[written]\nwhy = -1\n", "points for written.why must be a number >= 0"),
        ("[written]\n'why not' = 1\n", "written answer id 'why not' must be letters"),
        ("[written]\nsoftmax = 1\n", "and not the name of an exercise"),
        ("written = 3\n", "[written] must be a table"),
    ],
    ids=["negative points", "not an id", "an exercise's name", "not a table"],
)
@pytest.mark.usefixtures("forgets_the_edit")
def test_points_toml_refuses_a_wrong_written_table(monkeypatch, tmp_path, table, problem):
    """Is a [written] table with a bad id or points refused, naming the file and the entry?"""
    source = assignments.get("attention_numpy")
    (tmp_path / "copy").mkdir()
    shutil.copy(source.reference_path, tmp_path / "copy" / "reference.py")
    exercises = "".join(f"{name} = 1\n" for name in source.graded)
    (tmp_path / "copy" / "points.toml").write_text(exercises + table)
    monkeypatch.setattr(assignments, "SOLUTIONS", tmp_path)
    with pytest.raises(KitError) as error:
        _ = assignments.Assignment("copy").written
    assert problem in str(error.value) and "points.toml" in str(error.value)
    assert assignments.Assignment("copy").points == dict.fromkeys(source.graded, 1.0)  # the exercises' points stand


REFERENCE = '''"""A tiny assignment."""

from torch import nn


def helper(x):
    return x


def first(x):
    ### BEGIN SOLUTION
    return x
    ### END SOLUTION


class Second(nn.Module):
    def forward(self, x):
        ### BEGIN SOLUTION
        return x
        ### END SOLUTION
'''


@pytest.fixture
def course(monkeypatch, tmp_path, forgets_the_edit):
    """A solutions/ folder of our own: tiny/ with REFERENCE and points for its two exercises."""
    monkeypatch.setattr(assignments, "SOLUTIONS", tmp_path)
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "reference.py").write_text(REFERENCE)
    (tmp_path / "tiny" / "points.toml").write_text("first = 1\nSecond = 2.5\n")
    return tmp_path


def test_the_graded_names_are_the_definitions_with_a_solution_region_in_file_order(course):
    """Are the exercises the functions and classes holding a region, in file order, helpers left out?"""
    assert assignments.Assignment("tiny").graded == ("first", "Second")


def test_a_reference_without_an_exercise_is_refused_with_the_fix(course):
    """Is a reference with no solution region refused, saying how to mark an exercise?"""
    (course / "tiny" / "reference.py").write_text("def f(x):\n    return x\n")
    with pytest.raises(KitError, match="has no exercise: mark each one's code with ### BEGIN SOLUTION"):
        _ = assignments.Assignment("tiny").graded


@pytest.mark.parametrize(
    "imports, framework",
    [("from torch import nn", "torch"), ("import torch.nn.functional as F", "torch"), ("import numpy as np", "numpy")],
)
def test_the_framework_is_torch_when_the_reference_imports_it(course, imports, framework):
    """Is the framework PyTorch for any import of torch (plain or from), else NumPy?"""
    path = course / "tiny" / "reference.py"
    path.write_text(REFERENCE.replace("from torch import nn", imports).replace("(nn.Module)", ""))
    assert assignments.Assignment("tiny").framework == framework


def test_points_are_floats_in_the_graded_order(course):
    """Are points.toml's points read per graded name, as floats, in the exercises' order (the table's aside)?"""
    (course / "tiny" / "points.toml").write_text("Second = 2\nfirst = 1\n")
    points = assignments.Assignment("tiny").points
    assert list(points.items()) == [("first", 1.0), ("Second", 2.0)]


@pytest.mark.parametrize(
    "table, problem",
    [
        ("first = 1\n", "unknown: none, missing: ['Second']"),
        ("first = 1\nSecond = 1\nthird = 1\n", "unknown: ['third'], missing: none"),
        ("first = 1\nSecond = -1\n", "points for Second must be a number >= 0, got -1"),
        ("first = 1\nSecond = true\n", "points for Second must be a number >= 0, got True"),
        ("first = 1\nSecond = '2'\n", "points for Second must be a number >= 0, got '2'"),
        ("first = 1\nSecond = \n", "points.toml: "),
    ],
    ids=["missing", "unknown", "negative", "a bool", "a string", "not TOML"],
)
def test_a_wrong_points_table_is_refused_naming_the_file_and_the_entry(course, table, problem):
    """Is a points.toml that misses a graded name, names another, gives a non-number, or is not TOML refused with why?"""
    (course / "tiny" / "points.toml").write_text(table)
    with pytest.raises(KitError) as refused:
        _ = assignments.Assignment("tiny").points
    assert str(course / "tiny" / "points.toml") in str(refused.value) and problem in str(refused.value)


def test_the_title_is_the_lessons_first_heading(course):
    """Is an assignment's title its lesson's first heading, and its name where the lesson has none?"""
    lesson = course / "tiny" / "lesson.md"
    lesson.write_text("Some words.\n\n## A section first\n\n#  Attention, tiny  \n")
    assert assignments.Assignment("tiny").title == "Attention, tiny"
    lesson.write_text("No heading.\n")
    assert assignments.Assignment("tiny").title == "tiny"


def test_discover_finds_the_folders_with_a_reference_named_like_a_module(course):
    """Are only folders holding a reference.py, whose name Python can import, assignments, sorted by name?"""
    for folder in ("alpha", "not-a-name", "empty"):
        (course / folder).mkdir()
    (course / "alpha" / "reference.py").write_text(REFERENCE)
    (course / "not-a-name" / "reference.py").write_text(REFERENCE)
    assert list(assignments.discover()) == ["alpha", "tiny"] == assignments.names()
    assert assignments.get("alpha") == assignments.Assignment("alpha")


def test_an_unknown_assignment_is_refused_naming_the_known_ones(course):
    """Is a misspelt assignment refused, listing the course's assignments and where they are looked for?"""
    with pytest.raises(KitError) as refused:
        assignments.get("tinny")
    assert f"unknown assignment 'tinny': the kit has tiny (folders of {course} with a reference.py)" == str(
        refused.value
    )


def test_an_assignment_finds_its_files_and_its_modules(mha):
    """Are an assignment's files in its folder, its generated files where the README says, its modules importable?"""
    assert mha.reference_path == KIT_ROOT / "solutions" / "mha" / "reference.py"
    assert mha.stub_path == KIT_ROOT / "assignments" / "mha.py"
    assert mha.release_dir / mha.notebook_name == KIT_ROOT / "release" / "mha" / "mha.ipynb"
    assert mha.source_dir == KIT_ROOT / "source" / "mha"
    assert mha.module("mistakes").__name__ == "autograder.course.mha.mistakes"
    assert mha.demo_mistake == mha.module("mistakes").DEMO


@pytest.mark.usefixtures("forgets_the_edit")
def test_carry_forward_is_on_unless_points_toml_says_otherwise(mha):
    """Is error carried forward on by default, read from points.toml, and a value other than true or false refused?"""
    assert mha.carry_forward is True
    for table, expected in (({}, True), ({"carry_forward": False}, False)):
        assignment = assignments.Assignment("mha")
        assignment.__dict__["_points_table"] = {**dict.fromkeys(mha.graded, 1), **table}
        assert assignment.carry_forward is expected
        assert "carry_forward" not in assignment.points
    assignment = assignments.Assignment("mha")
    assignment.__dict__["_points_table"] = {**dict.fromkeys(mha.graded, 1), "carry_forward": "yes"}
    with pytest.raises(KitError, match="carry_forward must be true or false"):
        assert assignment.carry_forward
