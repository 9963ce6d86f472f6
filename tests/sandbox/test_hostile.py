"""Does a hostile submission earn exactly what its honest work earns, and harm nothing?

Each .py file of tests/data/hostile/ is appended to the reference (see its README); each
folder there is a whole submission. For each: the points lost are exactly those of
expected.json, with the feedback saying what happened; results.json is the grader's
own; its submission's folder is as it was; no process, file or System V object of the
student is left; no cgroup or scratch folder is left; and no file of the kit changed. Here in the strongest tier this machine gives; the other tiers
(tests/sandbox/test_tiers.py) run the same set through tests/sandbox/hostile_run.py.
"""

import json
import os

import pytest

from autograder import KIT_ROOT
from autograder.config import GradingConfig
from autograder.grade.engine import Grader
from autograder.results.write import write_results

from ..conftest import lost_names
from . import hostile_run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def before():
    return hostile_run.kit_files()


@pytest.fixture(scope="module")
def grader(mha):
    with Grader(mha, GradingConfig(**hostile_run.CONFIG)) as grader:
        yield grader


@pytest.mark.parametrize("name", sorted(hostile_run.EXPECTED))
def test_hostile_submission(mha, grader, before, name, tmp_path):
    """Does it lose exactly the points its attack or its missing work costs, and is it cleaned up?"""
    submission = hostile_run.make_submission(mha, name, tmp_path)
    state = hostile_run.folder_state(tmp_path)
    host = {**grader.isolation.as_dict(), "device": grader.device}
    refused = hostile_run.refusal(name, host)
    if refused is not None:
        with pytest.raises(refused[0], match=refused[1]) as raised:
            hostile_run.grade(grader, name, submission)
        assert hostile_run.refused_as_expected(name, host, raised.value) == []
        assert hostile_run.changed_in(tmp_path, state) == []
        assert hostile_run.leftovers(grader) == [], "something of the student outlived its refusal"
        return
    report = hostile_run.grade(grader, name, submission)
    assert hostile_run.changed_in(tmp_path, state) == []
    results = write_results(report, tmp_path / "out")
    problems = hostile_run.judge(name, lost_names(report), report, results)
    assert not problems, problems
    assert hostile_run.leftovers(grader) == [], "something of the student outlived its grading"


def test_the_next_submission_is_graded_as_usual(mha, grader):
    """After the whole hostile set (deep trees, hoards, secrets left behind): does the reference get full marks?"""
    assert lost_names(grader.grade(mha.reference_path)) == []


def test_nothing_of_the_kit_changed(before):
    """After every hostile submission: is every file of the kit as it was?"""
    changed = hostile_run.changed_kit_files(before, hostile_run.kit_files())
    assert not changed, changed[:20]


def test_results_are_written_by_the_grader_only(grader, mha, tmp_path):
    """Does a submission that writes results files everywhere leave the grader's own untouched?"""
    out = tmp_path / "out"
    report = grader.grade(hostile_run.make_submission(mha, "forged_results.py", tmp_path))
    path = write_results(report, out)
    assert json.loads(path.read_text())["score"] == pytest.approx(float(report.score))
    assert sorted(os.listdir(out)) == ["junit.xml", "results.json"]
    assert KIT_ROOT.joinpath("out", "results.json").exists() is False


def test_the_gpu_hog_loses_its_exercise_on_a_gpu_only():
    """Is the GPU hog expected to lose Embeddings, for its GPU memory, where it is graded on the GPU, and nothing on the
    CPU, in any tier?"""
    graded = ("Embeddings",)
    hardened = {"tier": "hardened", "limits": "cgroup v2 (memory, pids)"}
    assert hostile_run.expected_losses("gpu_hog.py", hardened, graded, "cuda") == {"Embeddings": "of GPU memory"}
    assert hostile_run.expected_losses("gpu_hog.py", hardened, graded, "cuda:0") == {"Embeddings": "of GPU memory"}
    assert hostile_run.expected_losses("gpu_hog.py", hardened, graded) == {}
    assert hostile_run.expected_losses("gpu_hog.py", {"tier": "uid", "limits": "RLIMIT_AS"}, graded, "cpu") == {}
