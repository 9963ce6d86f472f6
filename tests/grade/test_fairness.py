"""Are submissions adapted from public code graded fairly, and are their mistakes named?

tests/data/fairness/<assignment>/ holds correct submissions in the styles of public code and
ones that keep one real mistake seen there; expected.json lists, for each, the names
that must lose points ("loses") and, for a mistake, the catalogue id its feedback must
name ("named", null where no catalogue entry can explain it, with "why" saying so).
tests/data/fairness/FINDINGS.md describes the set.
"""

import json

import pytest

from autograder import KIT_ROOT, assignments
from autograder.grade import mistakes

from ..conftest import NAMES, lost_names

FAIRNESS = KIT_ROOT / "tests" / "data" / "fairness"
# The share of the set's real mistakes whose feedback names a catalogue entry, at least.
NAMED_SHARE = 0.8

CASES = [
    (name, entry, expected)
    for name in NAMES
    if (FAIRNESS / name / "expected.json").exists()
    for entry, expected in sorted(json.loads((FAIRNESS / name / "expected.json").read_text()).items())
]
MISTAKES = [(name, entry, expected) for name, entry, expected in CASES if expected["loses"]]


def test_every_assignment_has_a_fairness_set():
    assert {name for name, _, _ in CASES} == set(NAMES)


def test_each_mistake_says_what_it_must_be_named():
    """Does every entry with a mistake give the catalogue id to name, or null with the reason?"""
    for name, entry, expected in MISTAKES:
        assert "named" in expected, entry
        ids = {mistake.id for mistake in mistakes.catalogue(assignments.get(name))}
        assert expected["named"] is None or expected["named"] in ids, (
            f"{entry}: {expected['named']} is not in {name}'s catalogue"
        )
    for _name, entry, expected in CASES:
        assert expected["loses"] or "named" not in expected, f"{entry} has no mistake to name"


def named_share() -> list[str]:
    """Per assignment and in all, how many of the set's real mistakes must hear a catalogue entry named."""
    lines = []
    for name in [*NAMES, None]:
        mine = [expected for n, _, expected in MISTAKES if name is None or n == name]
        named = sum(expected["named"] is not None for expected in mine)
        lines.append(f"{name or 'all'}: {named} of {len(mine)} real mistakes named ({named / max(len(mine), 1):.0%})")
    return lines


def test_most_mistakes_are_named(capsys):
    """Is a catalogue entry named for at least NAMED_SHARE of the set's mistakes, all assignments together?
    (test_fairness_submission checks that each one is named when graded.) The shares are printed."""
    named = sum(expected["named"] is not None for _, _, expected in MISTAKES)
    with capsys.disabled():
        print("\nfairness set, named share: " + "; ".join(named_share()))
    assert MISTAKES and named / len(MISTAKES) >= NAMED_SHARE, f"{named} of {len(MISTAKES)} mistakes are named"


@pytest.mark.slow
@pytest.mark.parametrize("name, entry, expected", CASES, ids=[f"{n}-{e}" for n, e, _ in CASES])
def test_fairness_submission(graders, name, entry, expected):
    """Does this submission lose points exactly where its mistake reaches, with that mistake named?"""
    report = graders(assignments.get(name)).grade(FAIRNESS / name / entry)
    assert not report.internal_errors()
    assert lost_names(report) == sorted(expected["loses"]), expected["why"]
    if expected.get("named"):
        assert expected["named"] in report.mistakes(), report.mistakes()
