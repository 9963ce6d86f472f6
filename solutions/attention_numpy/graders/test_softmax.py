"""Hidden checks of softmax: stable, along the axis asked for, any number of dimensions."""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same, require, rng

from .. import probes

GRADED = "softmax"


def scores(seed, *shape, scale=3.0):
    return rng(seed).standard_normal(shape) * scale


CASES = {
    "a vector": (scores(1, 7), -1),
    "rows of a matrix": (scores(2, 4, 6), -1),
    "columns of a matrix (axis 0)": (scores(3, 5, 3), 0),
    "the middle axis of a 3-D array": (scores(4, 2, 5, 3), 1),
    "axis=1 of a matrix, named positively": (scores(5, 3, 4), 1),
    "one entry": (scores(6, 1, 1), -1),
    "equal scores": (np.full((2, 4), 2.5), -1),
}

LARGE = {
    "scores near 1000": (scores(7, 3, 5, scale=1.0) + 1000.0, -1),
    "scores near -1000": (scores(8, 3, 5, scale=1.0) - 1000.0, -1),
    "one huge score per row": (np.array([[1000.0, 1.0, 2.0], [3.0, 2000.0, -5.0]]), -1),
}


@pytest.mark.weight(2)
@pytest.mark.parametrize("x, axis", CASES.values(), ids=CASES.keys())
def test_weights_along_the_axis(student, reference, x, axis):
    """gives exp(x) / sum(exp(x)) along the axis asked for, so each slice sums to 1"""
    expect_same(student, reference, probes.softmax, {"x": x, "axis": axis}, keys=("out",))


@pytest.mark.parametrize("x, axis", LARGE.values(), ids=LARGE.keys())
def test_large_scores_do_not_overflow(student, reference, x, axis):
    """stays finite and right for scores of +-1000"""
    expect_same(student, reference, probes.softmax, {"x": x, "axis": axis}, keys=("out",))


def test_input_unchanged(student):
    """leaves the array it is given unchanged (its caller's scores): no -= or /= on x"""
    case = {"x": scores(9, 3, 4), "axis": -1}
    got = student.run(probes.softmax.probe_id, case)
    evidence = {"probe_id": probes.softmax.probe_id, "inputs": case, "got": got, "keys": ("input_kept",)}
    require(
        bool(got.get("input_kept", False)),
        "softmax changed the array it was given: after the call, the caller's scores are not what they were. "
        "Compute new arrays (shifted = x - m), never x -= m or x /= s on the input.",
        evidence,
    )
