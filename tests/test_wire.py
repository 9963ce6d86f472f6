"""Can only plain data cross from a student's process to the grader?"""
import json
import struct

import numpy as np
import pytest

from autograder.core import wire


def test_plain_arrays_round_trip():
    """Do numbers, booleans, strings and 0-d arrays come back equal, with their shapes?"""
    arrays = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "flag": np.bool_(True), "words": np.array(["a", "bc"])}
    meta, back = wire.decode(wire.encode({"op": "result"}, arrays))
    assert meta == {"op": "result"}
    for key, value in arrays.items():
        assert back[key].shape == np.asarray(value).shape and np.array_equal(back[key], value)


def test_objects_cannot_be_sent():
    with pytest.raises(wire.WireError):
        wire.encode({}, {"x": np.array([object()], dtype=object)})


@pytest.mark.parametrize("dtype", ["O", "V8", "[('a', '<i4')]"])
def test_objects_and_records_are_refused_on_arrival(dtype):
    """Is an array claiming an object, void or record dtype (which could carry code) rejected on arrival?"""
    header = json.dumps({"meta": {}, "arrays": [["x", dtype, [1], 8]]}).encode()
    with pytest.raises(wire.WireError):
        wire.decode(struct.pack(">I", len(header)) + header + b"\0" * 8)


def test_a_shape_that_lies_about_its_size_is_refused():
    header = json.dumps({"meta": {}, "arrays": [["x", "<f4", [1000000], 8]]}).encode()
    with pytest.raises(wire.WireError):
        wire.decode(struct.pack(">I", len(header)) + header + b"\0" * 8)


def test_garbage_is_refused():
    with pytest.raises(wire.WireError):
        wire.decode(b"\x00\x00\x00\x05hello")
