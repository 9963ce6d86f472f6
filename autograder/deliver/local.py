"""The student's code in this very process: nbgrader's hidden cells and a student's self-check.

Not isolated in any way; the grade command uses a sandboxed Session instead. Same
interface: run(name, probe_id, inputs) returns plain arrays or raises StudentError.
"""
from __future__ import annotations

import copy

from ..core.probing import Implementation, run_probe
from .session import StudentError


class InProcessSession:
    def __init__(self, namespace: dict, device: str = "cpu"):
        self.impl = Implementation(namespace, device=device)
        self.notes: list[str] = []

    def run(self, name: str, probe_id: str, inputs: dict):
        outputs, error = run_probe(probe_id, self.impl, copy.deepcopy(inputs))  # the student may change its inputs
        if error:
            raise StudentError(error)
        return outputs

    def close(self) -> None:
        pass
