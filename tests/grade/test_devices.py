"""The same verdicts on every device: which samples are compared, how points that differ are found and said, and the
comparison run with a stand-in for the GPU (a grader whose verdicts on "cuda" are scripted)."""

import socket
from types import SimpleNamespace

from autograder.grade import devices
from autograder.grade.engine import ON_CPU
from autograder.grade.mistakes import catalogue


def test_the_samples_are_the_reference_the_correct_ones_and_every_known_mistake(mha):
    """Are the reference, the one-file held-out correct implementations and the reference with each known mistake the
    samples, each labelled?"""
    found = devices.samples(mha)
    labels = [s.label for s in found]
    assert labels[0] == "reference" and found[0].source == mha.reference_path.read_text()
    assert "correct correct_einsum.py" in labels and not any(label.startswith("correct bug") for label in labels)
    assert labels[-len(catalogue(mha)) :] == [f"mistake {m.id}" for m in catalogue(mha)]


def test_points_that_differ_from_the_cpus_are_each_said():
    """Is each sample whose points on a setting differ from the CPU's named with the name, both points and both
    settings; a sample the kit could not grade named wherever it happened; and agreement silent?"""
    cpu, exact, fast = devices.SETTINGS
    points = {
        cpu: {"reference": {"a": 2.0, "b": 1.0}, "mistake m": {"a": 0.0, "b": 1.0}, "broken": {"a": 1.0}},
        exact: {"reference": {"a": 2.0, "b": 1.0}, "mistake m": {"a": 0.0, "b": 1.0}, "broken": {"a": 1.0}},
        fast: {
            "reference": {"a": 2.0, "b": 1.0},
            "mistake m": {"a": 2.0, "b": 1.0},
            "broken": {"not graded (X: y)": -1.0},
        },
    }
    assert devices.disagreements(points) == [
        "mistake m: a 0.0 on cpu, exact kernels, 2.0 on cuda, fast kernels",
        "broken: not graded (X: y) on cuda, fast kernels",
    ]
    assert devices.disagreements({cpu: points[cpu], exact: points[exact]}) == []


class ScriptedGrader:
    """Grades a sample by its text: full marks, but a sample holding "mistake" loses 'a' on the CPU and, with the fast
    kernels, on the GPU it does not: the tolerances would not hold there."""

    opened: list = []

    def __init__(self, assignment, config):
        self.device = config.device
        self.runtime = SimpleNamespace(kernels="exact", zygote=SimpleNamespace(sock=socket.socket()))
        ScriptedGrader.opened.append(self)

    def grade(self, path):
        text = path.read_text()
        if self.device == "cpu" and "the cpu fails" in text:
            raise RuntimeError("the kit failed")
        wrong = "mistake" in text and not (self.device == "cuda" and self.runtime.kernels == "fast")
        # A sample saying "cpu instead": on the GPU, CUDA fails its process and the engine grades it on the CPU.
        moved = self.device == "cuda" and "cpu instead" in text
        notes = [ON_CPU.format(name="a", reason="CUDA did not start: ValueError: ...")] if moved else []
        return SimpleNamespace(by_name=lambda: {"a": (0.0 if wrong else 2.0, 2.0), "b": (1.0, 1.0)}, notes=notes)

    def for_worker(self):
        return self

    def close(self):
        self.runtime.zygote.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_the_comparison_grades_every_sample_in_every_setting(mha, monkeypatch):
    """With a stand-in GPU whose fast kernels change a verdict: is every sample graded in each setting (the CPU, the GPU
    with exact kernels, with fast ones), by forked workers, and only the changed verdict reported, as shown only (not
    a disagreement: grading never runs a student's code with the fast kernels)?"""
    samples = [devices.Sample("reference", "ok"), devices.Sample("mistake m", "a mistake"), devices.Sample("c", "ok")]
    monkeypatch.setattr(devices, "samples", lambda assignment: samples)
    monkeypatch.setattr(ScriptedGrader, "opened", [])
    found = devices.compare(mha, devices.GradingConfig(), jobs=2, open_grader=ScriptedGrader)
    assert found.samples == 3 and found.disagreements == []
    assert found.shown_only == ["mistake m: a 0.0 on cpu, exact kernels, 2.0 on cuda, fast kernels"]
    assert [(g.device, g.runtime.kernels) for g in ScriptedGrader.opened] == list(devices.SETTINGS)


def test_names_graded_on_the_cpu_instead_are_not_counted_as_agreeing(mha, monkeypatch):
    """Where CUDA fails a sample's process on the GPU and the engine grades it on the CPU instead, is that sample said to
    be not graded on the GPU (with CUDA's reason), in both GPU settings, rather than agreeing with the CPU by
    comparing the CPU with itself; and a sample the CPU could not grade said once?"""
    samples = [devices.Sample("reference", "ok"), devices.Sample("c", "graded on the cpu instead")]
    samples.append(devices.Sample("d", "the cpu fails"))  # said once, as a disagreement
    monkeypatch.setattr(devices, "samples", lambda assignment: samples)
    monkeypatch.setattr(ScriptedGrader, "opened", [])
    found = devices.compare(mha, devices.GradingConfig(), jobs=1, open_grader=ScriptedGrader)
    assert found.samples == 3 and len(found.disagreements) == 2 and len(found.shown_only) == 1
    assert found.disagreements[0] == "d: not graded (RuntimeError: the kit failed) on cpu, exact kernels"
    for line, setting in zip(found.disagreements[1:] + found.shown_only, devices.SETTINGS[1:]):
        assert line.startswith("c: not graded on the GPU (1 names graded on the CPU instead: ")
        assert "CUDA did not start: ValueError" in line and line.endswith(f" on {devices.setting_name(setting)}")
