"""Does the engine grade a submission with the hidden checks, tell the student's failures from the kit's and the
host's, and refuse to start on a reference that fails its own graders?"""

from types import SimpleNamespace

import numpy as np
import pytest

from autograder.author.samples import sample_path
from autograder.config import GradingConfig
from autograder.deliver.one_submission import grade_one
from autograder.errors import KitError
from autograder.grade import engine, mistakes
from autograder.grade.engine import (
    Grader,
    HostError,
    ReferenceView,
    StudentView,
    rehearse,
    run_check,
    visible_probes,
)
from autograder.grade.judge import Mismatch
from autograder.grade.plan import Check
from autograder.public import wire
from autograder.public.loader import Entry, definitions, graded_calls
from autograder.results.model import CheckResult
from autograder.results.outcome import KIT_ERROR
from autograder.results.scoring import summarize
from autograder.sandbox.host.session import StudentError

from ..conftest import lost_names


def test_reference_gets_full_marks(assignment, graders):
    """Does the instructor's reference earn every point, with no grader failing on it?"""
    report = graders(assignment).grade(assignment.reference_path)
    assert not report.internal_errors()
    assert report.score == report.max_score == sum(assignment.points.values())
    assert report.max_score > 0 and report.entry == "reference.py"


def test_blank_release_gets_zero_on_every_name(assignment, graders):
    """Does the blank release notebook earn 0 on every graded name, each not started, each stub naming its
    exercise, no mistake named and none graded again with the reference standing in?"""
    report = graders(assignment).grade(assignment.release_dir / assignment.notebook_name)
    assert not report.internal_errors()
    assert all(score == 0 for score, _ in report.by_name().values()), report.by_name()
    for number, name in enumerate(assignment.graded, start=1):
        messages = [check.message for check in report.hidden if check.name == name]
        # a stub raises naming its exercise; an empty __init__ leaves the attributes missing
        assert any(f"Exercise {number} ({name})" in m or "should have an attribute" in m for m in messages), messages
    # Not started is not a mistake: an empty constructor "accepts" what a catalogued slip accepts.
    assert not [(c.name, c.mistakes) for c in report.hidden if c.mistakes]
    assert report.unstarted() == list(assignment.graded)  # the feedback says "not started" of each
    assert not [c.name for c in report.hidden if c.carried]
    assert not [c.name for c in report.hidden if "known mistake" in c.message]


def test_blank_stub_module_gets_zero(assignment, graders):
    """Does the blank stub module (assignments/<name>.py) earn 0, gate checks included?"""
    assert graders(assignment).grade(assignment.stub_path).score == 0


def test_one_bug_costs_only_its_name(assignment, graders):
    """Does the sample with one bug lose points on that name only, with the mistake named?"""
    mistake = assignment.demo_mistake
    report = graders(assignment).grade(sample_path(assignment))
    target = next(m.target for m in mistakes.catalogue(assignment) if m.id == mistake)
    assert lost_names(report) == [target]
    assert report.mistakes() == [mistake]
    assert 0 < report.by_name()[target][0] < report.by_name()[target][1]


def test_visible_checks_are_reported_without_points(mha, mha_grader):
    """Are the student's visible checks part of the results, visible at once and worth nothing?"""
    report = mha_grader.grade(sample_path(mha))
    visible = [c for c in report.checks if c.kind == "visible"]
    assert {c.name for c in visible} == set(mha.graded) and all(c.max_score == 0 for c in visible)
    assert [c.name for c in visible if c.status != "passed"] == ["PositionalEncoding"]


def check(function) -> Check:
    """A check of softmax that runs function(student)."""
    return Check(
        "softmax", "test_softmax", function.__name__, "sums to one", "", 1.0, False, function, {}, ("student",)
    )


