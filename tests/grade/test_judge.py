"""Does judging compare as it says, and does every view of code answer the protocol the graders rely on?"""

import numpy as np
import pytest

from autograder import assignments
from autograder.assignments import discover
from autograder.deliver.routes.nbgrader import InProcessStudent
from autograder.grade.engine import ReferenceView, StudentView
from autograder.grade.judge import Answers, Mismatch, Student, expect_same, require, require_own_attention
from autograder.grade.reference import Reference

NUMPY = discover()["attention_numpy"]


def test_every_view_of_code_is_a_student_and_the_reference_answers():
    """Do the views a check receives (sandboxed, in a kernel, the reference as a student) satisfy Student?"""
    reference = Reference.of(NUMPY)
    views = [
        StudentView(session=None, name="softmax", device="cpu", sizes={}),
        InProcessStudent({}, "softmax"),
        ReferenceView(reference),
    ]
    assert all(isinstance(view, Student) for view in views)
    assert isinstance(reference, Answers)
    assert not isinstance(reference, Student)  # it has no device of its own: it is never the graded side
    assert not isinstance(object(), Answers)


def test_expect_same_passes_the_reference_and_names_the_difference_of_a_wrong_one():
    """Does expect_same pass the reference against itself and fail, with the differing value, on a wrong softmax?"""
    probes = NUMPY.module("probes")
    reference = Reference.of(NUMPY)
    inputs = {"x": np.array([[1.0, 2.0, 3.0]]), "axis": -1}
    probe = probes.softmax
    expect_same(ReferenceView(reference), reference, probe, inputs)

    # each weight divided by one more than the row's sum: every weight off by 1/(sum + 1) of itself
    wrong = InProcessStudent({"softmax": lambda x, axis=-1: np.exp(x) / (np.exp(x).sum() + 1.0)}, "softmax")
    with pytest.raises(Mismatch) as failure:
        expect_same(wrong, reference, probe, inputs)
    assert "got" in failure.value.message and "expected" in failure.value.message, failure.value.message
    assert failure.value.evidence["probe_id"] == probe.probe_id


def test_require_fails_with_its_message_only_when_the_condition_is_false():
    """Does require raise Mismatch with the given message on a false condition, and nothing on a true one?"""
    require(True, "never shown")
    with pytest.raises(Mismatch, match="the reason"):
        require(False, "the reason", {"probe_id": "p"})


class Reporting:
    """A student's side that reports these outputs for any probe call."""

    device = "cpu"

    def __init__(self, outputs: dict):
        self.outputs = outputs

    def run(self, probe_id: str, inputs: dict) -> dict:
        return self.outputs

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        return None


def test_a_dropout_read_ignores_what_was_not_asked_and_fails_a_value_that_is_no_number():
    """Does require_dropouts_built judge only the probabilities asked for, failing the student (not the kit) on junk?"""
    from autograder.grade.authoring import require_dropouts_built

    probe = assignments.get("mha").module("probes").dropout_built
    forged = {"self.dropout.p": np.array(0.3), "self.dropout.p@dtype": np.array("int64")}  # an extra label
    require_dropouts_built(Reporting(forged), probe, "MultiHeadAttention", [8, 2], 0.3)
    with pytest.raises(Mismatch, match="is nan"):
        require_dropouts_built(
            Reporting({"self.dropout.p": np.array("int64")}), probe, "MultiHeadAttention", [8, 2], 0.3
        )
    with pytest.raises(Mismatch, match="is 0.1"):
        require_dropouts_built(Reporting({"self.dropout.p": np.array(0.1)}), probe, "MultiHeadAttention", [8, 2], 0.3)


class _Crashing:
    """A student whose every probe call fails with one error text."""

    device = "cpu"

    def __init__(self, error: str | None):
        self.error = error

    def run(self, probe_id: str, inputs: dict) -> dict:
        raise AssertionError("require_own_attention asks error_of only")

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        return self.error


@pytest.mark.parametrize(
    "error, fails",
    [
        ("ForbiddenBuiltin: MultiHeadAttention calls torch.nn.functional.scaled_dot_product_attention: ...", True),
        ("ForbiddenBuiltin: attention calls torch.nn.functional.scaled_dot_product_attention: ...", False),
        ("ValueError: shapes do not match", False),
        (None, False),
    ],
    ids=["its own call", "a callee's call", "another crash", "no error"],
)
def test_own_attention_fails_only_the_name_whose_own_code_called_pytorchs(error, fails):
    """Does require_own_attention fail a name only where its own code called PyTorch's attention, naming the call,
    and leave a callee's call, any other crash and an answer to the other checks?"""
    probe = type("Probe", (), {"probe_id": "mha.MultiHeadAttention"})
    if not fails:
        require_own_attention(_Crashing(error), probe, {}, "MultiHeadAttention")
        return
    with pytest.raises(
        Mismatch, match="calls PyTorch's own attention .torch.nn.functional.scaled_dot_product_attention"
    ):
        require_own_attention(_Crashing(error), probe, {}, "MultiHeadAttention")
