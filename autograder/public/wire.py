"""Messages between the trusted grader and a student's process.

A message is a JSON header followed by the raw bytes of plain arrays: numbers,
booleans and strings only (their dtype is checked on arrival), never an object that
runs code or claims to be equal to something. Nothing is unpickled or evaluated.

    frame   = 8-byte big-endian length | payload
    payload = 4-byte big-endian header length | header (JSON) | array bytes ...
    header  = {"meta": {...}, "arrays": [[key, dtype, shape, nbytes, device], ...]}

An array's dtype and shape are those of its bytes, and ``device`` (None, or "cpu",
"cuda", ... for an array that was a tensor) travels with it: what the receiver reads
is what was sent, never a label sent beside it. Every part of a message is bounded
(``MessageLimits``), so that a peer cannot make the receiver hold more than it allows.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from dataclasses import dataclass

import numpy as np

PLAIN_KINDS = "biufU"  # bool, int, uint, float, str: what may cross


@dataclass(frozen=True)
class MessageLimits:
    """The most a received message may hold."""

    frame_bytes: int = 256 * 1024**2  # the whole message
    header_bytes: int = 1024**2  # its JSON header
    arrays: int = 4096  # how many arrays
    key_chars: int = 200  # the length of an array's key


LIMITS = MessageLimits()


class WireError(Exception):
    """A message that is not well formed (from a broken or hostile peer)."""


class Array(np.ndarray):
    """A received array that remembers the device of the tensor it was sent from (None: not a tensor).

    Not under the name ``device``: numpy 2 gives every ndarray that attribute (the array
    API's, always "cpu"), and code that reads it expects numpy's meaning.
    """

    tensor_device: str | None = None


def to_array(value) -> np.ndarray:
    """A plain ndarray, or WireError if the value holds anything else."""
    array = np.asarray(value)
    if array.dtype.kind not in PLAIN_KINDS or array.dtype.hasobject:
        raise WireError(f"only numbers, booleans and strings can be sent, not {array.dtype}")
    return np.array(array, order="C")  # a copy, and 0-d stays 0-d (ascontiguousarray would make it 1-d)


def device_of(array) -> str | None:
    """The device recorded with a received (or about to be sent) array."""
    return array.tensor_device if isinstance(array, Array) else None


def with_device(array: np.ndarray, device: str | None) -> np.ndarray:
    """The array, marked as coming from a tensor on ``device`` (None: a plain array)."""
    if device is None:
        return array
    marked = np.asarray(array).view(Array)
    marked.tensor_device = str(device)
    return marked


def encode(meta: dict, arrays: dict[str, np.ndarray] | None = None) -> bytes:
    blobs, index = [], []
    for key, value in (arrays or {}).items():
        array = to_array(value)
        blobs.append(array.tobytes())
        index.append([key, array.dtype.str, list(array.shape), len(blobs[-1]), device_of(value)])
    header = json.dumps({"meta": meta, "arrays": index}).encode()
    return struct.pack(">I", len(header)) + header + b"".join(blobs)


def decode(payload: bytes, limits: MessageLimits = LIMITS) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta and the arrays of a payload; WireError for anything else."""
    try:
        (size,) = struct.unpack(">I", payload[:4])
        if size > limits.header_bytes:
            raise WireError(f"a header of {size} bytes is over the limit of {limits.header_bytes}")
        header = json.loads(payload[4 : 4 + size])
        meta, index = header["meta"], header["arrays"]
        if not isinstance(meta, dict) or not isinstance(index, list) or len(index) > limits.arrays:
            raise WireError("malformed header")
        arrays, offset = {}, 4 + size
        for entry in index:
            key, dtype, shape, nbytes, device = _index_entry(entry, limits)
            blob = payload[offset : offset + nbytes]
            if len(blob) != nbytes:
                raise WireError("truncated array")
            array = np.frombuffer(blob, dtype=dtype).reshape(shape).copy()
            arrays[key] = with_device(array, device)
            offset += nbytes
        if offset != len(payload):
            raise WireError("trailing bytes")
        return meta, arrays
    except WireError:
        raise
    except (Exception, RecursionError) as error:  # any parse failure means the peer is broken or hostile
        raise WireError(f"malformed message: {type(error).__name__}") from None


def _index_entry(entry, limits: MessageLimits):
    if not isinstance(entry, list) or len(entry) != 5:
        raise WireError("malformed array entry")
    key, dtype, shape, nbytes, device = entry
    if not isinstance(key, str) or len(key) > limits.key_chars:
        raise WireError("malformed array key")
    if not isinstance(dtype, str) or len(dtype) > 16:
        raise WireError(f"array {key!r} has no plain dtype")
    dtype = np.dtype(dtype)
    if dtype.kind not in PLAIN_KINDS or dtype.hasobject or dtype.fields:
        raise WireError(f"array {key!r} is not plain data")
    if not isinstance(shape, list) or len(shape) > 32 or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise WireError(f"array {key!r} has a malformed shape")
    if not isinstance(nbytes, int) or dtype.itemsize * math.prod(shape) != nbytes:
        raise WireError(f"array {key!r} does not have the size its shape says")
    if device is not None and (not isinstance(device, str) or len(device) > 16):
        raise WireError(f"array {key!r} has a malformed device")
    return key, dtype, tuple(shape), nbytes, device


def frame(meta: dict, arrays: dict | None = None) -> bytes:
    payload = encode(meta, arrays)
    return struct.pack(">Q", len(payload)) + payload


def send(sock, meta: dict, arrays: dict | None = None) -> None:
    sock.sendall(frame(meta, arrays))


def _recv_exactly(sock, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def recv(sock, limits: MessageLimits = LIMITS) -> tuple[dict, dict[str, np.ndarray]]:
    """One message from a trusted peer (blocking); EOFError when the peer is gone.

    The grader reads a student's process with a deadline instead (sandbox/host/client.py).
    """
    (size,) = struct.unpack(">Q", _recv_exactly(sock, 8))
    if size > limits.frame_bytes:
        raise WireError(f"a message of {size} bytes is over the limit of {limits.frame_bytes}")
    return decode(_recv_exactly(sock, size), limits)


def pack(values: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """Split nested inputs into JSON-able values and arrays (keys joined with '/')."""
    plain: dict = {}
    arrays: dict[str, np.ndarray] = {}

    def walk(prefix: str, value: object, into: dict) -> None:
        if isinstance(value, np.ndarray):
            arrays[prefix] = value
            into[prefix.rsplit("/", 1)[-1]] = {"__array__": prefix}
        elif isinstance(value, dict):
            inner: dict = {}
            for key, item in value.items():
                walk(f"{prefix}/{key}", item, inner)
            into[prefix.rsplit("/", 1)[-1]] = inner
        else:
            into[prefix.rsplit("/", 1)[-1]] = value

    for key, value in values.items():
        walk(key, value, plain)
    return plain, arrays


def unpack(plain: dict, arrays: dict[str, np.ndarray]) -> dict:
    """The inverse of pack."""

    def restore(value):
        if isinstance(value, dict) and set(value) == {"__array__"}:
            return arrays[value["__array__"]]
        if isinstance(value, dict):
            return {key: restore(item) for key, item in value.items()}
        return value

    return {key: restore(value) for key, value in plain.items()}


def by_call(arrays: dict[str, np.ndarray]) -> dict[int, dict[str, np.ndarray]]:
    """A batch's arrays, keyed "<i>/<key>", grouped by call: {i: {key: array}}; other keys are left out."""
    calls: dict[int, dict[str, np.ndarray]] = {}
    for name, value in arrays.items():
        index, _, key = name.partition("/")
        if index.isdigit():
            calls.setdefault(int(index), {})[key] = value
    return calls


def digest(probe_id: str, inputs: dict) -> str:
    """A key naming a probe call: equal inputs give equal keys."""
    meta, arrays = pack(inputs)
    return probe_id + ":" + hashlib.sha256(encode(meta, arrays)).hexdigest()


def array_to_json(array: np.ndarray) -> dict:
    """A plain array as JSON: exact for the float32 and int64 values stored (repr round-trips)."""
    device = device_of(array)
    plain = to_array(array)
    value = {"dtype": plain.dtype.str, "shape": list(plain.shape), "data": plain.ravel().tolist()}
    if device is not None:
        value["device"] = device
    return value


def array_from_json(value: dict) -> np.ndarray:
    dtype = np.dtype(value["dtype"])
    if dtype.kind not in PLAIN_KINDS:
        raise WireError(f"{dtype} is not plain data")
    return with_device(np.array(value["data"], dtype=dtype).reshape(value["shape"]), value.get("device"))