def test_a_failing_check_is_the_students_and_a_broken_grader_the_kits():
    """Is a Mismatch the student's failure with its feedback and evidence, a StudentError the student's with the
    call that raised, and any other exception the grader's own error, saying so and not blaming the student?"""

    def mismatch(student):
        raise Mismatch("out differs\x07", {"probe_id": "p"})

    def raised(student):
        error = StudentError("your code raised ValueError")
        error.evidence = {"probe_id": "q"}
        raise error

    def broken(student):
        return 1 / 0

    failed = run_check(check(mismatch), {"student": None})
    assert not failed.passed and not failed.internal_error and failed.message == "out differs\\x07"
    assert failed.evidence == {"probe_id": "p"}
    student = run_check(check(raised), {"student": None})
    assert student.message == "your code raised ValueError" and student.evidence == {"probe_id": "q"}
    kit = run_check(check(broken), {"student": None})
    assert kit.internal_error and not kit.passed
    assert kit.message == (
        "the grader itself failed (ZeroDivisionError: division by zero); this is an error in the grading kit, "
        "not in your code: tell your instructor"
    )
    assert run_check(check(lambda student: None), {"student": None}).passed


class Answers:
    """A reference answering every probe with outputs of 8 bytes, recording the probes it ran."""

    def __init__(self):
        self.runs: list[str] = []

    def run(self, probe_id: str, inputs: dict) -> dict:
        self.runs.append(probe_id)
        return {"out": np.zeros(1)}


def test_the_rehearsal_records_each_names_probe_calls_once_with_their_sizes():
    """Does the rehearsal note, per graded name, each distinct probe call its checks and visible checks make, with
    the size of the reference's outputs?"""

    def asks_twice(student):
        student.run("p.softmax", {"x": 1})
        student.run("p.softmax", {"x": 1})
        student.run("p.softmax", {"x": 2})

    visible = [{"name": "attention", "probe": "p.attention", "inputs": {"x": 3}}]
    rehearsal = rehearse(SimpleNamespace(name="a"), [check(asks_twice)], visible, Answers())
    assert [(c.probe, c.inputs, c.expected_bytes) for c in rehearsal.calls["softmax"]] == [
        ("p.softmax", {"x": 1}, 8),
        ("p.softmax", {"x": 2}, 8),
    ]
    assert [c.probe for c in rehearsal.calls["attention"]] == ["p.attention"]
    assert rehearsal.sizes[wire.digest("p.attention", {"x": 3})] == 8


def test_a_reference_that_fails_its_own_graders_stops_the_grader():
    """Does a check that fails on the reference stop the rehearsal, naming the check and the fix?"""

    def wrong(student):
        raise Mismatch("expected 2")

    with pytest.raises(KitError) as refused:
        rehearse(SimpleNamespace(name="numpy"), [check(wrong)], [], Answers())
    assert str(refused.value) == (
        "the reference of numpy fails its own graders; fix the graders or the reference:\n"
        "  - test_softmax.py::wrong: expected 2"
    )


class Session:
    """A student's session answering one probe, raising on another; it records the output bound it was given."""

    def __init__(self):
        self.bounds: list[int] = []

    def run(self, name, probe_id, inputs, bound, key):
        self.bounds.append(bound)
        if probe_id == "p.raises":
            raise StudentError("your code raised KeyError")
        return {"out": np.ones(1)}


def test_a_student_view_bounds_each_answer_and_keeps_the_call_that_raised():
    """Is each answer bounded by the reference's size for that call (1 MiB where unknown), and does an error carry
    the call that raised, so that a known mistake raising the same can be named?"""
    session = Session()
    view = StudentView(session, "softmax", "cpu", {wire.digest("p.ok", {"x": 1}): 64})
    assert view.run("p.ok", {"x": 1})["out"].tolist() == [1.0] and view.error_of("p.ok", {"x": 2}) is None
    assert session.bounds == [64, 1 << 20]
    with pytest.raises(StudentError) as raised:
        view.run("p.raises", {"x": 1})
    assert raised.value.evidence == {"probe_id": "p.raises", "inputs": {"x": 1}, "error": "your code raised KeyError"}
    assert view.error_of("p.raises", {}) == "your code raised KeyError"


def test_a_reference_view_answers_as_the_reference_and_records_each_call():
    """Does the reference seen as a student answer with the reference's outputs, record each call and never err?"""
    record: list = []
    answers = Answers()
    view = ReferenceView(answers, record=record)
    assert view.run("p.a", {"x": 1})["out"].tolist() == [0.0] and view.error_of("p.b", {}) is None
    assert record == [("p.a", {"x": 1}), ("p.b", {})] and answers.runs == ["p.a", "p.b"]


