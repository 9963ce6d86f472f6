"""What a hidden grader uses to judge: run a probe on both sides, compare, explain.

    def test_heads_hold_the_right_features(student, reference, case):
        expect_same(student, reference, probes.split_heads, case)

``student`` and ``reference`` are the fixtures every grader gets (grade/plan.py runs
them; grade/pytest_plugin.py does the same under plain pytest). A failure raises
``Mismatch``, whose message is the feedback the student reads; the engine adds the name
of a known mistake when it explains every failing case of the check.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..public.compare import differences
from ..public.probing import PROBES
from ..public.torch_probes import as_probability, dropout_key
from ..sandbox.guest.forbidden import blamed


@runtime_checkable
class Answers(Protocol):
    """What answers a probe call with plain arrays: the reference (grade.reference.Reference)."""

    def run(self, probe_id: str, inputs: dict) -> dict: ...


@runtime_checkable
class Student(Answers, Protocol):
    """What a check sees of the code it grades: the student's code in its sandbox
    (grade.engine.StudentView), in a notebook's kernel (deliver.nbgrader.InProcessStudent),
    or the reference seen the same way (grade.engine.ReferenceView, for the rehearsal).

    ``run`` raises sandbox.host.session.StudentError where the code fails; ``error_of``
    gives that error's text instead (None where the code answered).
    """

    device: str  # where the probe's tensors are made

    def error_of(self, probe_id: str, inputs: dict) -> str | None: ...


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


def expect_same(
    student: Student, reference: Answers, probe, inputs: dict, keys: tuple[str, ...] | None = None, what: str = ""
) -> dict:
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


def require_own_attention(student: Student, probe, inputs: dict, name: str) -> None:
    """Fail only if name's own code called one of PyTorch's attention functions (a crash for any other reason passes)."""
    error = student.error_of(probe.probe_id, inputs)
    require(
        not (error and blamed(error, name)),
        f"{name} calls PyTorch's own attention ({error.split('calls ', 1)[-1].split(':')[0] if error else ''}): "
        f"the exercise is to compute attention yourself, so {name} earns no points",
    )


def require_dropouts_built(
    student: Student, probe, name: str, args: list, p: float, paths=("dropout",), fix: str = ""
) -> None:
    """Fail unless the module ``name`` built with ``args`` and dropout=p keeps p in each dropout at ``paths``, read
    as built by ``probe`` (a probe that runs nothing forward). ``fix``: what to do, said after the first that does not."""
    case = {"name": name, "args": list(args), "p": p, "paths": list(paths)}
    got = student.run(probe.probe_id, case)
    evidence = {
        "probe_id": probe.probe_id,
        "inputs": case,
        "got": got,
        "keys": tuple(PROBES[probe.probe_id].tolerances),
    }
    # Only the probabilities asked for, each a number: anything else the student's process sent
    # (an extra key, a value that is no number) is the student's, never a failure of the kit.
    built = {key: as_probability(got.get(key)) for key in (dropout_key(path) for path in paths)}
    wrong = [key for key, value in built.items() if value != p]  # the number given, stored as given: exact
    shown = f"{name}({', '.join(str(a) for a in args)}, dropout={p:g})"
    require(
        not wrong,
        f"{shown}.{wrong[0].removeprefix('self.')} is {built[wrong[0]]:g}: "
        + (fix or "build self.dropout = nn.Dropout(dropout), with the probability given")
        if wrong
        else "",
        evidence,
    )
