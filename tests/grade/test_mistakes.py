"""Mutation testing of the graders: does every known mistake lose points where it should, and only there?"""

import pytest

from autograder import assignments
from autograder.author import blocks
from autograder.grade import mistakes

from ..conftest import NAMES, lost_names

CATALOGUE = [(name, mistake) for name in NAMES for mistake in mistakes.catalogue(assignments.get(name))]


def test_each_mistake_edits_its_own_definition(assignment):
    """Does each catalogue entry's text occur once in the reference, inside the definition it targets?"""
    text = assignment.reference_path.read_text()
    definitions = {block.name: block.source for block in blocks.read_blocks(assignment)[1]}
    ids = [m.id for m in mistakes.catalogue(assignment)]
    assert len(ids) == len(set(ids))
    for mistake in mistakes.catalogue(assignment):
        assert text.count(mistake.old) == 1, mistake.id
        assert mistake.old in definitions[mistake.target], f"{mistake.id} does not edit {mistake.target}"


def test_catalogue_covers_every_graded_name(assignment):
    """Has every graded name at least one known mistake, and is the demo's mistake one of them?"""
    assert {m.target for m in mistakes.catalogue(assignment)} == set(assignment.graded)
    assert assignment.demo_mistake in {m.id for m in mistakes.catalogue(assignment)}


@pytest.mark.slow
@pytest.mark.parametrize("name, mistake", CATALOGUE, ids=[f"{name}-{m.id}" for name, m in CATALOGUE])
def test_a_mistake_loses_points_on_its_name_only(graders, name, mistake, tmp_path):
    """Does the reference with this mistake lose points on its name, get named, and keep full marks on names that do not call it?"""
    assignment = assignments.get(name)
    path = tmp_path / f"{mistake.id}.py"
    path.write_text(mistake.source(assignment.reference_path.read_text()))
    report = graders(assignment).grade(path)
    lost = set(lost_names(report))
    assert mistake.target in lost
    assert lost <= {mistake.target} | mistakes.callers(assignment)[mistake.target]
    assert mistake.id in report.mistakes()
    feedback = "\n".join(check.message for check in report.checks)
    assert mistake.message in feedback
