"""Is each assignment what its folder solutions/<name>/ says: its graded names, framework, points, written answers?"""

import shutil

import pytest

from autograder import assignments
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
