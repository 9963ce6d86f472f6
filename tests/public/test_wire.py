"""Can only plain, bounded data cross from a student's process to the grader?"""

import json
import struct

import numpy as np
import pytest

from autograder.public import wire


def payload(header: dict, body: bytes = b"") -> bytes:
    data = json.dumps(header).encode()
    return struct.pack(">I", len(data)) + data + body


def test_plain_arrays_round_trip():
    """Do numbers, booleans, strings and 0-d arrays come back equal, with their shapes and dtypes?"""
    arrays = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "flag": np.bool_(True), "words": np.array(["a", "bc"])}
    meta, back = wire.decode(wire.encode({"op": "result"}, arrays))
    assert meta == {"op": "result"}
    for key, value in arrays.items():
        assert back[key].shape == np.asarray(value).shape and back[key].dtype == np.asarray(value).dtype
        assert np.array_equal(back[key], value)


def test_a_tensor_device_travels_with_its_array():
    """Is the device part of the array's own entry, and a plain array's device None?"""
    arrays = {"ids": wire.with_device(np.arange(3), "cuda"), "plain": np.zeros(2)}
    _, back = wire.decode(wire.encode({}, arrays))
    assert wire.device_of(back["ids"]) == "cuda" and wire.device_of(back["plain"]) is None


def test_objects_cannot_be_sent():
    with pytest.raises(wire.WireError):
        wire.encode({}, {"x": np.array([object()], dtype=object)})


@pytest.mark.parametrize("dtype", ["O", "V8", "[('a', '<i4')]"])
def test_objects_and_records_are_refused_on_arrival(dtype):
    """Is an array claiming an object, void or record dtype (which could carry code) rejected on arrival?"""
    with pytest.raises(wire.WireError):
        wire.decode(payload({"meta": {}, "arrays": [["x", dtype, [1], 8, None]]}, b"\0" * 8))


def test_a_shape_that_lies_about_its_size_is_refused():
    with pytest.raises(wire.WireError):
        wire.decode(payload({"meta": {}, "arrays": [["x", "<f4", [1000000], 8, None]]}, b"\0" * 8))


def test_garbage_is_refused():
    with pytest.raises(wire.WireError):
        wire.decode(b"\x00\x00\x00\x05hello")


def test_a_header_over_its_limit_is_refused_before_it_is_parsed():
    """Is a header of tens of millions of empty lists refused by its size, not parsed?"""
    huge = b"[" + b"[]," * 2_000_000 + b"[]]"
    with pytest.raises(wire.WireError, match="header"):
        wire.decode(struct.pack(">I", len(huge)) + huge)


def test_deep_nesting_is_a_wire_error_not_a_crash():
    """Does a header nested a hundred thousand deep end as WireError, not RecursionError?"""
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(wire.WireError):
        wire.decode(struct.pack(">I", len(deep)) + deep, wire.MessageLimits(header_bytes=1 << 20))


def test_too_many_arrays_are_refused():
    arrays = [[f"a{i}", "<f4", [0], 0, None] for i in range(5000)]
    with pytest.raises(wire.WireError):
        wire.decode(payload({"meta": {}, "arrays": arrays}))


def test_a_batchs_arrays_are_grouped_by_call():
    """Does each call of a batch get its own arrays, by key, with keys of no call left out?"""
    one, two = np.zeros(2), np.ones(3)
    grouped = wire.by_call({"0/x": one, "1/x": two, "1/w/bias": one, "10/y": two, "stray": one, "x/0": one})
    assert set(grouped) == {0, 1, 10}
    assert grouped[0] == {"x": one} and set(grouped[1]) == {"x", "w/bias"} and grouped[10]["y"] is two


def test_an_array_whose_size_is_not_its_shapes_is_refused():
    """Is an array entry whose byte count does not match dtype and shape a WireError, however large the shape?"""
    with pytest.raises(wire.WireError, match="size"):
        wire.decode(payload({"meta": {}, "arrays": [["a", "<f4", [2**40, 2**40], 16, None]]}) + b"\0" * 16)
