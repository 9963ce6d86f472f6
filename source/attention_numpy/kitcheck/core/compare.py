"""Compare a student's probe outputs with the expected ones and say where they differ.

Messages name the output, then the first problem found, in this order: a missing
output, the shape, the dtype, the device, then the first element that is off, with
both values and how many elements are off. Inputs are never printed.
"""
from __future__ import annotations

import numpy as np

from .probing import Tolerance


def differences(got: dict, want: dict, tolerances: dict[str, Tolerance], device: str = "cpu") -> list[str]:
    """One message per output key that does not match; an empty list when all match."""
    problems = []
    for key, tolerance in tolerances.items():
        if key not in want:
            continue  # this probe did not produce that output on this input
        if key not in got:
            problems.append(f"{key}: your code returned nothing for it")
            continue
        problem = _meta_problem(key, got, want, device) or first_difference(key, got[key], want[key], tolerance)
        if problem:
            problems.append(problem)
    return problems


def _meta_problem(key: str, got: dict, want: dict, device: str) -> str | None:
    want_dtype, got_dtype = want.get(f"{key}@dtype"), got.get(f"{key}@dtype")
    if want_dtype is not None and got_dtype is not None and str(want_dtype) != str(got_dtype):
        return f"{key} has dtype {got_dtype}; expected {want_dtype}"
    if want_dtype is not None and got_dtype is None:
        return f"{key} should be a tensor of dtype {want_dtype}, not a {got[key].dtype} array or a Python value"
    got_device = got.get(f"{key}@device")
    if got_device is not None and str(got_device) != device:
        return f"{key} is on {got_device}; expected it on {device}, the device of the inputs"
    return None


def first_difference(key: str, got: np.ndarray, want: np.ndarray, tolerance: Tolerance) -> str | None:
    if got.shape != want.shape:
        return f"{key} has shape {_shape(got)}; expected {_shape(want)}"
    if want.dtype.kind == "U" or got.dtype.kind == "U":
        if got.dtype.kind != want.dtype.kind:
            return f"{key} should hold {'strings' if want.dtype.kind == 'U' else 'numbers'}"
    if want.dtype.kind == "b" and got.dtype.kind not in "biu":
        return f"{key} should hold booleans (or 0/1), not {got.dtype}"
    if want.dtype.kind == "b":
        got = got.astype(bool)
    close = tolerance.close(got, want)
    if bool(np.all(close)):
        return None
    bad = np.argwhere(~close) if close.ndim else np.zeros((1, 0), dtype=int)
    index = tuple(int(i) for i in bad[0])
    where = f" at index {index}" if index else ""
    count = f"{len(bad)} of {want.size} values differ" if want.size > 1 else "the value differs"
    detail = f"got {_value(got[index])}, expected {_value(want[index])}"
    largest = ""
    if want.dtype.kind == "f" and got.dtype.kind in "fiu":
        with np.errstate(invalid="ignore"):
            gap = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64)))
        largest = f"; the largest difference is {gap:.3g}" if np.isfinite(gap) else ""
    return f"{key}{where}: {detail} ({count}{largest}; tolerance: {_tolerance(tolerance)})"


def _shape(array: np.ndarray) -> str:
    return "(" + ", ".join(str(n) for n in array.shape) + ("," if array.ndim == 1 else "") + ")"


def _value(value) -> str:
    if isinstance(value, (np.floating, float)):
        return f"{float(value):.6g}"
    if isinstance(value, np.str_):
        return repr(str(value))
    return str(value.item() if hasattr(value, "item") else value)


def _tolerance(tolerance: Tolerance) -> str:
    if tolerance.rtol == 0 and tolerance.atol == 0:
        return "exact"
    return f"atol {tolerance.atol:g}, rtol {tolerance.rtol:g}"


def matches(got: dict, want: dict, tolerances: dict[str, Tolerance]) -> bool:
    """Whether every compared output of got equals want (dtype and device aside)."""
    for key, tolerance in tolerances.items():
        if key not in want:
            continue
        if key not in got or got[key].shape != want[key].shape:
            return False
        if (got[key].dtype.kind == "U") != (want[key].dtype.kind == "U"):
            return False
        g = got[key].astype(bool) if want[key].dtype.kind == "b" and got[key].dtype.kind in "biu" else got[key]
        if not bool(np.all(tolerance.close(g, want[key]))):
            return False
    return True
