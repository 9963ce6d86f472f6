"""What a student's code did on a failing case, as a short digest that reads the same wherever it is computed.

grade-all groups students whose code behaves alike (deliver/clusters.py), and an
instructor's note follows a group from term to term by its digest: so the digest must
not change with the last bits of a float, which differ from one CPU to another (a
sum taken in another order, another SIMD kernel). It is built from what the check
judged, never from raw float values:

* outputs compared by value: for each compared output, in key order, its kind and
  shape and what the check said of its type (a tensor's dtype, a tensor where one is
  due); exact outputs (integers, booleans, strings, and floats the check compares
  exactly) by their values; float outputs by each element's judged outcome against the
  reference with the check's own tolerance (within it, above, below, not a number),
  with the largest and the mean deviation of the elements off, in units of that
  tolerance, in steps of 2**(1/8) (9%);
* a crash: the error's type and message, without where it was raised (the same slip
  raises at another line in each student's file), and the probe it was raised in;
* anything else (a check's own condition, a process that died or hung): the check's
  message with float numbers and addresses left out.

An element lands on the other side of a boundary only when the student's deviation
sits within a CPU's rounding of it: the tolerance (rare for a real bug, whose elements
are either exactly right or off by far more), or a 9% step of the largest or mean
deviation (one number each, about one chance in 10^5).
"""

from __future__ import annotations

import hashlib
import math
import re

import numpy as np

from ..public.compare import kind_problem
from ..public.probing import PROBES, Tolerance, error_kind
from ..results.model import CheckResult

STEPS_PER_OCTAVE = 8  # deviations are told apart when they differ by more than 2**(1/8), 9%
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+")


def case_behaviour(result: CheckResult, reference) -> str:
    """The digest of one failing case ("" for a passing one or a failure of the kit itself).

    reference: what answers the probe calls with the reference's outputs (``.run``). A
    digest that cannot be made leaves the case out of every group ("") and never
    costs the grading."""
    if result.passed or result.internal_error:
        return ""
    try:
        return _behaviour(result, reference)
    except Exception:
        return ""


def _behaviour(result: CheckResult, reference) -> str:
    evidence = result.evidence or {}
    if "got" in evidence:
        try:
            want = reference.run(evidence["probe_id"], evidence["inputs"])
        except Exception:  # the reference never fails its own probes (the rehearsal proves it); if it did, say less
            want = None
        if want is not None:
            return _digest(["outputs", _step(evidence), *outputs_outcome(evidence, want)])
    if "error" in evidence:
        return _digest(["error", _step(evidence), plain(error_kind(evidence["error"]))])
    return _digest(["message", plain(result.message)])


def outputs_outcome(evidence: dict, want: dict) -> list[str]:
    """One line per compared output of a probe call: what the check judged of it."""
    tolerances = PROBES[evidence["probe_id"]].tolerances
    keys = sorted(evidence.get("keys") or tolerances)
    got = evidence["got"]
    return [output_outcome(key, got.get(key), want[key], tolerances[key]) for key in keys if key in want]


def output_outcome(key: str, got, want: np.ndarray, tolerance: Tolerance) -> str:
    """What the check judged of one output: its kind, and its values as exact values or as outcomes per element.

    A dtype counts where the check compares it (a tensor's): a NumPy student's float32 and
    float64 results of the same slip are the same behaviour."""
    if got is None:
        return f"{key}: missing"
    head = f"{key}: {got.dtype.kind} {got.shape} {kind_problem(key, got, want, any_device=True) or ''}"
    exact = got.dtype.kind in "biuU" or want.dtype.kind in "biuU" or (tolerance.rtol == 0 and tolerance.atol == 0)
    if exact or got.dtype.kind != "f":
        return f"{head} exact {exact_values(got)}"
    reference = want if got.shape == want.shape else np.zeros(got.shape)  # a wrong shape: its values against 0
    return f"{head} {float_outcome(got, reference, tolerance)}"


def exact_values(array: np.ndarray) -> str:
    """A digest of the values themselves, whatever their width (int32 and int64, <U3 and <U8 alike)."""
    kind = array.dtype.kind
    if kind == "U":
        data = "\x00".join(str(value) for value in array.ravel()).encode("utf-8", "surrogateescape")
    else:
        wide = {"b": np.bool_, "i": np.int64, "u": np.uint64, "f": np.float64}.get(kind, array.dtype)
        data = np.ascontiguousarray(array, dtype=wide).tobytes()
    return hashlib.sha256(kind.encode() + data).hexdigest()


def float_outcome(got: np.ndarray, want: np.ndarray, tolerance: Tolerance) -> str:
    """Per element: within the tolerance (0), above (1), below (2) or not a number where a number is due (3);
    then the largest and the mean deviation of the elements off, in steps of 2**(1/8) times the tolerance."""
    got = got.astype(np.float64)
    want = np.asarray(want, dtype=np.float64)
    allowed = tolerance.atol + tolerance.rtol * np.abs(want)
    within = tolerance.close(got, want)
    with np.errstate(invalid="ignore", over="ignore"):
        gap = got - want
    codes = np.where(within, 0, np.where(np.isnan(gap), 3, np.where(gap > 0, 1, 2))).astype(np.uint8)
    off = ~within & np.isfinite(gap)
    ratios = np.abs(gap[off]) / np.maximum(allowed[off], np.finfo(np.float64).tiny)
    largest = _step_of(float(ratios.max())) if ratios.size else "-"
    mean = _step_of(float(ratios.mean())) if ratios.size else "-"
    return f"{hashlib.sha256(codes.tobytes()).hexdigest()} {largest} {mean}"


def _step_of(ratio: float) -> str:
    if not math.isfinite(ratio):
        return "inf"
    return str(math.floor(STEPS_PER_OCTAVE * math.log2(max(ratio, 1.0))))


def _step(evidence: dict) -> str:
    """The call it happened in: the probe and the outputs the check compared (never the inputs' float bytes)."""
    keys = evidence.get("keys")
    return f"{evidence.get('probe_id')} {','.join(keys) if keys else '*'}"


def plain(text: str) -> str:
    """A message without what changes from run to run: addresses and float numbers."""
    return _FLOAT.sub("#", _ADDRESS.sub("0x#", text or ""))


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]
