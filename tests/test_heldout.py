"""Are submissions written independently of the kit graded as a careful instructor would?

tests/heldout/mha/ holds correct submissions in many styles and forms and buggy ones
with one bug each; expected.json lists, for each, the names that must lose points.
"""
import json

import pytest

from autograder import KIT_ROOT

from .conftest import lost_names

HELDOUT = KIT_ROOT / "tests" / "heldout" / "mha"
EXPECTED = json.loads((HELDOUT / "expected.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted(EXPECTED), ids=lambda e: e.rstrip("/"))
def test_heldout_submission(mha_grader, entry):
    """Does this submission lose points exactly on the names its bug reaches?"""
    report = mha_grader.grade(HELDOUT / entry.rstrip("/"))
    assert not report.internal_errors()
    assert lost_names(report) == sorted(EXPECTED[entry]["loses"]), EXPECTED[entry]["why"]
