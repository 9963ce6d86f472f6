"""Are submissions written independently of the kit graded as a careful instructor would?

tests/data/heldout/<assignment>/ holds correct submissions in many styles and forms and
buggy ones with one bug each; expected.json lists, for each, the names that must
lose points ("loses") and, where a catalogue entry describes the bug, its id ("named"),
which the feedback must name.
"""

import json

import pytest

from autograder import KIT_ROOT, assignments

from ..conftest import NAMES, lost_names

HELDOUT = KIT_ROOT / "tests" / "data" / "heldout"
CASES = [
    (name, entry, expected)
    for name in NAMES
    if (HELDOUT / name / "expected.json").exists()
    for entry, expected in sorted(json.loads((HELDOUT / name / "expected.json").read_text()).items())
]


def test_every_assignment_has_a_heldout_set():
    assert {name for name, _, _ in CASES} == set(NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("name, entry, expected", CASES, ids=[f"{n}-{e.rstrip('/')}" for n, e, _ in CASES])
def test_heldout_submission(graders, name, entry, expected):
    """Does this submission lose points exactly on the names its bug reaches, with its known mistake named?"""
    report = graders(assignments.get(name)).grade(HELDOUT / name / entry.rstrip("/"))
    assert not report.internal_errors()
    assert lost_names(report) == sorted(expected["loses"]), expected["why"]
    if "named" in expected:
        assert expected["named"] in report.mistakes(), report.mistakes()


def test_named_mistakes_are_catalogued():
    """Is every mistake a held-out entry must hear named an entry of its assignment's catalogue?"""
    from autograder.grade import mistakes

    for name, entry, expected in CASES:
        if "named" in expected:
            assert expected["named"] in {m.id for m in mistakes.catalogue(assignments.get(name))}, entry
