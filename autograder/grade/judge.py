"""What a hidden grader uses to judge: run a probe on both sides, compare, explain.

    def test_heads_hold_the_right_features(student, reference, case):
        expect_same(student, reference, probes.split_heads, case)

``student`` and ``reference`` are the fixtures every grader gets (grade/plan.py runs
them; grade/pytest_plugin.py does the same under plain pytest). A failure raises
``Mismatch``, whose message is the feedback the student reads; the engine adds the name
of a known mistake when it explains every failing case of the check.
"""

from __future__ import annotations

from ..public.compare import differences
from ..public.probing import PROBES


class Mismatch(AssertionError):
    """A check failed; ``message`` is the feedback, ``evidence`` lets the engine name the mistake."""

    def __init__(self, message: str, evidence: dict | None = None):
        super().__init__(message)
        self.message = message
        self.evidence = evidence or {}  # probe_id, inputs, got, keys: for the mistake catalogue


def require(condition: bool, message: str, evidence: dict | None = None) -> None:
    """Fail the check with this feedback unless the condition holds.

    evidence ({"probe_id", "inputs", "got", "keys"}) lets the engine name a known mistake.
    """
    if not condition:
        raise Mismatch(message, evidence)


def expect_same(student, reference, probe, inputs: dict, keys: tuple[str, ...] | None = None, what: str = "") -> dict:
    """Run probe on both; fail with the first difference in the outputs named by keys (default: all)."""
    probe_id = probe.probe_id
    want = reference.run(probe_id, inputs)
    got = student.run(probe_id, inputs)
    entry = PROBES[probe_id]
    tolerances = entry.tolerances if keys is None else {key: entry.tolerances[key] for key in keys}
    problems = differences(got, want, tolerances, device=student.device, any_device=entry.any_device)
    if problems:
        context = f" [{what}]" if what else ""
        raise Mismatch(problems[0] + context, {"probe_id": probe_id, "inputs": inputs, "got": got, "keys": keys})
    return got


def require_own_attention(student, probe, inputs: dict, name: str) -> None:
    """Fail only if name's own code called one of PyTorch's attention functions (a crash for any other reason passes)."""
    from ..sandbox.guest.forbidden import blamed

    error = student.error_of(probe.probe_id, inputs)
    require(
        not (error and blamed(error, name)),
        f"{name} calls PyTorch's own attention ({error.split('calls ', 1)[-1].split(':')[0] if error else ''}): "
        f"the exercise is to compute attention yourself, so {name} earns no points",
    )