def test_visible_probes_are_the_visible_checks_calls():
    """Is each visible case given as its name, title, probe id, keys and inputs, with its note only where it has one?"""
    case = SimpleNamespace(name="softmax", title="sums to one", probe=SimpleNamespace(probe_id="p.softmax"),
                           keys=("out",), inputs={"x": 1}, note="")  # fmt: skip
    noted = SimpleNamespace(**{**vars(case), "keys": None, "note": "a note"})
    assert visible_probes([case, noted]) == [
        {"name": "softmax", "title": "sums to one", "probe": "p.softmax", "keys": ["out"], "inputs": {"x": 1}},
        {"name": "softmax", "title": "sums to one", "probe": "p.softmax", "keys": None, "inputs": {"x": 1},
         "note": "a note"},
    ]  # fmt: skip


def _failing(error: Exception) -> Check:
    """A check whose call raises ``error``."""

    def function():
        raise error

    return Check("softmax", "test_softmax", "test_rows", "rows", "", 1.0, False, function)


@pytest.mark.parametrize("process_level", [True, False])
def test_a_process_failure_is_told_by_where_it_arose_not_by_its_words(process_level):
    """Is a failure the session marks as the whole process's (died, hung, over a limit) a process failure with no
    mistake's evidence, and a student's own exception that merely says the same words a plain failure?"""
    error = StudentError("the process exited with signal 9 (SIGKILL) while checking softmax")
    error.process_level = process_level
    error.evidence = {"probe_id": "p.softmax", "inputs": {}, "error": str(error)}
    result = run_check(_failing(error), {})
    assert not result.passed and result.message == str(error)
    assert result.process_failure is process_level
    assert (result.evidence is None) is process_level


def test_the_first_failing_case_of_each_check_is_the_one_shown():
    """Does the feedback get the first failing case of each check, none of a check that passes?"""
    results = [
        CheckResult("a", "m::one", "t", "1", True),
        CheckResult("a", "m::one", "t", "2", False),
        CheckResult("a", "m::one", "t", "3", False),
        CheckResult("a", "m::two", "t", "1", True),
    ]
    assert engine._first_failures(results) == [results[1]]


def test_a_submission_whose_source_cannot_be_read_calls_nothing(tmp_path):
    """Is a submission whose source cannot be read taken as calling no graded name, and holding no code of one?"""
    missing = Entry("module", tmp_path / "gone.py")
    assert engine._read_unless_unreadable(graded_calls, missing, ("softmax",)) == {}
    assert engine._read_unless_unreadable(definitions, missing, ("softmax",)) == {}


def grader_whose_reference_scores(mha, passed: bool) -> Grader:
    """A Grader, not started, whose own grading of the reference gives one check, passed or not."""
    grader = Grader.__new__(Grader)
    grader.assignment, grader.device, grader._host_checked = mha, "cpu", False
    grader.runtime = SimpleNamespace(isolation=SimpleNamespace(tier="namespaces"))
    result = CheckResult("tokenize", "m::c", "splits words", "", passed, "the process exited with signal 9")
    report = summarize({"tokenize": 2}, [result], assignment="mha", submission="reference.py")
    grader._grade = lambda path, label=None: report
    return grader


def test_a_host_on_which_the_reference_loses_points_grades_no_one(mha):
    """When the reference itself loses points through the sandbox, is that the host's error (HostError naming the
    assignment, device, tier and check), and is a host that grades it fully checked once only?"""
    with pytest.raises(HostError) as refused:
        grader_whose_reference_scores(mha, passed=False).check_host()
    assert str(refused.value).startswith(
        "this host cannot grade mha with device cpu in isolation 'namespaces': the reference itself loses points:\n"
        "  - tokenize: splits words: failed. First failure: the process exited with signal 9"
    )
    grader = grader_whose_reference_scores(mha, passed=True)
    grader.check_host()
    grader._grade = lambda path, label=None: pytest.fail("the host is checked once")
    grader.check_host()


def test_a_grading_past_the_graders_own_memory_bound_is_the_kits_failure_and_the_next_is_graded(
    mha, mha_grader, monkeypatch
):
    """When grading one submission makes the grader allocate past --grader-memory, is that grading refused as the
    kit's failure (never a score), and is the next submission graded in full by the same grader?"""
    over = int((mha_grader.config.grader_memory + 1) * 2**30)

    def greedy(submission, label=None):
        return np.ones(over, dtype=np.uint8)

    monkeypatch.setattr(mha_grader, "_grade", greedy)
    with pytest.raises(engine.GraderMemoryError, match="past its own memory bound") as refused:
        mha_grader.grade(mha.reference_path)
    assert isinstance(refused.value, KitError)
    monkeypatch.undo()
    assert lost_names(mha_grader.grade(mha.reference_path)) == []


