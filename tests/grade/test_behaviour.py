"""Is a failing case's behaviour digest the same for the same behaviour, wherever it is computed, and different otherwise?"""

import numpy as np
import pytest

from autograder import assignments
from autograder.grade.behaviour import case_behaviour, plain
from autograder.results.model import CheckResult

PROBE = "attention_numpy.softmax"  # its output "out" is compared with rtol 1e-6, atol 1e-9 (float64)


@pytest.fixture(scope="module", autouse=True)
def probes():
    assignments.get("attention_numpy").module("probes")  # registers PROBE and its tolerance


class Reference:
    """Answers every probe call with the same outputs."""

    def __init__(self, outputs: dict):
        self.outputs = outputs

    def run(self, probe_id, inputs):
        return self.outputs


WANT = {"out": np.random.default_rng(7).standard_normal((4, 6))}


def failed(got: dict | None = None, error: str | None = None, message: str = "failed", keys=None) -> CheckResult:
    result = CheckResult("softmax", "test_softmax::test_rows", "normalises rows", "case", False, message)
    if got is not None:
        result.evidence = {"probe_id": PROBE, "inputs": {"x": np.zeros(2)}, "got": got, "keys": keys}
    elif error is not None:
        result.evidence = {"probe_id": PROBE, "inputs": {"x": np.zeros(2)}, "error": error}
    return result


def digest(got: np.ndarray) -> str:
    return case_behaviour(failed({"out": got}), Reference(WANT))


def test_rounding_noise_of_another_cpu_changes_nothing():
    """Outputs off by a slip, then off again by a million times less than the tolerance (another CPU's
    rounding, or float32 against float64): is the digest the same?"""
    wrong = WANT["out"] * 1.3
    noise = np.random.default_rng(1).uniform(-1, 1, wrong.shape)
    assert digest(wrong) == digest(wrong * (1 + 1e-12 * noise)) == digest(wrong + 1e-15 * noise)
    assert digest(wrong) == digest(wrong.astype(np.float32))  # 6e-8 relative, rtol is 1e-6; NumPy's dtype is not judged


def test_other_outputs_give_another_digest():
    """Off the other way, off by twice as much, off on other elements, another shape, a NaN: is each its own?"""
    wrong = WANT["out"] * 1.3
    others = [WANT["out"] * 0.7, WANT["out"] * 1.6, np.where(np.arange(24).reshape(4, 6) % 2, wrong, WANT["out"])]
    others += [wrong.T, np.where(np.eye(4, 6, dtype=bool), np.nan, wrong), wrong[None]]
    digests = [digest(wrong)] + [digest(other) for other in others]
    assert len(set(digests)) == len(digests)


def test_exact_outputs_are_judged_by_their_values():
    """Integers, booleans and strings: is the digest that of the values themselves?"""
    ids = {"out": np.array([[2, 3, 1]])}
    narrow = {"out": np.array([[2, 3, 1]], dtype=np.int32)}
    assert case_behaviour(failed(ids), Reference(WANT)) == case_behaviour(failed(narrow), Reference(WANT))
    assert case_behaviour(failed(ids), Reference(WANT)) != case_behaviour(
        failed({"out": np.array([[2, 3, 4]])}), Reference(WANT)
    )


def test_the_same_error_wherever_it_was_raised():
    """The same exception raised at another line of another student's file: the same digest; another message: not."""
    here = "ValueError: shapes (4,6) and (4,6) not aligned (in softmax, cell In [3], line 4: return x @ x)"
    there = "ValueError: shapes (4,6) and (4,6) not aligned (in softmax, submission.py, line 17: return y @ y)"
    other = "ValueError: shapes (4,6) and (6,4) not aligned (in softmax, submission.py, line 17: return y @ y)"
    reference = Reference(WANT)
    assert case_behaviour(failed(error=here), reference) == case_behaviour(failed(error=there), reference)
    assert case_behaviour(failed(error=here), reference) != case_behaviour(failed(error=other), reference)


def test_a_message_without_timings_or_addresses():
    """A process that hung: do the seconds and an object's address stay out of the digest, and the kind of failure in?"""
    assert plain("took longer than 12.5 s at <object at 0x7f3a2b>") == plain(
        "took longer than 3.25 s at <object at 0x55aa01>"
    )
    reference = Reference(WANT)
    slow = case_behaviour(failed(message="checking softmax took longer than 12.5 s"), reference)
    assert slow == case_behaviour(failed(message="checking softmax took longer than 7.5 s"), reference)
    assert slow != case_behaviour(failed(message="checking softmax used more than 512 MiB of memory"), reference)


def test_no_digest_for_a_pass_or_the_kits_own_failure():
    """A passing case and a grader that broke have no behaviour of the student's to group."""
    passed = CheckResult("softmax", "t::t", "title", "", True)
    broken = failed(message="the grader itself failed")
    broken.internal_error = True
    assert case_behaviour(passed, Reference(WANT)) == case_behaviour(broken, Reference(WANT)) == ""


def test_a_digest_that_cannot_be_made_costs_nothing():
    """Evidence the digest cannot read (an unknown probe, outputs that are not arrays): is the case left ungrouped,
    with no exception for the grading to report?"""
    unknown = failed({"out": WANT["out"]})
    unknown.evidence["probe_id"] = "no_such.probe"
    odd = failed({"out": "not an array"})
    assert case_behaviour(unknown, Reference(WANT)) == case_behaviour(odd, Reference(WANT)) == ""
