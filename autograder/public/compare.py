"""Compare a student's probe outputs with the expected ones and say where they differ.

Messages name the output, then the first problem found, in this order: a missing
output, a tensor expected but something else returned, the shape (a list of another
length: both lengths and where they first differ, and both lists when short), the
dtype, the device, then the first element that is off, with both values, how many
elements are off and the largest difference (nan and inf counted apart). Inputs are
never printed here (the visible checks add theirs, which the student can see). What is compared is what arrived: the arrays'
own dtypes and shapes, and the device each tensor's array came with.
"""

from __future__ import annotations

import numpy as np

from .probing import Tolerance
from .wire import device_of


def differences(
    got: dict, want: dict, tolerances: dict[str, Tolerance], device: str = "cpu", any_device: bool = False
) -> list[str]:
    """One message per output key that does not match; an empty list when all match."""
    problems = []
    for key, tolerance in tolerances.items():
        if key not in want:
            continue  # this probe did not produce that output on this input
        if key not in got:
            problems.append(f"{key}: your code returned nothing for it")
            continue
        problem = kind_problem(key, got[key], want[key], device, any_device) or first_difference(
            key, got[key], want[key], tolerance
        )
        if problem:
            problems.append(problem)
    return problems


def kind_problem(
    key: str, got: np.ndarray, want: np.ndarray, device: str = "cpu", any_device: bool = False
) -> str | None:
    """A tensor where one is expected, its shape, its dtype and its device, before any value."""
    want_device, got_device = device_of(want), device_of(got)
    if want_device is not None and got_device is None:
        return f"{key} should be a tensor, not a NumPy array or a Python value"
    if got.shape != want.shape:
        if got.ndim == want.ndim == 1:
            return length_problem(key, got, want)
        return f"{key} has shape {_shape(got)}; expected {_shape(want)}"
    if want.dtype.kind == "U" or got.dtype.kind == "U":
        if got.dtype.kind != want.dtype.kind:
            return f"{key} should hold {'strings' if want.dtype.kind == 'U' else 'numbers'}"
    elif want_device is not None and got.dtype != want.dtype:
        return f"{key} has dtype {_dtype(got)}; expected {_dtype(want)}"
    if want_device is not None and not any_device and got_device != device:
        return f"{key} is on {got_device}; expected it on {device}, the device of the inputs"
    return None


def first_difference(key: str, got: np.ndarray, want: np.ndarray, tolerance: Tolerance) -> str | None:
    if got.shape != want.shape:
        if got.ndim == want.ndim == 1:
            return length_problem(key, got, want)
        return f"{key} has shape {_shape(got)}; expected {_shape(want)}"
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
        largest = _largest(got.astype(np.float64), want.astype(np.float64), ~close)
    return f"{key}{where}: {detail} ({count}{largest}; tolerance: {_tolerance(tolerance)})"


def _largest(got: np.ndarray, want: np.ndarray, off: np.ndarray) -> str:
    """The largest difference among the values that are off; the nan and infinite values the code gave
    where finite ones were expected are counted apart (a difference of theirs has no size)."""
    broken = off & ~np.isfinite(got) & np.isfinite(want)
    with np.errstate(invalid="ignore", over="ignore"):
        gaps = np.abs(got - want)[off & ~broken]
    gaps = gaps[np.isfinite(gaps)]
    said = [f"the largest difference is {gaps.max():.3g}"] if gaps.size else []
    nans, infinite = int(np.sum(broken & np.isnan(got))), int(np.sum(broken & np.isinf(got)))
    said += [f"{n} {what} where a finite value is expected" for n, what in ((nans, "nan"), (infinite, "inf")) if n]
    if (nans or infinite) and gaps.size:
        said[0] = "among the finite ones, " + said[0]
    return "; " + "; ".join(said) if said else ""


def length_problem(key: str, got: np.ndarray, want: np.ndarray) -> str:
    """A list (a 1-D output) of another length: both lengths, the first entry that differs, and both lists
    in full when they are short (a token list, a vocabulary)."""
    index = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    first = (
        f"the first difference is at index {index}: got {_value(got[index]) if index < len(got) else 'nothing'}, "
        f"expected {_value(want[index]) if index < len(want) else 'nothing'}"
    )
    message = f"{key} has {len(got)} entries; expected {len(want)}: {first}"
    if max(len(got), len(want)) <= SHOWN_IN_FULL:
        message += f"\n  got:      {_listing(got)}\n  expected: {_listing(want)}"
    return message


SHOWN_IN_FULL = 24  # entries: a sentence's tokens or a small vocabulary, shown whole


def _listing(array: np.ndarray) -> str:
    return "[" + ", ".join(_value(value) for value in array) + "]"


def _shape(array: np.ndarray) -> str:
    return "(" + ", ".join(str(n) for n in array.shape) + ("," if array.ndim == 1 else "") + ")"


def _dtype(array: np.ndarray) -> str:
    return str(array.dtype)


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
    """Whether every compared output of got equals want: kind, shape, dtype and values (device aside)."""
    for key, tolerance in tolerances.items():
        if key not in want:
            continue
        if key not in got or kind_problem(key, got[key], want[key], any_device=True) is not None:
            return False
        g = got[key].astype(bool) if want[key].dtype.kind == "b" and got[key].dtype.kind in "biu" else got[key]
        if not bool(np.all(tolerance.close(g, want[key]))):
            return False
    return True
