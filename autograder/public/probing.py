"""Probes: small, public functions that exercise one graded name and return plain arrays.

A probe runs the same way on the reference (in the trusted grader) and on a student's
code (in the student's process): it turns plain inputs into tensors on the grading
device, calls the graded name, and returns what the checks compare. Every output
declares the tolerance it is compared with, beside the probe, with the reason.

    @probe(out=EXACT)
    def split_heads(impl, x, n_heads):
        return {"out": impl.split_heads(impl.tensor(x), n_heads)}

A probe whose graded name takes no tensor (``encode``, ``make_causal_mask``) declares
``any_device=True``: the contract lets it make its tensor on either device.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .wire import to_array, with_device


@dataclass(frozen=True)
class Tolerance:
    """|got - want| <= atol + rtol * |want|, elementwise; why says what the math allows."""

    rtol: float
    atol: float
    why: str

    def close(self, got: np.ndarray, want: np.ndarray) -> np.ndarray:
        """Elementwise; a NaN is close to a NaN in the same place, exact tolerances included."""
        if got.dtype.kind not in "fc" or want.dtype.kind not in "fc":
            return np.asarray(got == want)
        both_nan = np.isnan(got) & np.isnan(want)
        if self.rtol == 0 and self.atol == 0:
            return np.asarray(both_nan | (got == want))
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        return np.asarray(both_nan | (np.abs(got - want) <= self.atol + self.rtol * np.abs(want)))


EXACT = Tolerance(0.0, 0.0, "integers, booleans, strings and pure data movement are reproduced bit for bit")


@dataclass(frozen=True)
class Probe:
    id: str
    function: Callable
    tolerances: dict[str, Tolerance]  # output key -> tolerance; keys not listed are not compared
    any_device: bool = False  # the graded name takes no tensor, so its result may be on either device


PROBES: dict[str, Probe] = {}


def probe(any_device: bool = False, **tolerances: Tolerance):
    """Register a probe and the tolerance of each output it returns."""

    def register(function):
        probe_id = f"{function.__module__.rsplit('.', 2)[-2]}.{function.__name__}"
        PROBES[probe_id] = Probe(probe_id, function, tolerances, any_device)
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

    @property
    def namespace(self) -> dict:
        """The names of the implementation (the student's code looks its names up here)."""
        return self._namespace

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._namespace.get(name)
        return Missing(name) if value is None else value

    def tensor(self, array, dtype=None):
        """A fresh tensor on the grading device, made from a plain array (never shared)."""
        import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

        result = torch.tensor(np.array(array, copy=True), device=self.device)
        return result if dtype is None else result.to(dtype)


def to_plain(key: str, value, outputs: dict) -> None:
    """Store value under key as a plain array; a tensor's array also carries its device.

    The dtype and shape are those of the array itself: nothing is recorded beside it.
    """
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        device = value.device.type
        value = value.detach().resolve_conj().resolve_neg()
        value = value.as_subclass(torch.Tensor).to("cpu")  # a subclass's own methods are never called
        if value.dtype == torch.bfloat16:  # NumPy has no bfloat16: its values, in float32
            value = value.float()
        outputs[key] = with_device(np.array(value.numpy(), copy=True), device)
    elif isinstance(value, np.ndarray) and value.dtype.kind in "biufU":
        outputs[key] = np.array(value, copy=True, subok=False)
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
    try:
        raw = entry.function(impl, **inputs)
        outputs: dict[str, np.ndarray] = {}
        for key, value in raw.items():
            to_plain(key, value, outputs)
        return outputs, None
    except ContractError as error:
        return {}, str(error)
    except BaseException as error:  # a student's code may raise anything, SystemExit included
        return {}, f"your code raised {describe_exception(error)}"


def calls_its_code(impl: Implementation, name: str) -> dict:
    """Call the code of a graded name that is a class, asking nothing of what it does: each method the class
    defines, its constructor first, on an instance made without running it, with None for every argument it
    requires. Raises the first NotImplementedError one of them raises; anything else is ignored, and what
    they print is not shown.

    Every check of a class may fail before its methods run (its constructor still empty, the
    attributes the checks load weights into are missing): this tells whether the class is
    still its stub, whose error names the exercise (grade/unfinished.py). A function's checks
    call it, and tell that themselves: it is not called here."""
    exercise = getattr(impl, name)
    if not inspect.isclass(exercise):
        return {}
    try:
        instance = exercise.__new__(exercise)  # its own __new__, as calling the class runs it
    except Exception:
        instance = None
    methods = [function for function in vars(exercise).values() if inspect.isfunction(function)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for method in methods:
            args, kwargs = _nones(method)
            try:
                method(instance, *args, **kwargs)
            except NotImplementedError:
                raise
            except Exception:
                continue
    return {}


def _nones(method) -> tuple[list, dict]:
    """None for each parameter of a method without a default, after its first (self): (args, kwargs)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())[1:]
    except (TypeError, ValueError):
        return [], {}
    required = [p for p in parameters if p.default is inspect.Parameter.empty]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return (
        [None for p in required if p.kind in positional],
        {p.name: None for p in required if p.kind == inspect.Parameter.KEYWORD_ONLY},
    )


CALLS_ITS_CODE = "kit.calls_its_code"
PROBES[CALLS_ITS_CODE] = Probe(CALLS_ITS_CODE, calls_its_code, {})


# Functions that turn a code object's file name into the name a student knows it by
# ("cell In [7]" in a notebook); the first one that answers wins.
FRAME_NAMES: list[Callable[[str], str | None]] = []


def frame_name(filename: str) -> str:
    for name_of in FRAME_NAMES:
        try:
            name = name_of(filename)
        except Exception:
            name = None
        if name:
            return name
    return filename


def describe_exception(error: BaseException) -> str:
    """'ValueError: message (in cell In [12], line 4: the line)': the student's frame nearest the error."""
    try:
        text = str(error).strip()
    except Exception:
        text = ""
    message = text.splitlines()[0][:300] if text else ""
    where = ""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if not is_kit_or_library(frame.filename):
            line = (frame.line or "").strip()
            quote = f": {line[:120]}" if line and message not in line else ""
            function = f"{frame.name}, " if frame.name not in ("<module>", "") else ""
            where = f" (in {function}{frame_name(frame.filename)}, line {frame.lineno}{quote})"
            break
    return f"{type(error).__name__}: {message}{where}" if message else f"{type(error).__name__}{where}"


# The place describe_exception appends: " (in function, file, line 12: the line)".
_WHERE = re.compile(r" \(in [^()]*?, line \d+(?::.*)?\)$")
_QUOTED = re.compile(r" \(in (?:(\w+), )?[^()]*?, line \d+: (.*)\)$")
_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")
_OPERATOR = re.compile(r"(?<![*/])([+*/@])(?![*/])")
_BROADCASTING = ("must match the size of tensor", "could not be broadcast together")
# Calls that do the same, by one name: building a tensor or an array, a softmax, a matrix product, arithmetic.
_ALIASES = {
    **dict.fromkeys(("LongTensor", "FloatTensor", "IntTensor", "BoolTensor", "Tensor", "as_tensor"), "tensor"),
    **dict.fromkeys(("asarray", "asanyarray"), "array"),
    "Softmax": "softmax",
    **dict.fromkeys(("bmm", "mm", "dot", "@"), "matmul"),
    **{"add": "+", "mul": "*", "multiply": "*", "div": "/", "divide": "/", "true_divide": "/"},
}
_KEYWORDS = frozenset({"if", "elif", "while", "for", "in", "not", "and", "or", "return", "lambda", "assert", "yield"})


def error_kind(error: str) -> str:
    """An error's type and message without the place it was raised: the same mistake raises
    the same error in a student's file and in the kit's copy of the reference."""
    return _WHERE.sub("", error.strip())


def raising_calls(error: str, with_function: bool = False) -> frozenset[str]:
    """The functions and methods called on the line an error quotes (describe_exception's
    "line 12: the line"), by their common name (LongTensor and tensor build the same tensor,
    masked_fill_ is masked_fill in place), and the operators that may have raised it (@, and
    +, * and / where the error is that shapes do not broadcast): what raised it, read the
    same in a student's file and in the reference's. With
    ``with_function``, the function that line is in as well (a student's own softmax helper).
    None where the error quotes no line."""
    quoted = _QUOTED.search(error.strip())
    if quoted is None:
        return frozenset()
    function, line = quoted.groups()
    code = line.split("  #", 1)[0]  # a comment says nothing of what raised
    operators = set(_OPERATOR.findall(code))
    if not any(words in error for words in _BROADCASTING):
        operators &= {"@"}  # an arithmetic operator raises only where shapes do not broadcast
    called = set(_CALLED.findall(code)) | operators | ({function} if with_function and function else set())
    return frozenset(_ALIASES.get(name.rstrip("_"), name.rstrip("_")) for name in called if name) - _KEYWORDS


def same_error(slip: str, student: str) -> bool:
    """Whether a student's error is the one a slip of the reference raises: the same type and message,
    raised by a line that calls some of the same functions (or in a function of the student's named after
    one of them), where both errors quote their line. An IndexError of key.transpose(2, 3) is not one of
    softmax(dim=3), though both say "Dimension out of range"."""
    if error_kind(slip) != error_kind(student):
        return False
    theirs, mine = raising_calls(slip), raising_calls(student, with_function=True)
    return not theirs or not mine or bool(theirs & mine)


# The kit's own files: autograder/ in the kit, the in-memory modules of a self-check bundle.
KIT_FILES = (str(Path(__file__).resolve().parents[1]), "<selfcheck")


def is_kit_or_library(filename: str) -> bool:
    return filename.startswith(KIT_FILES) or any(m in filename for m in ("site-packages", "/lib/python3", "<frozen"))
