"""Is grading hardened where the machine allows it, and plainly not where it does not?"""
import pytest

from autograder.engine import Grader, Options
from autograder.errors import KitError
from autograder.sandbox import cgroups


def test_this_machine_grades_hardened(mha, mha_grader):
    """On Linux as root with cgroups, is every submission graded in the hardened sandbox?"""
    reason = cgroups.hardened_support()
    if reason is not None:
        pytest.skip(f"no hardened sandbox here: {reason}")
    assert mha_grader.grade(mha.reference_path).sandbox == "hardened"


def test_grading_refuses_to_run_unhardened_unless_told(monkeypatch):
    """Without the sandbox, does grading refuse, naming the problem and the flag?"""
    monkeypatch.setattr(cgroups, "hardened_support", lambda: "the hardened sandbox needs root")
    with pytest.raises(KitError, match="--allow-unsandboxed"):
        Options().isolation()
    assert Options(allow_unsandboxed=True).isolation() == "process"


@pytest.mark.slow
def test_unhardened_grading_still_runs_apart_and_says_so(mha, monkeypatch):
    """Where only a plain process is possible, are the points the same and the report honest?"""
    monkeypatch.setattr(cgroups, "hardened_support", lambda: "not root")
    with Grader(mha, Options(allow_unsandboxed=True)) as grader:
        report = grader.grade(mha.reference_path)
    assert report.score == pytest.approx(report.max_score)
    assert report.sandbox == "process (not hardened)"


def test_device_auto_picks_the_gpu_only_where_there_is_one():
    """Does --device auto mean cuda exactly when PyTorch sees a GPU (here: the CPU)?"""
    import torch

    assert Options(device="auto").resolved_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    assert Options(device="cpu").resolved_device() == "cpu"