def test_the_cgroups_are_arranged_before_the_grader_starts_any_child(mha, monkeypatch):
    """Is the device chosen, then the job cgroups arranged, before the zygote starts (a child in the grader's cgroup
    would keep it from delegating), and is --device cuda on a host without a GPU refused before either?"""
    order = []

    def arrange():
        order.append("arrange")
        raise KitError("stop here")

    monkeypatch.setattr(engine.gpu, "first_choice", lambda wanted: order.append("device") or ("cpu", ""))
    monkeypatch.setattr(engine.arrangement, "arrange", arrange)
    monkeypatch.setattr(engine, "Zygote", lambda *a, **k: order.append("zygote"))
    with pytest.raises(KitError, match="stop here"):
        Grader(mha)
    assert order == ["device", "arrange"]
    monkeypatch.undo()
    monkeypatch.setattr(engine.gpu, "missing", lambda: "no NVIDIA GPU here")
    monkeypatch.setattr(engine.arrangement, "arrange", lambda: pytest.fail("arranged"))
    with pytest.raises(KitError, match="^--device cuda: no NVIDIA GPU here"):
        Grader(mha, GradingConfig(device="cuda"))


def test_the_callers_work_runs_while_the_zygote_starts(mha, monkeypatch):
    """Does the work a caller hands the grader (grade-all's class views loading their libraries) run after the
    zygote has started and before the grader waits for it, and once?"""
    order = []

    class Started:
        def __init__(self, *args, **kwargs):
            order.append("zygote")

        def close(self):
            order.append("closed")

    def isolate(self, *args):
        order.append("isolate")
        raise KitError("stop here")

    monkeypatch.setattr(engine.arrangement, "arrange", lambda: (None, ""))
    monkeypatch.setattr(engine, "Zygote", Started)
    monkeypatch.setattr(engine.Grader, "_isolate", isolate)
    with pytest.raises(KitError, match="stop here"):
        Grader(mha, meanwhile=lambda: order.append("meanwhile"))
    assert order == ["zygote", "meanwhile", "isolate", "closed"]


@pytest.mark.slow
def test_auto_grades_on_the_cpu_where_cuda_cannot_be_isolated(mha, monkeypatch, tmp_path):
    """On a host that seems to have a GPU (device nodes, NVML) where CUDA does not start inside the sandbox: does
    --device auto grade on the CPU in full, saying why in results.json, and --device cuda refuse with that reason?"""
    from autograder.deliver.one_submission import grade_alone
    from autograder.results.read import read_results
    from autograder.results.write import write_outcome

    monkeypatch.setattr(engine.gpu, "missing", lambda: None)
    outcome, _ = grade_alone(mha.reference_path, "mha", GradingConfig(device="auto"))
    results = read_results(write_outcome(outcome, tmp_path, "mha"))
    assert results.device == "cpu" and results.score == results.max_score
    assert results.device_why.startswith("--device auto graded on the CPU: CUDA cannot be isolated here")
    assert "CUDA does not start inside the tier" in results.device_why
    refused, _ = grade_alone(mha.reference_path, "mha", GradingConfig(device="cuda"))
    assert refused.exit_code == 3 and "CUDA does not start inside the tier" in refused.message


@pytest.mark.slow
def test_a_students_tf32_setting_does_not_change_how_its_code_is_graded(mha, mha_grader, tmp_path):
    """A submission that turns TF32 on when it loads, as training scripts do, and whose attention is wrong exactly
    while TF32 is on (where the GPU's rounding would cost a student points): is it graded with grading's exact
    kernels all the same, keeping full marks? The same attention turning TF32 on inside its own call loses them:
    the submission does see the setting."""
    wrong_under_tf32 = """

_exact = scaled_dot_product_attention


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    {inside}output, attn_probs = _exact(query, key, value, mask, dropout)
    return (output * 2 if torch.backends.cuda.matmul.allow_tf32 else output), attn_probs
"""
    on_at_load = "\ntorch.set_float32_matmul_precision('high')\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
    path = tmp_path / "mha.py"
    path.write_text(mha.reference_path.read_text() + wrong_under_tf32.format(inside="") + on_at_load)
    assert lost_names(mha_grader.grade(path)) == []
    on_in_the_call = "torch.backends.cuda.matmul.allow_tf32 = True\n    "
    path.write_text(mha.reference_path.read_text() + wrong_under_tf32.format(inside=on_in_the_call))
    assert "scaled_dot_product_attention" in lost_names(mha_grader.grade(path))


