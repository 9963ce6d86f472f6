"""Mutation testing of the graders: does every known mistake lose points where it should?"""
import pytest

from autograder import build, mutants

from .conftest import lost_names


def test_each_mistake_edits_its_own_definition(mha):
    """Does each catalogue entry's text occur once in the reference, inside the definition it targets?"""
    text = mha.reference_path.read_text()
    blocks = {block.name: block.source for block in build.read_blocks(mha)[1]}
    ids = [m.id for m in mutants.catalogue(mha)]
    assert len(ids) == len(set(ids))
    for mistake in mutants.catalogue(mha):
        assert text.count(mistake.old) == 1, mistake.id
        assert mistake.old in blocks[mistake.target], f"{mistake.id} does not edit {mistake.target}"


def test_catalogue_covers_every_graded_name(mha):
    """Has every graded name at least one known mistake?"""
    assert {m.target for m in mutants.catalogue(mha)} == set(mha.graded)


@pytest.mark.slow
@pytest.mark.parametrize("mistake", mutants.catalogue(__import__("autograder.assignments").assignments.get("mha")), ids=lambda m: m.id)
def test_mutant_loses_points_on_its_name_only(mha, mha_grader, mistake, tmp_path):
    """Does the mutant lose points on its name, get named, and keep full marks on names that do not call it?"""
    path = tmp_path / f"{mistake.id}.py"
    path.write_text(mistake.source(mha.reference_path.read_text()))
    report = mha_grader.grade(path)
    lost = set(lost_names(report))
    assert mistake.target in lost
    assert lost <= {mistake.target} | mutants.callers(mha)[mistake.target]
    assert mistake.id in report.mistakes()
    feedback = "\n".join(check.message for check in report.checks)
    assert mistake.message in feedback
