"""Probes: small, public functions that exercise one graded name and return plain arrays.

A probe runs the same way on the reference (in the trusted grader) and on a student's
code (in the student's process): it turns plain inputs into tensors on the grading
device, calls the graded name, and returns what the checks compare. Every output
declares the tolerance it is compared with, beside the probe, with the reason.

    @probe(out=EXACT)
    def split_heads(impl, x, n_heads):
        return {"out": impl.split_heads(impl.tensor(x), n_heads)}
"""
from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .wire import to_array


@dataclass(frozen=True)
class Tolerance:
    """|got - want| <= atol + rtol * |want|, elementwise; why says what the math allows."""

    rtol: float
    atol: float
    why: str

    def close(self, got: np.ndarray, want: np.ndarray) -> np.ndarray:
        if got.dtype.kind in "biuU" or want.dtype.kind in "biuU" or (self.rtol == 0 and self.atol == 0):
            return got == want
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        both_nan = np.isnan(got) & np.isnan(want)
        return both_nan | (np.abs(got - want) <= self.atol + self.rtol * np.abs(want))


EXACT = Tolerance(0.0, 0.0, "integers, booleans, strings and pure data movement are reproduced bit for bit")


@dataclass(frozen=True)
class Probe:
    id: str
    function: Callable
    tolerances: dict[str, Tolerance]  # output key -> tolerance; keys not listed are not compared


PROBES: dict[str, Probe] = {}


def probe(**tolerances: Tolerance):
    """Register a probe and the tolerance of each output it returns."""

    def register(function):
        probe_id = f"{function.__module__.rsplit('.', 2)[-2]}.{function.__name__}"
        PROBES[probe_id] = Probe(probe_id, function, tolerances)
        function.probe_id = probe_id
        return function

    return register


class ContractError(Exception):
    """The student's code broke the contract (wrong return type, missing name, ...)."""


class Missing:
    """Stands for a graded name the submission does not define."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise ContractError(f"your submission does not define {self.name}")


class Implementation:
    """The graded names of one implementation (the reference's or a student's), on a device."""

    def __init__(self, namespace: dict, device: str = "cpu", label: str = "submission"):
        self._namespace = namespace
        self.device = device
        self.label = label

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._namespace.get(name)
        return Missing(name) if value is None else value

    def tensor(self, array, dtype=None):
        """A fresh tensor on the grading device, made from a plain array (never shared)."""
        import torch

        result = torch.tensor(np.array(array, copy=True), device=self.device)
        return result if dtype is None else result.to(dtype)


def to_plain(key: str, value, outputs: dict) -> None:
    """Store value under key as plain arrays; a tensor also records its dtype and device."""
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        outputs[f"{key}@dtype"] = np.array(str(value.dtype).replace("torch.", ""))
        outputs[f"{key}@device"] = np.array(value.device.type)
        value = value.detach().resolve_conj().resolve_neg()
        value = value.as_subclass(torch.Tensor).to("cpu")
        if value.dtype == torch.bfloat16:
            value = value.float()
        outputs[key] = np.array(value.numpy(), copy=True)
    elif isinstance(value, np.ndarray) and value.dtype.kind in "biufU":
        if value.dtype.kind != "U":  # a string array's dtype only says how long its longest string is
            outputs[f"{key}@dtype"] = np.array(str(value.dtype))
        outputs[key] = np.array(value, copy=True)
    else:
        try:
            outputs[key] = to_array(value)
        except Exception:
            raise ContractError(f"{key} should be a tensor, got {type(value).__name__}") from None


def _torch():
    """torch if this process has imported it (a tensor can only exist then), else None."""
    return sys.modules.get("torch")


def run_probe(probe_id: str, impl: Implementation, inputs: dict) -> tuple[dict[str, np.ndarray], str | None]:
    """Run one probe; return (plain outputs, None) or ({}, what went wrong, as feedback)."""
    entry = PROBES[probe_id]
    _tripped.clear()
    try:
        raw = entry.function(impl, **inputs)
        outputs: dict[str, np.ndarray] = {}
        for key, value in raw.items():
            to_plain(key, value, outputs)
        if _tripped:
            outputs["__builtin__"] = np.array(sorted(_tripped))
        return outputs, None
    except ContractError as error:
        return {}, str(error)
    except BaseException as error:  # a student's code may raise anything, SystemExit included
        return {}, f"your code raised {describe_exception(error)}"


def describe_exception(error: BaseException) -> str:
    """'ValueError: message (in <cell 12>, line 4)': the student's frame nearest the error."""
    message = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
    where = ""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if not _is_kit_or_library(frame.filename):
            line = (frame.line or "").strip()
            quote = f": {line[:120]}" if line and message not in line else ""
            where = f" (in {frame.filename}, line {frame.lineno}{quote})"
            break
    return f"{type(error).__name__}: {message}{where}" if message else f"{type(error).__name__}{where}"


_KIT_DIR = str(Path(__file__).resolve().parents[1])  # autograder/ here, kitcheck/ in the bundle


def _is_kit_or_library(filename: str) -> bool:
    return filename.startswith(_KIT_DIR) or any(m in filename for m in ("site-packages", "/lib/python3", "<frozen"))


# PyTorch's own attention, which an exercise must not call in place of its own code.
BUILTIN_ATTENTION = ("scaled_dot_product_attention", "multi_head_attention_forward")
_tripped: set[str] = set()  # "graded name:builtin" for each call seen during a probe


def _blame(graded: tuple[str, ...]) -> str:
    """The graded name whose own code made the call: the innermost student frame that belongs to one."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if not _is_kit_or_library(code.co_filename):
            qualname = getattr(code, "co_qualname", None)
            if qualname is None:  # Python 3.10: methods are named through self
                owner = frame.f_locals.get("self")
                qualname = f"{type(owner).__name__}.{code.co_name}" if owner is not None else code.co_name
            first = qualname.split(".")[0]
            if first in graded:
                return first
        frame = frame.f_back
    return "?"


def install_tripwires(graded: tuple[str, ...]) -> None:
    """Record every call of PyTorch's attention, and which graded name's code made it.

    Installed before a student's code is loaded, so that an import of the function
    binds the recording wrapper. torch.nn.MultiheadAttention and
    F.multi_head_attention_forward both end in a lookup on torch.nn.functional, so the
    wrappers see them too. A student's code could undo this; it gains that check only,
    and nothing else is read from the student's process.
    """
    import torch
    import torch.nn.functional as F

    for name in BUILTIN_ATTENTION:
        original = getattr(F, name)
        if getattr(original, "_tripwire", False):
            continue

        def wrapper(*args, _name=name, _original=original, **kwargs):
            _tripped.add(f"{_blame(graded)}:torch.nn.functional.{_name}")
            return _original(*args, **kwargs)

        wrapper._tripwire = True
        setattr(F, name, wrapper)
    original_init = torch.nn.MultiheadAttention.__init__
    if not getattr(original_init, "_tripwire", False):

        def init(self, *args, **kwargs):
            _tripped.add(f"{_blame(graded)}:torch.nn.MultiheadAttention")
            original_init(self, *args, **kwargs)

        init._tripwire = True
        torch.nn.MultiheadAttention.__init__ = init
