"""Seeded inputs for the graders and the visible checks.

``rng(seed)`` seeds Python's random, NumPy's global generator and torch together
(so that any code drawing from them is repeatable) and returns a NumPy generator of
its own from which the inputs are drawn: the same seed always gives the same inputs.
"""

from __future__ import annotations

import random
import sys

import numpy as np


def rng(seed: int) -> np.random.Generator:
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")  # seeded where it is in use; never imported for this
    if torch is not None:
        # The CPU generator only: torch.manual_seed would also queue a CUDA seeding,
        # which records a stack trace each time (milliseconds per call).
        torch.random.default_generator.manual_seed(seed)
    return np.random.default_rng(seed)


def normal(seed: int, *shape: int, scale: float = 1.0) -> np.ndarray:
    """float32 values drawn from N(0, scale^2), of the given shape."""
    return (rng(seed).standard_normal(shape) * scale).astype(np.float32)


def linear_weights(seed: int, d_in: int, d_out: int) -> tuple[np.ndarray, np.ndarray]:
    """(weight (d_out, d_in), bias (d_out,)) drawn like nn.Linear's default: U(-1/sqrt(d_in), 1/sqrt(d_in))."""
    generator = rng(seed)
    bound = 1 / np.sqrt(d_in)
    weight = generator.uniform(-bound, bound, (d_out, d_in)).astype(np.float32)
    bias = generator.uniform(-bound, bound, (d_out,)).astype(np.float32)
    return weight, bias


def layers(seed: int, names, d_model: int) -> dict[str, np.ndarray]:
    """{"<name>.weight", "<name>.bias"} of square nn.Linear layers, one seed each (seed, seed + 1, ...)."""
    table = {}
    for offset, name in enumerate(names):
        table[f"{name}.weight"], table[f"{name}.bias"] = linear_weights(seed + offset, d_model, d_model)
    return table


def keep_mask(seed: int, *shape: int, p: float = 0.5) -> np.ndarray:
    """A fixed dropout pattern: 1.0 where an element is kept, 0.0 where it is dropped."""
    return (rng(seed).random(shape) >= p).astype(np.float32)


def counting(*shape: int) -> np.ndarray:
    """0, 1, 2, ... in float32, laid out in the given shape: each value names its own position in the
    array (x[b, t, f] = (b * seq + t) * d + f), so that a value moved by a layout slip says where it came
    from (exact in float32 up to 2^24)."""
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
