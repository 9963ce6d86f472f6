"""Mutation testing of the graders: does every known mistake lose points where it should, and only there?"""

import pytest

from autograder import assignments
from autograder.author import blocks
from autograder.grade import mistakes
from autograder.grade.engine import run_check
from autograder.grade.reference import Reference

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


@pytest.fixture(scope="module")
def numpy_assignment():
    return assignments.get("attention_numpy")


def run_as_student(assignment, mistake, name):
    """The hidden checks of ``name`` run on the reference with ``mistake`` made, as a student's results."""
    fixtures = {
        "student": mistakes.MistakeView(mistakes.with_mistake(assignment, mistake)),
        "reference": Reference.of(assignment),
        "submission": None,
    }
    return [run_check(check, fixtures) for check in mistakes._plan(assignment) if check.name == name]


def by_id(assignment, mistake_id):
    return next(m for m in mistakes.catalogue(assignment) if m.id == mistake_id)


def test_a_family_stands_for_one_mistake_per_value():
    """Does an entry with values stand for one mistake per value, each "{key}" of its texts filled, and other braces
    (a dict's, an f-string's) left as they are?"""
    family = mistakes.Mistake(
        "softmax_over_dim_{name}",
        "attention",
        "softmax(dim=-1)",
        "softmax(dim={dim}) if {'a': 1} else f'{x}'",
        "over dim={dim}",
        values=[{"name": "0", "dim": "0"}, {"name": "minus_3", "dim": "-3"}],
        line=r"dim\s*=\s*{dim}",
    )
    assert [(m.id, m.new, m.message, m.line, m.values) for m in family.members()] == [
        ("softmax_over_dim_0", "softmax(dim=0) if {'a': 1} else f'{x}'", "over dim=0", r"dim\s*=\s*0", ()),
        ("softmax_over_dim_minus_3", "softmax(dim=-3) if {'a': 1} else f'{x}'", "over dim=-3", r"dim\s*=\s*-3", ()),
    ]
    assert mistakes.Mistake("plain", "attention", "a", "b", "m").members()[0].id == "plain"


def test_a_slip_is_named_only_where_it_fails_exactly_the_students_cases(numpy_assignment):
    """Is a slip named for code whose failing cases it reproduces, every one, and not where the code passes a
    case the slip fails?"""
    slip = by_id(numpy_assignment, "softmax_without_axis")
    results = run_as_student(numpy_assignment, slip, "softmax")
    found = [m.id for m, _ in mistakes.diagnose(numpy_assignment, "softmax", results)]
    assert found == ["softmax_without_axis"]
    failing = [r for r in results if not r.passed]
    failing[0].passed = True  # the student's code passes a case the slip fails
    assert "softmax_without_axis" not in [m.id for m, _ in mistakes.diagnose(numpy_assignment, "softmax", results)]


def test_two_slips_made_in_one_code_are_named_together(numpy_assignment, monkeypatch):
    """Are two slips named together where the code makes both and neither alone reproduces every failing case,
    each with the cases it fails?"""
    monkeypatch.setattr(mistakes.store_of(numpy_assignment), "complete", True)  # as a grader's prepare leaves it
    first, second = by_id(numpy_assignment, "softmax_global_max"), by_id(numpy_assignment, "softmax_sum_over_axis_0")
    both = mistakes._both(numpy_assignment, first, second)
    results = run_as_student(numpy_assignment, both, "softmax")
    found = mistakes.diagnose(numpy_assignment, "softmax", results)
    assert sorted(m.id for m, _ in found) == ["softmax_global_max", "softmax_sum_over_axis_0"]
    failing = {mistakes.case_key(r) for r in results if not r.passed}
    assert all(cases <= failing for _, cases in found) and set().union(*(cases for _, cases in found)) == failing


def test_an_error_raised_by_another_line_is_not_the_slips(mha):
    """Is the IndexError of code whose key.transpose(2, 3) fails on 3-D inputs refused as softmax(dim=3)'s, which
    says the same words, and taken as the slip of the transposed key, or of code whose softmax raised it?"""
    inputs = run_as_student(mha, by_id(mha, "attention_key_transposed_2_3"), "scaled_dot_product_attention")
    evidence = next(r.evidence for r in inputs if not r.passed and r.evidence and "error" in r.evidence)
    where = " (in scaled_dot_product_attention, work.py, line 4: {})"
    error = evidence["error"].split(" (in ")[0]
    transposed = {**evidence, "error": error + where.format("k_t = k.transpose(2, 3)")}
    softmax = {**evidence, "error": error + where.format("weights = torch.softmax(scores, dim=3)")}
    assert not mistakes._explains(mha, by_id(mha, "softmax_dim_3"), transposed)
    assert mistakes._explains(mha, by_id(mha, "softmax_dim_3"), softmax)
    assert mistakes._explains(mha, by_id(mha, "attention_key_transposed_2_3"), transposed)


def test_the_slips_line_is_found_in_the_students_code():
    """Is the first line of the student's code that the slip's pattern finds quoted, without its comment, cut
    when long, and nothing where the slip has no pattern or the code no such line?"""
    slip = mistakes.Mistake("s", "attention", "a", "b", "m", line=r"softmax\(.*dim\s*=\s*2")
    code = "def attention(q, k):\n    s = q @ k\n    return F.softmax(s, dim=2)  # over the keys (wrongly)\n"
    assert mistakes.slip_line(slip, code) == "return F.softmax(s, dim=2)"
    assert mistakes.slip_line(slip, "def attention(q, k):\n    return q") is None
    assert mistakes.slip_line(mistakes.Mistake("s", "attention", "a", "b", "m"), code) is None
    long_line = "    return F.softmax(" + "s + " * 60 + "s, dim=2)"
    assert len(mistakes.slip_line(slip, long_line)) == mistakes.LINE_SHOWN
