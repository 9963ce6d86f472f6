"""Every grading option, its default and its help, in one place for every front end.

The grade commands (``grade``, ``grade-all``), the plain-pytest route
(``--grade-<option>``), the Gradescope bundle and the tests all build a
``GradingConfig``; none declares an option or a default of its own.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .sandbox.host.session import StudentLimits

GiB = 1024**3


def option(default, help: str, **argparse_options):
    return field(default=default, metadata={"help": help, **argparse_options})


@dataclass(frozen=True)
class GradingConfig:
    device: str = option(
        "cpu",
        "where the student's code runs: cpu, cuda or auto (cuda where a GPU is there and CUDA can be isolated, "
        "else the CPU, saying why)",
        choices=["cpu", "cuda", "auto"],
    )
    timeout: float = option(10.0, "CPU seconds the student's code may use per exercise (and to load)", type=float)
    wall_factor: float = option(3.0, "an exercise may take this many times its CPU seconds in wall time", type=float)
    memory: float = option(2.0, "GiB of memory the student's code may use", type=float)
    processes: int = option(32, "processes and threads the student's code may run at once", type=int)
    grader_memory: float = option(
        4.0,
        "GiB the grader's own process may grow by while it grades one submission (past it, that submission is "
        "'not graded', and the grader goes on)",
        type=float,
    )
    isolation: str = option(
        "auto",
        "auto (the strongest this host allows), hardened, userns, uid or process",
        choices=["auto", "hardened", "userns", "uid", "process"],
    )
    allow_unsandboxed: bool = option(
        False,
        "where no isolation tier works, grade in a plain separate process instead of refusing (NOT isolated)",
        action="store_true",
    )
    gpu_memory: float = option(
        2.0, "GiB of GPU memory the student's code may hold on a GPU, its CUDA context included", type=float
    )

    def limits(self):
        return StudentLimits(
            timeout=self.timeout,
            wall_factor=self.wall_factor,
            memory_bytes=int(self.memory * GiB),
            processes=self.processes,
            gpu_memory_bytes=int(self.gpu_memory * GiB),
        )

    def with_options(self, **changes) -> GradingConfig:
        return replace(self, **changes)

    # ---------------------------------------------------------------- front ends

    @classmethod
    def add_arguments(cls, parser, prefix: str = "") -> None:
        """One --<prefix><name> option per field, with its help and its default (argparse or a pytest group)."""
        add = getattr(parser, "add_argument", None) or parser.addoption
        for item in fields(cls):
            extra = dict(item.metadata)
            help_text = extra.pop("help")
            name = f"--{prefix}{item.name.replace('_', '-')}"
            if extra.get("action") == "store_true":
                add(name, help=help_text, **extra)
            else:
                add(name, default=item.default, help=f"{help_text} (default {item.default})", **extra)

    @classmethod
    def from_arguments(cls, arguments: argparse.Namespace | Callable[[str], object], prefix: str = "") -> GradingConfig:
        """The config an argparse namespace or a pytest config (its getoption) holds."""
        values: dict[str, Any] = {}  # already of each field's type: its option parses it (type=, choices, store_true)
        for item in fields(cls):
            option = f"{prefix}{item.name.replace('_', '-')}"
            value = (
                arguments(f"--{option}") if callable(arguments) else getattr(arguments, option.replace("-", "_"), None)
            )
            if value is not None:
                values[item.name] = value
        return cls(**values)

    def as_arguments(self) -> list[str]:
        """The command-line options that give this config (for a command another process runs)."""
        words = []
        for item in fields(self):
            value = getattr(self, item.name)
            if value == item.default:
                continue
            name = f"--{item.name.replace('_', '-')}"
            words += [name] if value is True else [name, str(value)]
        return words
