"""Hidden checks of make_causal_mask."""

import pytest

from autograder.grade.authoring import expect_same

from .. import probes

GRADED = "make_causal_mask"


@pytest.mark.weight(3)  # where the mask allows counts most; its dtype is one check of its own
@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_blocks_the_future(student, reference, size):
    """gives (1, 1, size, size), true on and below the diagonal"""
    expect_same(student, reference, probes.causal_mask, {"size": size}, keys=("mask",))


def test_returns_a_bool_tensor(student, reference):
    """gives a bool tensor (dtype torch.bool), which combines with other masks by &"""
    expect_same(student, reference, probes.causal_mask, {"size": 4}, keys=("dtype",))
