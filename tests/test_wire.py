"""Can only plain data cross from a student's process to the grader?"""
import io
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


def test_a_pickled_array_is_refused():
    """Is an .npy holding pickled objects (which could run code) rejected on arrival?"""
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    blob = buffer.getvalue()
    header = b'{"meta": {}, "arrays": [["x", %d]]}' % len(blob)
    with pytest.raises(wire.WireError):
        wire.decode(struct.pack(">I", len(header)) + header + blob)


def test_garbage_is_refused():
    with pytest.raises(wire.WireError):
        wire.decode(b"\x00\x00\x00\x05hello")
