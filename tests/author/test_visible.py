"""Are the visible checks' data what the self-checks need, and two builds' data told apart only by a real change?"""

import json

import numpy as np
import pytest

from autograder import assignments
from autograder.assignments import Assignment
from autograder.author import visible
from autograder.author.build import committed_bundle
from autograder.grade import mistakes as catalogue
from autograder.grade import recorded
from autograder.grade.reference import Reference
from autograder.public import wire


def committed_data(assignment) -> dict:
    """The visible data in the committed release, the assignment's probes registered (their tolerances compare them)."""
    assignment.module("probes")
    return json.loads(committed_bundle(assignment)[1]["visible.json"])


def test_freshness_allows_float_noise_and_catches_a_real_change(mha):
    """Are visible data from another CPU (last digits off) equivalent, and a changed value not?"""
    data = committed_data(mha)
    noisy, changed = json.loads(json.dumps(data)), json.loads(json.dumps(data))
    check = next(c for c in noisy["checks"] if c["probe"] == "mha.attention")
    values = np.array(check["expected"]["output"]["data"], dtype=np.float32)
    check["expected"]["output"]["data"] = (
        values * np.float32(1 + 3e-7)
    ).tolist()  # the 7th digit, as another CPU gives
    assert visible.equivalent(data, noisy)
    target = next(c for c in changed["checks"] if c["probe"] == "mha.attention")
    target["expected"]["output"]["data"][0] += 0.01  # a change the graders would see
    assert not visible.equivalent(data, changed)


def test_visible_data_keep_devices_with_their_arrays(mha):
    """Do the stored expected outputs of a tensor say so (device), as the grader's do?"""
    data = committed_data(mha)
    encode = next(c for c in data["checks"] if c["name"] == "encode")
    assert wire.device_of(wire.array_from_json(encode["expected"]["ids"])) == "cpu"


@pytest.fixture(scope="module")
def numpy_data():
    """attention_numpy's visible data as the committed release holds them."""
    return committed_data(assignments.get("attention_numpy"))


def copy(data: dict) -> dict:
    return json.loads(json.dumps(data))


def scaled(array: dict, factor: float) -> None:
    array["data"] = [value * factor for value in array["data"]]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["checks"][0].update(title="another title"),
        lambda d: d["hidden"]["softmax"].update(cases=12),
        lambda d: d["checks"].pop(),
        lambda d: d["checks"][0]["mistakes"][0].update(message="another message"),
        lambda d: d["checks"][0]["mistakes"].pop(),
        lambda d: scaled(d["checks"][0]["mistakes"][0]["outputs"]["out"], 1.01),
        lambda d: d["checks"][0]["expected"]["out"].update(dtype="<f4"),
        lambda d: d["checks"][0]["expected"]["out"].update(shape=[3, 2]),
        lambda d: d["checks"][4]["carried"]["records"].pop(),
        lambda d: d.update(carry_forward=False),
        lambda d: d["kinds"].update(softmax="module"),
    ],
    ids=[
        "a title",
        "the hidden summary",
        "a check fewer",
        "a mistake's message",
        "a mistake fewer",
        "a mistake's outputs",
        "a dtype",
        "a shape",
        "a recorded call fewer",
        "carry_forward",
        "an exercise's kind",
    ],
)
def test_any_change_but_float_noise_makes_the_data_differ(numpy_data, change):
    """Is every part of the data compared (text exactly, arrays by dtype, shape and tolerance), so a real change shows?"""
    changed = copy(numpy_data)
    change(changed)
    assert changed != numpy_data
    assert not visible.equivalent(numpy_data, changed)


def test_float_noise_within_the_probes_tolerance_is_the_same_data(numpy_data):
    """Are expected and mistaken outputs off in their last digits (another CPU's rounding) still equivalent?"""
    noisy = copy(numpy_data)
    scaled(noisy["checks"][0]["expected"]["out"], 1 + 1e-12)  # float64 outputs: the 12th digit
    scaled(noisy["checks"][0]["mistakes"][0]["outputs"]["out"], 1 + 1e-12)
    assert noisy != numpy_data and visible.equivalent(numpy_data, noisy)


def test_a_check_stores_only_the_mistakes_its_inputs_reveal():
    """Are only the outputs a check compares stored, and only the known mistakes that change them listed?"""
    numpy_assignment = assignments.get("attention_numpy")
    checks = visible.visible_checks(numpy_assignment, Reference.of(numpy_assignment))
    kept = next(check for check in checks if check["keys"] == ["input_kept"])
    assert list(kept["expected"]) == ["input_kept"]
    suspected = [mistake.id for mistake in catalogue.suspects(numpy_assignment, "softmax")]
    assert len(suspected) > 1 and [m["id"] for m in kept["mistakes"]] == ["softmax_in_place"]
    assert all("outputs" in m and "error" not in m for m in kept["mistakes"])


@pytest.mark.usefixtures("forgets_the_edit")
def test_recorded_calls_ship_only_where_errors_are_carried_forward(monkeypatch):
    """Do the checks of a caller hold the reference's calls, and none at all when points.toml turns carry_forward off?"""
    numpy_assignment = assignments.get("attention_numpy")
    on = visible.visible_checks(numpy_assignment, Reference.of(numpy_assignment))
    assert {c["name"] for c in on if "carried" in c} == {
        "basic_self_attention",
        "qkv_attention",
        "multi_head_attention",
    }
    off = Assignment("attention_numpy")
    off.__dict__["carry_forward"] = False
    assert not any("carried" in c for c in visible.visible_checks(off, Reference.of(off)))


def test_the_data_are_written_sorted_with_a_final_newline():
    """Is visible.json one stable text: keys sorted, one space of indent, a newline at the end?"""
    assert visible.visible_json({"b": 1, "a": [2]}) == '{\n "a": [\n  2\n ],\n "b": 1\n}\n'


def test_the_outputs_a_build_computes_are_kept_for_the_next(tmp_path, monkeypatch):
    """A build that finds the release up to date computes the visible data again: are the reference's and the
    mistakes' outputs it computed, the reference's recorded calls and its kinds of names kept in the store on disk, so
    that the next build runs none of their code?"""
    from autograder.grade import reference

    monkeypatch.setattr(reference, "CACHE", tmp_path)  # a store of this test's own
    numpy = assignments.get("attention_numpy")
    first = visible.visible_data(numpy)
    (stored,) = tmp_path.glob("attention_numpy-*.npz")
    kept = reference.OutputStore(stored)
    cases = numpy.module("visible").VISIBLE
    assert all(kept.get("reference", wire.digest(case.probe.probe_id, case.inputs)) for case in cases)
    suspect = next(m for case in cases for m in catalogue.suspects(numpy, case.name))
    assert any(kept.get(suspect.id, wire.digest(case.probe.probe_id, case.inputs)) for case in cases)

    def refuse(*args, **kwargs):
        raise AssertionError("the second build ran reference or mistake code")

    reference._store.cache_clear()  # the store read back from disk, as by the next build's process
    catalogue._with_mistake.cache_clear()
    for module in (reference, recorded, catalogue):
        monkeypatch.setattr(module, "exec_source", refuse)
    again = visible.visible_data(numpy)  # outputs, recorded calls and kinds: all from the store
    assert [c["name"] for c in again["checks"] if "carried" in c] and again["kinds"] == first["kinds"]
    assert visible.visible_json(again) == visible.visible_json(first)
