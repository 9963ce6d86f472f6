"""Are the visible checks' data what the self-checks need, and two builds' data told apart only by a real change?"""

import json

import numpy as np

from autograder.author import visible
from autograder.author.build import committed_bundle
from autograder.public import wire


def test_freshness_allows_float_noise_and_catches_a_real_change(mha):
    """Are visible data from another CPU (last digits off) equivalent, and a changed value not?"""
    data = json.loads(committed_bundle(mha)[1]["visible.json"])
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
    data = json.loads(committed_bundle(mha)[1]["visible.json"])
    encode = next(c for c in data["checks"] if c["name"] == "encode")
    assert wire.device_of(wire.array_from_json(encode["expected"]["ids"])) == "cpu"