@pytest.mark.slow
def test_an_exercise_the_gpu_fails_is_graded_again_on_the_cpu(mha, mha_grader, monkeypatch):
    """Where CUDA fails in every student process (as when a neighbour holds the whole GPU; here there is no GPU at
    all): is each exercise graded again on the CPU, the reference keeping full marks, and do the notes say so?"""
    monkeypatch.setattr(mha_grader, "device", "cuda")
    report = mha_grader.grade(mha.reference_path)
    assert lost_names(report) == []
    on_cpu = [n for n in report.notes if "was graded on the CPU" in n]
    reason = on_cpu[0][on_cpu[0].rindex("(CUDA did not start: ") + 1 : -1] if on_cpu else ""
    assert on_cpu == [engine.ON_CPU.format(name=name, reason=reason) for name in mha.graded]
    assert "Torch not compiled with CUDA enabled" in reason  # CUDA's own words, for the instructor


def test_code_that_fails_to_load_is_loaded_once_not_again_for_a_carried_run(mha, mha_grader, monkeypatch, tmp_path):
    """Where a submission's code fails as it loads, does every name lose its points with that reason, from one
    process: no name graded again with the reference standing in (it would load the same code, and fail the same
    way, once per carried run)? A failing name's own bug still gets its carried runs (the one-bug sample)."""
    opened = []
    open_session = mha_grader.open_session

    def counted(*args, **kwargs):
        opened.append(args[0])
        return open_session(*args, **kwargs)

    monkeypatch.setattr(mha_grader, "open_session", counted)
    failing = tmp_path / "fails_at_import.py"
    failing.write_text(mha.reference_path.read_text() + "\n\nimport os\n\nos._exit(3)\n")
    report = mha_grader.grade(failing)
    assert report.score == 0 and opened.count(failing) == 1  # (the reference may be graded first: the host's check)
    scored = [c for c in report.hidden if c.max_score]  # (a gate of 0 points reads the source alone)
    assert all("the process exited while loading your code" in c.message for c in scored)
    opened.clear()
    carried = tmp_path / "split_heads_without_transpose.ipynb"
    carried.write_bytes(sample_path(mha, "split_heads_without_transpose").read_bytes())
    layer = [c for c in mha_grader.grade(carried).hidden if c.name == "MultiHeadAttention"]
    assert all(c.carried == ["split_heads"] for c in layer) and opened.count(carried) > 1


def test_a_carried_run_in_which_the_grader_broke_is_the_kits_error(mha, mha_grader, monkeypatch, tmp_path):
    """A carried run whose checks the grader itself could not finish (the reference's process gone, a bug) scores
    lower than the first run, and the run that earns more was kept: the student graded without it, the kit's
    failure dropped with it. Is the submission the kit's error instead (not graded: a rerun grades it)?"""
    carried = tmp_path / "split_heads_without_transpose.ipynb"
    carried.write_bytes(sample_path(mha, "split_heads_without_transpose").read_bytes())
    again = []
    carried_run, run_check = mha_grader._carried_run, engine.run_check

    def breaking(check, fixtures):  # the grader's own failure, in the carried runs only
        result = run_check(check, fixtures)
        if again:
            result.passed, result.internal_error, result.message = False, True, "the grader itself failed (OSError)"
        return result

    def counted(*args, **kwargs):
        again.append(args[1])
        return carried_run(*args, **kwargs)

    monkeypatch.setattr(engine, "run_check", breaking)
    monkeypatch.setattr(mha_grader, "_carried_run", counted)
    outcome = grade_one(mha_grader, carried)
    assert again, "no carried run: the sample no longer calls a failing name"
    assert outcome.status == KIT_ERROR, outcome.status
    assert "with the reference standing in failed: the grader itself failed (OSError)" in outcome.message
