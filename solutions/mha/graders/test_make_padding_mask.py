"""Hidden checks of make_padding_mask."""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same

from .. import probes

GRADED = "make_padding_mask"

CASES = {
    "padding at the ends of rows": (np.array([[5, 6, 7, 0, 0], [3, 0, 0, 0, 0], [2, 3, 4, 5, 6]]), 0),
    "batch 1, no padding": (np.array([[4, 2, 9]]), 0),
    "pad_id 1": (np.array([[7, 8, 1, 1], [1, 1, 1, 1]]), 1),
    "seq 1": (np.array([[0], [3]]), 0),
}


@pytest.mark.weight(3)  # where the mask allows counts most; its dtype is one check of its own
@pytest.mark.parametrize("token_ids, pad_id", CASES.values(), ids=CASES.keys())
def test_blocks_padding(student, reference, token_ids, pad_id):
    """gives (batch, 1, 1, seq), true where the token is not padding"""
    inputs = {"token_ids": token_ids.astype(np.int64), "pad_id": pad_id}
    expect_same(student, reference, probes.padding_mask, inputs, keys=("mask",))


def test_returns_a_bool_tensor(student, reference):
    """gives a bool tensor (dtype torch.bool), which combines with other masks by &"""
    token_ids, pad_id = CASES["padding at the ends of rows"]
    inputs = {"token_ids": token_ids.astype(np.int64), "pad_id": pad_id}
    expect_same(student, reference, probes.padding_mask, inputs, keys=("dtype",))
