"""Does the synthetic class look, to the class views, as a graded class does: code.json as grading keeps it,
results.json as the kit's writer writes it, groups of the same mistake, and copies?"""

import json

import pytest

from autograder import assignments
from autograder.deliver.class_view.clusters import failing
from autograder.deliver.class_view.sources import code_record, read_record, record_key
from autograder.deliver.grade_all.regrade import submission_digest
from autograder.results.read import read_results_file
from autograder.synthetic import COPIED, PARTLY, make_class, students


@pytest.mark.slow
def test_a_synthetic_class_is_what_grading_leaves(tmp_path):
    """For each student of a class of 60: is code.json what grading's worker would keep of their module, does
    results.json read back graded, failing exactly the names that hold a mistake (named where the catalogue knows
    it), and is the same class made from the same seed?"""
    mha = assignments.get("mha")
    made = make_class(60, tmp_path / "class", tmp_path / "out", seed=8)
    assert [s.source for s in made] == [s.source for s in students(mha, 60, seed=8)]
    named = 0
    for student in made:
        path = tmp_path / "class" / f"{student.key}.py"
        folder = tmp_path / "out" / "students" / student.key
        kept = read_record(folder, record_key(submission_digest(path), mha))
        assert kept == code_record(path, mha), student.key
        results = read_results_file(folder / "results.json")
        assert results.status == "graded" and results.submission_digest == submission_digest(path)
        assert set(failing(results)) == set(student.mistakes)
        named += len(results.mistakes)
        assert set(results.mistakes) <= set(student.mistakes.values())
        assert json.loads((folder / "results.json").read_text())["extra_data"]["student"]["name"] == student.key
    assert named and sum(len(s.mistakes) for s in made) > named  # some slips the catalogue does not know


def test_some_students_copy():
    """Does about COPIED + PARTLY of a class hand in an earlier student's definitions, reordered, whole or but one?"""
    made = students(assignments.get("mha"), 1000, seed=2)
    seen: dict[frozenset, str] = {}
    copies = 0
    for student in made:
        own = frozenset(piece.source for _, piece in student.definitions)
        copies += own in seen or any(len(own - earlier) == 1 for earlier in seen)
        seen.setdefault(own, student.key)
    assert 0.5 * (COPIED + PARTLY) * 1000 < copies < 2 * (COPIED + PARTLY) * 1000
