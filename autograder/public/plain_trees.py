"""Trees of plain data: what error carried forward sends for a call's arguments, a module's state and a result.

A tree is JSON (numbers, strings, None, and tagged lists, tuples, dicts, arrays, tensors
with whether they require a gradient, dtypes and callables as handles) with its arrays
beside it; public/carry.py's stand-ins and the trusted side (grade/carry.py) both speak it.
Every tree is bounded: MAX_DEPTH levels, MAX_LEAVES values.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable

import numpy as np

from .probing import ContractError
from .wire import PLAIN_KINDS

MAX_DEPTH = 16  # nesting of a tree
MAX_LEAVES = 4096  # values in a tree


class CarryError(ContractError):
    """A stand-in could not answer (refused, or the reference raised): the call fails with this message."""


def loaded_torch():
    return sys.modules.get("torch")


class Encoder:
    """Turns arguments and results into a tree and its arrays; keeps the tensors and callables met, in order."""

    def __init__(self, arrays: dict | None = None, callables: list | None = None):
        self.arrays = arrays if arrays is not None else {}
        self.callables = callables  # None: a callable cannot be sent
        self.tensors: list = []  # every tensor leaf, in the tree's order
        self._leaves = 0

    def tree(self, value, depth: int = 0):
        self._leaves += 1
        if depth > MAX_DEPTH or self._leaves > MAX_LEAVES:
            raise CarryError("the arguments are nested too deeply, or hold too many values, to be carried")
        torch = loaded_torch()
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, np.generic) and value.dtype.kind in PLAIN_KINDS:
            return value.item()
        if torch is not None and isinstance(value, torch.Tensor):
            self.tensors.append(value)
            plain = value.detach().resolve_conj().resolve_neg().as_subclass(torch.Tensor).to("cpu")
            if plain.dtype == torch.bfloat16:
                plain = plain.float()
            return {"$": "tensor", "a": self._array(plain.numpy()), "grad": bool(value.requires_grad)}
        if isinstance(value, np.ndarray) and value.dtype.kind in PLAIN_KINDS:
            return {"$": "ndarray", "a": self._array(value)}
        if torch is not None and isinstance(value, torch.dtype):
            return {"$": "dtype", "name": str(value).removeprefix("torch.")}
        if isinstance(value, (list, tuple)):
            return {"$": type(value).__name__, "items": [self.tree(item, depth + 1) for item in value]}
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return {"$": "dict", "items": [[key, self.tree(item, depth + 1)] for key, item in value.items()]}
        if callable(value) and self.callables is not None:
            self.callables.append(value)
            return {"$": "callable", "h": len(self.callables) - 1}
        raise CarryError(f"a {type(value).__name__} cannot be carried to the reference")

    def _array(self, array: np.ndarray) -> str:
        key = f"t{len(self.arrays)}"
        self.arrays[key] = np.array(array, copy=True, order="C")
        return key


class Decoder:
    """Turns a tree and its arrays back into values: arrays, tensors (made by ``tensor``) and callables."""

    def __init__(self, arrays: dict, tensor: Callable | None = None, callable_of: Callable | None = None):
        self.arrays = arrays
        self.tensor = tensor  # (array, wants_grad) -> tensor
        self.callable_of = callable_of  # handle -> a callable
        self.tensors: list = []  # every tensor made, in the tree's order
        self._leaves = 0

    def value(self, tree, depth: int = 0):
        self._leaves += 1
        if depth > MAX_DEPTH or self._leaves > MAX_LEAVES:
            raise CarryError("a carried tree is nested too deeply or holds too many values")
        if tree is None or isinstance(tree, (bool, int, float, str)):
            return tree
        if not isinstance(tree, dict) or not isinstance(tree.get("$"), str):
            raise CarryError("a carried tree is malformed")
        tag = tree["$"]
        if tag in ("tensor", "ndarray"):
            array = self.arrays.get(tree.get("a"))
            if not isinstance(array, np.ndarray):
                raise CarryError("a carried tree names an array that was not sent")
            if tag == "ndarray" or self.tensor is None:
                return np.array(array, copy=True)
            made = self.tensor(array, bool(tree.get("grad")))
            self.tensors.append(made)
            return made
        if tag == "dtype":
            torch = loaded_torch()
            dtype = getattr(torch, str(tree.get("name")), None) if torch is not None else None
            if torch is None or not isinstance(dtype, torch.dtype):
                raise CarryError("a carried tree names an unknown dtype")
            return dtype
        if tag in ("list", "tuple"):
            items = [self.value(item, depth + 1) for item in _items(tree)]
            return items if tag == "list" else tuple(items)
        if tag == "dict":
            pairs = _items(tree)
            if not all(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) for pair in pairs):
                raise CarryError("a carried tree is malformed")
            return {key: self.value(item, depth + 1) for key, item in pairs}
        if tag == "callable" and self.callable_of is not None and isinstance(tree.get("h"), int):
            return self.callable_of(tree["h"])
        raise CarryError("a carried tree is malformed")


def _items(tree: dict) -> list:
    items = tree.get("items")
    if not isinstance(items, list):
        raise CarryError("a carried tree is malformed")
    return items


def leaves(trees, kind: str) -> list[dict]:
    """The leaves of one kind ("tensor", "callable") of the trees, in the trees' order."""
    found: list[dict] = []

    def walk(tree) -> None:
        if isinstance(tree, dict) and tree.get("$") == kind:
            found.append(tree)
        elif isinstance(tree, dict) and tree.get("$") in ("list", "tuple"):
            for item in tree.get("items", []):
                walk(item)
        elif isinstance(tree, dict) and tree.get("$") == "dict":
            for pair in tree.get("items", []):
                walk(pair[1])

    for tree in trees:
        walk(tree)
    return found


def normalized(function, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments bound to the function's parameters, in order, defaults filled in: a call by keyword
    and the same call by position are then one call. As given where they cannot be bound."""
    try:
        signature = inspect.signature(function)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
            return args, kwargs
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
    except (TypeError, ValueError):
        return args, kwargs
    return tuple(bound.arguments.values()), {}


def method_signature_of(cls, method: str):
    """A class's method without its self, for ``normalized`` (None where the class has no such method)."""
    function = getattr(cls, method, None) if isinstance(cls, type) else None
    if function is None:
        return None
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())[1:]

    def bindable(*args, **kwargs):
        return None

    bindable.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return bindable
