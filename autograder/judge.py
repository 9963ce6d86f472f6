"""What a hidden grader uses to judge: run a probe on both sides, compare, explain.

    def test_heads_hold_the_right_features(student, reference, case):
        expect_same(student, reference, probes.split_heads, case)

``student`` and ``reference`` are the fixtures of autograder/plugin.py. A failure
raises ``Mismatch``, whose message is the feedback the student reads; the plugin adds
the name of a known mistake when the student's outputs match one.
"""
from __future__ import annotations

from .core.compare import differences
from .core.probing import PROBES


class Mismatch(AssertionError):
    """A check failed; ``message`` is the feedback, ``evidence`` lets the plugin name the mistake."""

    def __init__(self, message: str, evidence: dict | None = None):
        super().__init__(message)
        self.message = message
        self.evidence = evidence or {}  # probe_id, inputs, got: for the mistake catalogue


def require(condition: bool, message: str, evidence: dict | None = None) -> None:
    """Fail the check with this feedback unless the condition holds.

    evidence ({"probe_id", "inputs", "got"}) lets the plugin name a known mistake.
    """
    if not condition:
        raise Mismatch(message, evidence)


def expect_same(student, reference, probe, inputs: dict, keys: tuple[str, ...] | None = None, what: str = "") -> dict:
    """Run probe on both; fail with the first difference in the outputs named by keys (default: all)."""
    probe_id = probe.probe_id
    want = reference.run(probe_id, inputs)
    got = student.run(probe_id, inputs)
    tolerances = PROBES[probe_id].tolerances
    if keys is not None:
        tolerances = {key: tolerances[key] for key in keys}
    problems = differences(got, want, tolerances, device=student.device)
    if problems:
        context = f" [{what}]" if what else ""
        raise Mismatch(problems[0] + context, {"probe_id": probe_id, "inputs": inputs, "got": got})
    return got


def require_own_attention(got: dict, name: str) -> None:
    """Fail unless name's own code computed attention without PyTorch's built-in versions."""
    calls = sorted({entry.split(":", 1)[1] for entry in got.get("__builtin__", []) if entry.split(":", 1)[0] == name})
    require(
        not calls,
        f"{name} calls {', '.join(calls)}: the exercise is to compute attention yourself, so {name} earns no points",
    )
