"""Does the benchmark run and print its figures? (It measures; no test asserts a speed.)"""

import pytest

import autograder.assignments
from autograder.bench import DeviceRun, Run, bench, class_steps, print_class_steps, print_devices, print_figures
from autograder.errors import KitError


@pytest.mark.slow(seconds=55)
def test_bench_prints_its_figures(capsys):
    figures = bench(n=1, jobs=1, scaling=5)  # the smallest classes: nbgrader runs the whole lesson for each notebook
    print_figures(figures)
    out = capsys.readouterr().out
    assert figures["same_scores"] == "1 of 1"
    assert figures["marginal_from"] == (1, 5)  # a class of 5 graded with as many jobs as the class of 1
    for words in (
        "bare import",
        "one grade",
        "copies of a correct one",
        "marginal cost of a submission",
        "the checks' own work",
        "the kit's own cost",
        "nbgrader autograde",
        "times faster",
        "peak MiB",
        "scaling",
        "what the class view adds",
    ):
        assert words in out
    assert set(figures["own_work"]) == set(autograder.assignments.get("mha").graded)
    assert figures["copies"].wall > 0 and figures["copies"].cpu > 0
    assert figures["small"].peak_mib > 0 and figures["nbgrader"].peak_mib > 0 and figures["baseline"].cpu > 0
    assert figures["insight"]["size"] == 5 and figures["insight"]["wall"] > 0 and figures["insight"]["cpu"] > 0


def test_the_gpu_beside_the_cpu_is_printed_per_class(capsys):
    """Does the device table give, per class and device, the wall time, seconds and bare imports per submission, the
    GPU memory per concurrent grading on the GPU, and how the GPU's time compares with the CPU's?"""
    runs = [
        DeviceRun("cpu", 48, Run("48 on cpu", 10.0, 100.0, 0.0, ""), None),
        DeviceRun("cuda", 48, Run("48 on cuda", 15.0, 120.0, 0.0, ""), 612.4),
    ]
    print_devices(runs, unit=2.0, jobs=16)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "on the CPU and on the GPU, grade-all with 16 jobs:"
    assert lines[2].split() == ["48", "cpu", "10.00", "0.208", "0.1042"]
    assert lines[3].split() == ["48", "cuda", "15.00", "0.312", "0.1562", "612"]
    assert lines[4] == "  class of 48: the GPU takes 1.50 times the CPU's wall time"


def test_bench_on_the_gpu_is_refused_where_there_is_none(monkeypatch):
    """Is bench --device cuda refused at once, with the reason, on a host without a GPU?"""
    import autograder.bench

    monkeypatch.setattr(autograder.bench, "missing", lambda: "no NVIDIA GPU here")
    with pytest.raises(KitError, match="^bench --device cuda: no NVIDIA GPU here$"):
        bench(n=2, device="cuda")


@pytest.mark.slow(seconds=9)
def test_the_class_steps_are_timed_alone(capsys):
    """Does --class-steps time grade-all's steps over the class on synthetic classes of each size, as grading leaves
    them and again with nothing changed, and print each step's figures?"""
    figures = class_steps(sizes=(12, 30), jobs=2)
    print_class_steps(figures)
    out = capsys.readouterr().out
    assert [row["n"] for row in figures["rows"]] == [12, 30]
    for row in figures["rows"]:
        assert row["first"].peak_mib > 0 and row["steps"]["cpu"] > 0
        assert set(row["steps"]["steps"]) == {
            "results read", "answers", "summary", "notes", "code records", "clusters", "similarity", "dashboard",
            "lms grades", "report",
        }  # fmt: skip
    for words in ("bare import", "students", "again s", "peak MiB", "similarity", "report"):
        assert words in out
