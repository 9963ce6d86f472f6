"""Benchmark: the kit's grade-all against nbgrader autograde, on the same notebooks, in one run.

    python -m autograder bench [--n 20] [--jobs 2]

It makes N submissions from the release notebook (filled with the reference's code,
most with one known mistake, some blank), grades them with ``grade-all`` and with
``nbgrader autograde`` (whose hidden cells run the same graders), each in a fresh
process tree, and prints seconds per submission, their ratio and the peak memory of
each tree (from a memory cgroup when this machine has one, else the largest process).
Timings are wall-clock on a shared machine: read the ratio, run it twice.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from . import KIT_ROOT, assignments
from .build import nbgrader_env, notebook_text, sample_notebook
from .mutants import catalogue
from .sandbox.cgroups import own_cgroup


def make_submissions(assignment, n: int, folder: Path) -> list[Path]:
    """n notebooks: filled with the reference, each but every fifth with one known mistake; every tenth blank."""
    mistakes = [m.id for m in catalogue(assignment)]
    blank = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    paths = []
    for i in range(n):
        path = folder / f"student{i:03d}.ipynb"
        if i % 10 == 9:
            path.write_text(notebook_text(blank))
        else:
            mistake = mistakes[i % len(mistakes)] if i % 5 else None
            notebook = sample_notebook(assignment, mistake)
            path.write_text(notebook_text(notebook))
        paths.append(path)
    return paths


class Measured:
    """Run a command in its own memory cgroup (when possible) and time it."""

    def __init__(self, label: str):
        self.label = label
        self.cgroup = None
        own = own_cgroup("memory")
        if own is not None and os.geteuid() == 0:
            self.cgroup = own / f"attention-kit-bench-{os.getpid()}-{label}"
            self.cgroup.mkdir(exist_ok=True)

    def run(self, command: list[str], **kwargs) -> float:
        procs = self.cgroup / "cgroup.procs" if self.cgroup else None

        def enter():
            if procs is not None:
                procs.write_text(str(os.getpid()))

        started = time.perf_counter()
        done = subprocess.run(command, preexec_fn=enter, capture_output=True, text=True, **kwargs)
        self.seconds = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{self.label} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        self.peak = self._peak()
        return self.seconds

    def _peak(self) -> tuple[float, str]:
        if self.cgroup is not None:
            peak = int((self.cgroup / "memory.max_usage_in_bytes").read_text())
            return peak / 2**20, "whole process tree (cgroup)"
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "largest process"

    def close(self) -> None:
        if self.cgroup is not None:
            for _ in range(100):
                try:
                    self.cgroup.rmdir()
                    return
                except OSError:
                    time.sleep(0.05)


def bench(n: int = 20, jobs: int = 2, keep: Path | None = None) -> dict:
    assignment = assignments.get("mha")
    work = Path(tempfile.mkdtemp(prefix="attention-kit-bench-"))
    try:
        submissions = work / "class"
        submissions.mkdir()
        paths = make_submissions(assignment, n, submissions)
        # nbgrader's course: the same master notebook, one folder per student
        course = work / "course"
        shutil.copytree(assignment.source_dir, course / "source" / assignment.name)
        nbgrader = [sys.executable, "-m", "nbgrader"]
        env = nbgrader_env()
        subprocess.run(nbgrader + ["generate_assignment", assignment.name, f"--CourseDirectory.root={course}", "--log-level=ERROR"],
                       cwd=KIT_ROOT, env=env, check=True, capture_output=True)
        for path in paths:
            target = course / "submitted" / path.stem / assignment.name
            target.mkdir(parents=True)
            shutil.copy(path, target / assignment.notebook_name)

        kit = Measured("kit")
        kit.run([sys.executable, "-m", "autograder", "grade-all", str(submissions), "-a", assignment.name,
                 "--out", str(work / "out"), "--jobs", str(jobs), "--quiet"], cwd=KIT_ROOT)
        nb = Measured("nbgrader")
        nb.run(nbgrader + ["autograde", assignment.name, f"--CourseDirectory.root={course}", "--log-level=ERROR"],
               cwd=KIT_ROOT, env=env)
        agree = _agreement(work / "out", course, assignment, [p.stem for p in paths])
        figures = {
            "submissions": n,
            "jobs": jobs,
            "kit_seconds_per_submission": kit.seconds / n,
            "nbgrader_seconds_per_submission": nb.seconds / n,
            "speedup": nb.seconds / kit.seconds,
            "kit_peak_mib": kit.peak[0],
            "nbgrader_peak_mib": nb.peak[0],
            "memory_measured": kit.peak[1],
            "same_scores": agree,
        }
        kit.close()
        nb.close()
        return figures
    finally:
        if keep:
            shutil.copytree(work, keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)


def _agreement(out: Path, course: Path, assignment, names: list[str]) -> str:
    """How many students got the same total from both (to 1e-3)."""
    from nbgrader.api import Gradebook

    same = 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in names:
            ours = json.loads((out / name / "results.json").read_text())["score"]
            theirs = gradebook.find_submission(assignment.name, name).score
            same += abs(ours - theirs) < 1e-3
    return f"{same} of {len(names)}"


def print_figures(figures: dict) -> None:
    print(f"{figures['submissions']} submissions, the kit with --jobs {figures['jobs']}, nbgrader autograde one at a time")
    print(f"  kit       {figures['kit_seconds_per_submission']:6.3f} s per submission   peak memory {figures['kit_peak_mib']:7.0f} MiB")
    print(f"  nbgrader  {figures['nbgrader_seconds_per_submission']:6.3f} s per submission   peak memory {figures['nbgrader_peak_mib']:7.0f} MiB")
    print(f"  the kit is {figures['speedup']:.1f} times faster per submission (peak memory: {figures['memory_measured']})")
    print(f"  same total score from both: {figures['same_scores']}")
