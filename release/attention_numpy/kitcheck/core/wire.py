"""Messages between the trusted grader and a student's process.

A message is a JSON header followed by the raw bytes of plain arrays: numbers,
booleans and strings only (their dtype is checked on arrival), never an object that
runs code or claims to be equal to something. Nothing is unpickled or evaluated.

    frame  = 8-byte big-endian length | payload
    payload = 4-byte big-endian header length | header (JSON) | array bytes ...
    header = {"meta": {...}, "arrays": [[key, dtype, shape, nbytes], ...]}
"""
from __future__ import annotations

import hashlib
import json
import struct

import numpy as np

PLAIN_KINDS = "biufU"  # bool, int, uint, float, str: what may cross
MAX_FRAME = 256 * 1024 * 1024  # a student's process may not make the grader hold more than this


class WireError(Exception):
    """A message that is not well formed (from a broken or hostile peer)."""


def to_array(value) -> np.ndarray:
    """A plain ndarray, or WireError if the value holds anything else."""
    array = np.asarray(value)
    if array.dtype.kind not in PLAIN_KINDS or array.dtype.hasobject:
        raise WireError(f"only numbers, booleans and strings can be sent, not {array.dtype}")
    return np.array(array, order="C")  # a copy, and 0-d stays 0-d (ascontiguousarray would make it 1-d)


def encode(meta: dict, arrays: dict[str, np.ndarray] | None = None) -> bytes:
    blobs, index = [], []
    for key, value in (arrays or {}).items():
        array = to_array(value)
        blobs.append(array.tobytes())
        index.append([key, array.dtype.str, list(array.shape), len(blobs[-1])])
    header = json.dumps({"meta": meta, "arrays": index}).encode()
    return struct.pack(">I", len(header)) + header + b"".join(blobs)


def decode(payload: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    try:
        (size,) = struct.unpack(">I", payload[:4])
        header = json.loads(payload[4 : 4 + size])
        meta, index = header["meta"], header["arrays"]
        if not isinstance(meta, dict) or not isinstance(index, list):
            raise WireError("malformed header")
        arrays, offset = {}, 4 + size
        for key, dtype, shape, nbytes in index:
            dtype = np.dtype(str(dtype))
            if not isinstance(key, str) or dtype.kind not in PLAIN_KINDS or dtype.hasobject or dtype.fields:
                raise WireError(f"array {key!r} is not plain data")
            shape = tuple(int(n) for n in shape)
            if any(n < 0 for n in shape) or dtype.itemsize * int(np.prod(shape)) != nbytes:
                raise WireError(f"array {key!r} does not have the size its shape says")
            blob = payload[offset : offset + nbytes]
            if len(blob) != nbytes:
                raise WireError("truncated array")
            arrays[key] = np.frombuffer(blob, dtype=dtype).reshape(shape).copy()
            offset += nbytes
        if offset != len(payload):
            raise WireError("trailing bytes")
        return meta, arrays
    except WireError:
        raise
    except Exception as error:  # any parse failure means the peer is broken or hostile
        raise WireError(f"malformed message: {error}") from None


def send(sock, meta: dict, arrays: dict | None = None) -> None:
    payload = encode(meta, arrays)
    sock.sendall(struct.pack(">Q", len(payload)) + payload)


def _recv_exactly(sock, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def recv(sock) -> tuple[dict, dict[str, np.ndarray]]:
    """One message; EOFError when the peer is gone, WireError when it sent garbage."""
    (size,) = struct.unpack(">Q", _recv_exactly(sock, 8))
    if size > MAX_FRAME:
        raise WireError(f"a message of {size} bytes is over the limit of {MAX_FRAME}")
    return decode(_recv_exactly(sock, size))


def pack(values: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """Split nested inputs into JSON-able values and arrays (keys joined with '/')."""
    plain, arrays = {}, {}

    def walk(prefix, value, into):
        if isinstance(value, np.ndarray):
            arrays[prefix] = value
            into[prefix.rsplit("/", 1)[-1]] = {"__array__": prefix}
        elif isinstance(value, dict):
            inner = {}
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


def digest(probe_id: str, inputs: dict) -> str:
    """A key naming a probe call: equal inputs give equal keys."""
    meta, arrays = pack(inputs)
    return probe_id + ":" + hashlib.sha256(encode(meta, arrays)).hexdigest()


def array_to_json(array: np.ndarray) -> dict:
    """A plain array as JSON: exact for the float32 and int64 values stored (repr round-trips)."""
    array = to_array(array)
    data = array.ravel().tolist()
    return {"dtype": array.dtype.str, "shape": list(array.shape), "data": data}


def array_from_json(value: dict) -> np.ndarray:
    dtype = np.dtype(value["dtype"])
    if dtype.kind not in PLAIN_KINDS:
        raise WireError(f"{dtype} is not plain data")
    return np.array(value["data"], dtype=dtype).reshape(value["shape"])
