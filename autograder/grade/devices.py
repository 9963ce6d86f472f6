"""The same verdicts on every device: the reference, the correct samples and every known mistake, graded on the
CPU and on the GPU, compared graded name by graded name.

On the GPU each is graded twice: with PyTorch's kernels as grading sets them ("exact": no TF32, attention's
math kernel only) and as a student's own settings could have them ("fast": TF32 matmuls, flash and
memory-efficient attention). A difference in any graded name's points between the GPU's exact kernels and the
CPU is a disagreement: the tolerances do not hold there. The fast kernels' differences are shown, not counted:
grading sets the exact kernels again before every call of the student's code (sandbox/guest/child.py
set_kernels), so TF32 a student's code turned on at load or in an earlier call reaches no verdict; on an
H200, TF32 took the reference's feed-forward network past the float32 tolerances. ``python -m autograder doctor --device cuda`` runs this on the host.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import KIT_ROOT
from ..assignments import Assignment
from ..config import GradingConfig
from ..interrupts import let_through, start_held
from ..public import trees
from .engine import ON_CPU, Grader
from .mistakes import catalogue

BASE = ("cpu", "exact")
SETTINGS = (BASE, ("cuda", "exact"), ("cuda", "fast"))  # (device, PyTorch's kernels in the student's process)
SHOWN_ONLY = (("cuda", "fast"),)  # kernels grading never runs a student's code with: differences there inform


@dataclass(frozen=True)
class Comparison:
    disagreements: list[str]  # where grading's own settings differ from the CPU's points: the tolerances fail
    shown_only: list[str]  # where the kernels grading never uses would differ (SHOWN_ONLY)
    samples: int


@dataclass(frozen=True)
class Sample:
    label: str  # "reference", "correct <file>", "mistake <id>"
    source: str  # a submission's whole code


def samples(assignment: Assignment) -> list[Sample]:
    """The reference, the held-out correct implementations that are one file (where the checkout has the tests),
    and the reference with each known mistake."""
    reference = assignment.reference_path.read_text()
    found = [Sample("reference", reference)]
    heldout = KIT_ROOT / "tests" / "data" / "heldout" / assignment.name
    if heldout.is_dir():
        found += [Sample(f"correct {p.name}", p.read_text()) for p in sorted(heldout.glob("correct_*.py"))]
    found += [Sample(f"mistake {m.id}", m.source(reference)) for m in catalogue(assignment)]
    return found


def setting_name(setting: tuple[str, str]) -> str:
    return f"{setting[0]}, {setting[1]} kernels"


ON_CPU_SAYS = ON_CPU.split("{name}")[1].split(":")[0]  # " was graded on the CPU"
NOT_GRADED = "not graded"  # the key a sample's points hold where the kit could not grade it


def disagreements(points: dict[tuple[str, str], dict[str, dict[str, float]]], base=BASE) -> list[str]:
    """One line per sample and setting whose points (per graded name) differ from the base setting's, and per
    sample the kit could not grade in a setting (the base included)."""
    lines = []
    for setting, by_label in points.items():
        for label, mine in by_label.items():
            failed = [key for key in mine if key.startswith(NOT_GRADED)]
            if failed:
                lines.append(f"{label}: {failed[0]} on {setting_name(setting)}")
                continue
            if setting == base:
                continue
            theirs = points[base].get(label, {})
            differ = {
                name: (theirs.get(name), mine.get(name))
                for name in sorted(set(theirs) | set(mine))
                if theirs.get(name) is None or mine.get(name) is None or abs(theirs[name] - mine[name]) > 1e-9
            }
            if differ and not any(key.startswith(NOT_GRADED) for key in theirs):
                shown = ", ".join(
                    f"{name} {a} on {setting_name(base)}, {b} on {setting_name(setting)}"
                    for name, (a, b) in differ.items()
                )
                lines.append(f"{label}: {shown}")
    return lines


def points_by_name(grader, path: Path) -> dict[str, float]:
    """What a grading of one sample gives each graded name; where the kit failed, a NOT_GRADED key with the reason.
    On the GPU, a name graded again on the CPU (CUDA failed its process) is not graded there: its points would
    compare the CPU with itself."""
    try:
        report = grader.grade(path)
    except Exception as error:
        return {f"{NOT_GRADED} ({type(error).__name__}: {str(error)[:200]})": -1.0}
    on_cpu = [note for note in report.notes if ON_CPU_SAYS in note]
    if on_cpu and grader.device != "cpu":
        return {f"{NOT_GRADED} on the GPU ({len(on_cpu)} names graded on the CPU instead: {on_cpu[0][-300:]})": -1.0}
    return {name: float(score) for name, (score, _) in report.by_name().items()}


def grade_each(grader, paths: dict[str, Path], jobs: int) -> dict[str, dict[str, float]]:
    """Each sample graded (by label), with as many forked workers as jobs, each with a grader of its own."""
    if jobs <= 1 or len(paths) <= 1:
        return {label: points_by_name(grader, path) for label, path in paths.items()}
    context = multiprocessing.get_context("fork")
    tasks, done = context.Queue(), context.Queue()
    for item in paths.items():
        tasks.put(item)
    workers: list = []
    found: dict[str, dict[str, float]] = {}
    try:
        for _ in range(min(jobs, len(paths))):
            tasks.put(None)
            worker_grader = grader.for_worker()
            start_held(context.Process(target=_worker, args=(worker_grader, tasks, done), daemon=True), workers)
            worker_grader.runtime.zygote.sock.close()  # the worker holds it now
        while len(found) < len(paths):
            try:
                label, points = done.get(timeout=1.0)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    break
                continue
            found[label] = points
    finally:
        for worker in workers:
            worker.join(timeout=10)
            if worker.is_alive():
                worker.kill()
                worker.join()
    return found


def _worker(grader, tasks, done) -> None:
    try:
        let_through()  # what came since the fork is raised here, in the try
        while (item := tasks.get()) is not None:
            done.put((item[0], points_by_name(grader, item[1])))
    finally:
        grader.close()


def compare(
    assignment: Assignment,
    config: GradingConfig,
    jobs: int = 0,
    settings=SETTINGS,
    open_grader: Callable[[Assignment, GradingConfig], Grader] = Grader,
) -> Comparison:
    """Every sample graded in every setting, each compared with the first setting."""
    jobs = jobs or os.cpu_count() or 1
    folder = Path(tempfile.mkdtemp(prefix="autograder-devices-"))
    try:
        paths = {}
        for i, sample in enumerate(samples(assignment)):
            paths[sample.label] = folder / f"sample{i:04d}.py"
            paths[sample.label].write_text(sample.source)
        points = {}
        for device, kernels in settings:
            with open_grader(assignment, config.with_options(device=device)) as grader:
                grader.runtime.kernels = kernels
                points[(device, kernels)] = grade_each(grader, paths, jobs)
        lines = disagreements(points, base=settings[0])  # each line ends with the setting it is about
        informs = tuple(f" on {setting_name(setting)}" for setting in SHOWN_ONLY)
        return Comparison(
            [line for line in lines if not line.endswith(informs)],
            [line for line in lines if line.endswith(informs)],
            len(paths),
        )
    finally:
        trees.remove_tree(folder)
