"""Is a submission's assignment inferred, and are the release's own demo cells known, without running anything?"""

import json

import pytest

from autograder import KIT_ROOT, assignments
from autograder.errors import KitError
from autograder.grade.submission import demo_cell_digests, infer_assignment
from autograder.public.loader import cell_digest


@pytest.mark.parametrize(
    "path, name",
    [
        ("release/mha/mha.ipynb", "mha"),
        ("solutions/mha/reference.py", "mha"),
        ("assignments/mha.py", "mha"),
        ("tests/data/heldout/mha/correct_repo", "mha"),
        ("release/attention_numpy/attention_numpy.ipynb", "attention_numpy"),
        ("assignments/attention_numpy.py", "attention_numpy"),
        ("release/encoder_block/encoder_block.ipynb", "encoder_block"),
        ("assignments/encoder_block.py", "encoder_block"),
        # it also defines MultiHeadAttention (given code here, an exercise of mha): most names win
        ("tests/data/heldout/encoder_block/correct_torch_style.py", "encoder_block"),
    ],
)
def test_assignment_is_inferred(path, name):
    """Is --assignment optional when the submission makes it clear?"""
    assert infer_assignment(KIT_ROOT / path).name == name


def test_unknown_submission_is_a_clear_error(tmp_path):
    """Does a folder with nothing gradable say what to do?"""
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(KitError, match="pass --assignment"):
        infer_assignment(tmp_path)


def test_demo_cells_are_the_releases_code_cells_that_nbgrader_does_not_mark():
    """Are the demo cells exactly the release's code cells without nbgrader metadata (no exercise, no grade cell)?"""
    mha = assignments.get("mha")
    cells = json.loads((mha.release_dir / mha.notebook_name).read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    demos = {cell_digest("".join(c["source"])) for c in code if "nbgrader" not in c.get("metadata", {})}
    marked = {cell_digest("".join(c["source"])) for c in code if "nbgrader" in c.get("metadata", {})}
    found = set(demo_cell_digests(mha))
    assert found == demos and demos and not (found & marked)
