"""The assignments the kit knows, and where each one's files live.

An assignment is a contract (its graded names, in the order students meet them), a
reference in ``solutions/<name>/reference.py``, a lesson in ``solutions/<name>/lesson.md``
and a package ``autograder/<name>/`` holding its probes, cases, mistakes, points and
hidden graders. Everything else (stubs, notebooks, release) is generated from those.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

from . import KIT_ROOT
from .errors import KitError


@dataclass(frozen=True)
class Assignment:
    name: str
    title: str
    graded: tuple[str, ...]  # the contract's names, in the order the lesson teaches them
    framework: str  # "torch" or "numpy": what the probes hand the student's code

    @property
    def reference_path(self) -> Path:
        return KIT_ROOT / "solutions" / self.name / "reference.py"

    @property
    def lesson_path(self) -> Path:
        return KIT_ROOT / "solutions" / self.name / "lesson.md"

    @property
    def stub_path(self) -> Path:
        return KIT_ROOT / "assignments" / f"{self.name}.py"

    @property
    def source_dir(self) -> Path:
        return KIT_ROOT / "source" / self.name

    @property
    def release_dir(self) -> Path:
        return KIT_ROOT / "release" / self.name

    @property
    def notebook_name(self) -> str:
        return f"{self.name}.ipynb"

    @property
    def package_dir(self) -> Path:
        return KIT_ROOT / "autograder" / self.name

    @property
    def graders_dir(self) -> Path:
        return self.package_dir / "graders"

    def module(self, part: str) -> ModuleType:
        """The assignment's ``probes``, ``cases`` or ``mistakes`` module."""
        return importlib.import_module(f"autograder.{self.name}.{part}")

    @cached_property
    def points(self) -> dict[str, float]:
        """Points per graded name, from the table an instructor edits (points.toml)."""
        path = self.package_dir / "points.toml"
        table = tomllib.loads(path.read_text())
        unknown = sorted(set(table) - set(self.graded))
        missing = [name for name in self.graded if name not in table]
        if unknown or missing:
            raise KitError(
                f"{path}: every graded name needs exactly one entry; "
                f"unknown: {unknown or 'none'}, missing: {missing or 'none'}"
            )
        for name, value in table.items():
            if not isinstance(value, (int, float)) or value < 0:
                raise KitError(f"{path}: points for {name} must be a number >= 0, got {value!r}")
        return {name: float(table[name]) for name in self.graded}


ASSIGNMENTS: dict[str, Assignment] = {
    "mha": Assignment(
        name="mha",
        title="Multi-head attention in PyTorch",
        graded=(
            "tokenize",
            "build_vocab",
            "encode",
            "Embeddings",
            "PositionalEncoding",
            "split_heads",
            "combine_heads",
            "scaled_dot_product_attention",
            "make_padding_mask",
            "make_causal_mask",
            "MultiHeadAttention",
            "display_attention",
        ),
        framework="torch",
    ),
    "attention_numpy": Assignment(
        name="attention_numpy",
        title="Attention in NumPy",
        graded=("positional_encoding", "softmax", "basic_self_attention", "qkv_attention", "multi_head_attention"),
        framework="numpy",
    ),
}


def get(name: str) -> Assignment:
    try:
        return ASSIGNMENTS[name]
    except KeyError:
        known = ", ".join(sorted(ASSIGNMENTS))
        raise KitError(f"unknown assignment {name!r}: the kit has {known}") from None
