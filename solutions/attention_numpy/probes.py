"""Probes of the `attention_numpy` assignment: plain NumPy in, plain NumPy out."""

from __future__ import annotations

import numpy as np

# Relative, so that this file works unchanged in the kit and in the self-check bundle.
from ...public.probing import EXACT, ContractError, Tolerance, probe

# The inputs are float64 (16 significant digits); a correct implementation that sums
# in another order (einsum, loops, @) agrees to about 1e-14 relative. The tolerance
# leaves room for a harmless float32 step (7 digits) and no more: every catalogued
# mistake moves values by 1e-2 or more.
FLOAT64 = Tolerance(rtol=1e-6, atol=1e-9, why="float64 results summed in another order, or one float32 step")


def _array(value, what: str) -> np.ndarray:
    if not isinstance(value, (np.ndarray, list, tuple, float, int, np.floating)):
        raise ContractError(f"{what} should return a NumPy array, got {type(value).__name__}")
    array = np.asarray(value)
    if array.dtype.kind not in "fiub":
        raise ContractError(f"{what} should return numbers, got an array of {array.dtype}")
    return array.astype(np.float64)


def _copy(array) -> np.ndarray:
    return np.array(array, dtype=np.float64, copy=True)


@probe(out=FLOAT64, input_kept=EXACT)
def softmax(impl, x, axis=-1):
    """The softmax, and whether the array it was given is unchanged after the call (a caller's scores)."""
    given = _copy(x)
    out = _array(impl.softmax(given, axis=axis), "softmax")
    return {"out": out, "input_kept": np.bool_(np.array_equal(given, x, equal_nan=True))}


@probe(out=FLOAT64)
def basic_self_attention(impl, x):
    return {"out": _array(impl.basic_self_attention(_copy(x)), "basic_self_attention")}


@probe(out=FLOAT64)
def qkv_attention(impl, x, W_q, W_k, W_v, scale=True):
    result = impl.qkv_attention(_copy(x), _copy(W_q), _copy(W_k), _copy(W_v), scale=scale)
    return {"out": _array(result, "qkv_attention")}


@probe(out=FLOAT64)
def positional_encoding(impl, seq_len, d_model):
    return {"out": _array(impl.positional_encoding(seq_len, d_model), "positional_encoding")}


@probe(out=FLOAT64)
def multi_head_attention(impl, x, W_q, W_k, W_v, W_o, n_heads):
    arrays = [_copy(a) for a in (x, W_q, W_k, W_v, W_o)]
    return {"out": _array(impl.multi_head_attention(*arrays, n_heads), "multi_head_attention")}
