"""Are submissions written independently of the kit graded as a careful instructor would?

tests/data/heldout/<assignment>/ holds correct submissions in many styles and forms and
buggy ones with one bug each; expected.json lists, for each, the names that must
lose points ("loses") and, where a catalogue entry describes the bug, its id ("named"),
which the feedback must name.

tests/data/heldout3/<assignment>/ holds code adapted from public sources the kit was not
written from (tests/data/heldout3/FINDINGS.md), each mistake one edit of a correct
adaptation; there the feedback must name exactly the ids expected ("named", and "also"
where the edit makes two slips) and nothing else: a wrong name fails the entry.
"""

import json

import pytest

from autograder import KIT_ROOT, assignments

from ..conftest import NAMES, lost_names

HELDOUT = KIT_ROOT / "tests" / "data" / "heldout"
UNSEEN = KIT_ROOT / "tests" / "data" / "heldout3"
# The share of the unseen set's mistakes whose feedback must name their slip, at least.
NAMED_SHARE = 0.8
CASES = [
    (name, entry, expected)
    for name in NAMES
    if (HELDOUT / name / "expected.json").exists()
    for entry, expected in sorted(json.loads((HELDOUT / name / "expected.json").read_text()).items())
]


UNSEEN_CASES = [
    (name, entry, expected)
    for name in NAMES
    for entry, expected in sorted(json.loads((UNSEEN / name / "expected.json").read_text()).items())
]
UNSEEN_MISTAKES = [(name, entry, expected) for name, entry, expected in UNSEEN_CASES if expected["loses"]]


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

    for name, entry, expected in CASES + UNSEEN_CASES:
        for named in [expected["named"], *expected.get("also", [])] if "named" in expected else []:
            assert named in {m.id for m in mistakes.catalogue(assignments.get(name))}, entry


def test_each_unseen_mistake_says_its_name_or_why_it_has_none():
    """Does every mistake of the unseen set give the id its feedback must name, or say why none can be?"""
    for _, entry, expected in UNSEEN_MISTAKES:
        assert ("named" in expected) != ("unnamed" in expected), entry


def test_most_unseen_mistakes_are_named(capsys):
    """Must the feedback name the slip of at least NAMED_SHARE of the unseen set's mistakes (each entry's own
    test checks that it does, and names nothing else)? The shares are printed."""
    lines = []
    for name in [*NAMES, None]:
        mine = [expected for n, _, expected in UNSEEN_MISTAKES if name is None or n == name]
        named = sum("named" in expected for expected in mine)
        lines.append(f"{name or 'all'}: {named} of {len(mine)} ({named / len(mine):.0%})")
    with capsys.disabled():
        print("\nunseen set, mistakes named: " + "; ".join(lines))
    named = sum("named" in expected for _, _, expected in UNSEEN_MISTAKES)
    assert named / len(UNSEEN_MISTAKES) >= NAMED_SHARE


@pytest.mark.slow
@pytest.mark.parametrize("name, entry, expected", UNSEEN_CASES, ids=[f"{n}-{e}" for n, e, _ in UNSEEN_CASES])
def test_unseen_submission(graders, name, entry, expected):
    """Does this submission of code the kit was not written from lose points exactly on the names its edit
    reaches, with its slip named and no other?"""
    report = graders(assignments.get(name)).grade(UNSEEN / name / entry)
    assert not report.internal_errors()
    assert lost_names(report) == sorted(expected["loses"]), expected["why"]
    names = {expected["named"], *expected.get("also", [])} if "named" in expected else set()
    assert set(report.mistakes()) == names, report.mistakes()
