"""Do the visible checks catch the known mistakes, on inputs that the hidden checks never use?"""

import warnings
from functools import cache

import numpy as np
import pytest

from autograder import assignments
from autograder.author.visible import visible_data
from autograder.grade import mistakes
from autograder.grade.engine import ReferenceView, run_check
from autograder.grade.plan import collect
from autograder.grade.reference import Reference
from autograder.public import wire
from autograder.public.selfcheck import VisibleChecks

from ..conftest import NAMES

CATALOGUE = [(name, mistake) for name in NAMES for mistake in mistakes.catalogue(assignments.get(name))]

# Known mistakes that no visible check catches, with the reason; keep this short. A
# visible check that caught one of these would have to show what a hidden one checks.
UNCAUGHT: dict[str, str] = {
    "attention_scaled_by_sqrt_d_v": "the visible attention inputs have values as wide as the keys (d_v = d_k), "
    "where dividing by sqrt(d_v) is right; the hidden checks give values of another width",
}


@cache
def checks_of(name: str) -> VisibleChecks:
    return VisibleChecks(visible_data(assignments.get(name)))


@cache
def hidden_calls(name: str) -> tuple[tuple[str, dict], ...]:
    """Every (probe id, inputs) the hidden checks ask of a submission, found by running them on the reference."""
    assignment = assignments.get(name)
    reference = Reference.of(assignment)
    record: list = []
    for check in collect(assignment):
        run_check(
            check, {"student": ReferenceView(reference, record=record), "reference": reference, "submission": None}
        )
    return tuple(record)


def _data_inputs(inputs: dict, graded: tuple[str, ...]) -> dict:
    """The inputs a student could copy: arrays of more than one number, texts and token lists (not the name of
    the module a probe builds, the arguments it builds it with, nor the attributes it reads)."""
    return {
        key: value
        for key, value in inputs.items()
        if (isinstance(value, np.ndarray) and value.size > 1)
        or (
            isinstance(value, (str, list, tuple, dict))
            and not (key == "name" and value in graded)
            and key not in ("args", "paths")
        )
    }


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", NAMES)
def test_visible_inputs_are_not_hidden_ones(name):
    """Does every visible check use inputs of its own: no hidden call, and no text or array of one?"""
    hidden = hidden_calls(name)
    digests = {wire.digest(probe_id, inputs) for probe_id, inputs in hidden}
    for case in assignments.get(name).module("visible").VISIBLE:
        probe_id = case.probe.probe_id
        assert wire.digest(probe_id, case.inputs) not in digests, case.title
        for key, value in _data_inputs(case.inputs, assignments.get(name).graded).items():
            shared = [
                inputs
                for hidden_probe, inputs in hidden
                if hidden_probe == probe_id and key in inputs and _same(inputs[key], value)
            ]
            assert not shared, f"{case.title}: its {key} is a hidden input"


@pytest.mark.slow
@pytest.mark.parametrize("name, mistake", CATALOGUE, ids=[f"{name}-{m.id}" for name, m in CATALOGUE])
def test_every_catalogued_mistake_fails_its_visible_check(name, mistake):
    """Does a visible check of the mistake's name fail on it, and name it?"""
    checks = checks_of(name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # a mistake may overflow or mislabel on purpose
        warnings.simplefilter("ignore")
        outcomes = checks.run(mistakes.with_mistake(assignments.get(name), mistake).impl, mistake.target)
    failed = [outcome for outcome in outcomes if not outcome.passed]
    if mistake.id in UNCAUGHT:
        assert not failed, f"{mistake.id} is caught now: take it out of UNCAUGHT"
        return
    assert failed, f"no visible check of {mistake.target} fails on {mistake.id}"
    # named, or a mistake the student hears the same words for (a softmax slip masking with -1e9 behaves as the
    # one masking with -inf wherever no slice is blocked whole, as on every visible input)
    said = {m.id: m.message for m in mistakes.catalogue(assignments.get(name))}
    named = {said[found] for outcome in failed for found in outcome.mistakes if found in said}
    assert mistake.message in named, f"the visible checks that fail do not name {mistake.id}"


def test_a_mask_that_is_not_bool_fails_a_visible_check(mha):
    """Do integer and float masks with the right values fail the check of their dtype, and hear why?"""
    import json

    import torch

    from autograder.author import bundle, release
    from autograder.public.probing import Implementation

    mha.module("probes")  # registers the probes the checks name
    notebook = json.loads((mha.release_dir / mha.notebook_name).read_text())
    checks = VisibleChecks(json.loads(bundle.files_of_cell(release.bundle_cell(notebook))["visible.json"]))

    def make_padding_mask(token_ids, pad_id=0):
        return (token_ids != pad_id)[:, None, None, :].long()

    def make_causal_mask(size):
        return torch.tril(torch.ones(size, size))[None, None]

    impl = Implementation({"make_padding_mask": make_padding_mask, "make_causal_mask": make_causal_mask})
    for name, dtype, mistake in [
        ("make_padding_mask", "int64", "padding_mask_long"),
        ("make_causal_mask", "float32", "causal_mask_float"),
    ]:
        failed = [outcome for outcome in checks.run(impl, name) if not outcome.passed]
        assert [outcome.title for outcome in failed] == ["returns a bool tensor, so that masks combine with &"]
        assert f"got '{dtype}', expected 'bool'" in failed[0].message and "return a bool tensor" in failed[0].message
        assert failed[0].mistakes == (mistake,)


def test_uncaught_mistakes_are_catalogued():
    """Does every exception of the visible checks name a catalogued mistake?"""
    assert set(UNCAUGHT) <= {mistake.id for _, mistake in CATALOGUE}
