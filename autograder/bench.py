"""Measure grading: what a submission costs, against a bare `import torch` and nbgrader, on this machine.

    python -m autograder bench [--n 24] [--jobs 2] [--scaling 240] [--device cuda [--devices-only]]
    python -m autograder bench --class-steps [--class-sizes 100,1000,10000] [--jobs 2]

In one run, each command in a fresh process tree (its CPU time from the rusage of its
waited-for descendants, its peak memory from a memory cgroup where this machine has
one, else from the largest process):

* baseline: ``python -c "import torch"`` (the bare import every grader pays once);
* one ``grade`` of one submission (the Gradescope and Classroom case);
* ``grade-all`` of N copies of one correct submission: a class with nothing to carry
  forward and no mistake to name, where start-up and the class's steps weigh most;
* ``grade-all`` of a class of N and of 2N: the total, and the marginal cost of a
  submission, (cost(2N) - cost(N)) / N, which start-up does not enter (with --scaling M
  over 2N, from the class of M graded with as many jobs instead: (cost(M) - cost(N)) /
  (M - N), where a start-up's noise weighs M - N times less);
* ``nbgrader autograde`` of the same N notebooks (its hidden cells run the same graders);
* the checks' own work: the reference answering every probe call a submission gets
  (hidden and visible), in this one warm process, with no sandbox, no exchange and no
  comparison: the least any grader could spend on a submission as fast as the reference;
  the marginal cost less this is the kit's own overhead;
* with --scaling M: grade-all of a class of M with 1, 2, 4, ... jobs up to the CPUs here;
* with --device cuda: grade-all of classes of N and of M (else 2N) with --jobs, on the CPU and
  on the GPU in turn: seconds and bare imports per submission on each, and the GPU memory
  each concurrent grading takes (the device's peak over its use before, per job, sampled
  through NVML); --devices-only measures nothing else;
* what grade-all's view of the class adds (notes, clusters.json, similarity.csv,
  report.html: deliver/class_view/insight.py), run again alone on the largest class graded with
  --jobs (M, else 2N), with as many jobs: its wall time and core-seconds, and their
  ratio to the rest of that grade-all.

With --class-steps it times instead grade-all's steps over the whole class alone
(deliver/grade_all/batch.py write_class: the written answers' page, summary.csv, notes, the code
records, clusters.json, similarity.csv, report.html, the LMS's file, the report), after
reading every results.json once, on synthetic classes of 100, 1,000 and 10,000
(autograder/synthetic.py: results.json and code.json as grading writes them, the
kit's own samples and mistakes for code; made first, untimed): each in a fresh process
as grading leaves the class (similarity and the report computed), then again with
nothing changed (read back), its wall time, core-seconds (forked workers included) and
peak memory, and each step's wall time.

Timings on a shared machine are noisy: read the ratios, run it twice. No test asserts a
speed (tests/test_bench.py only checks that the figures are printed).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import KIT_ROOT, assignments
from .author.build import write_master
from .author.notebook import notebook_text
from .author.release import nbgrader_env
from .author.samples import sample_notebook
from .deliver.class_view.insight import write_insight
from .deliver.grade_all import answers
from .deliver.grade_all.batch import write_class
from .deliver.grade_all.class_folder import cache_folder, read_class
from .deliver.intake import read_intake
from .errors import KitError
from .grade.engine import rehearse, visible_probes
from .grade.mistakes import catalogue
from .grade.plan import collect
from .grade.reference import Reference
from .grade.threads import single_threaded
from .public.probing import run_probe
from .results.outcome import GRADED, NOT_GRADED
from .sandbox.host.cgroups import v1_folders
from .sandbox.host.gpu import missing
from .synthetic import make_class as make_synthetic_class

CLASS_SIZES = (100, 1_000, 10_000)  # students of the synthetic classes --class-steps times


def make_class(assignment, n: int, folder: Path) -> list[Path]:
    """n notebooks: filled with the reference, each but every fifth with one known mistake; every tenth blank."""
    folder.mkdir(parents=True, exist_ok=True)
    mistakes = [m.id for m in catalogue(assignment)]
    blank = (assignment.release_dir / assignment.notebook_name).read_text()
    texts: dict = {}
    paths = []
    for i in range(n):
        path = folder / f"student{i:04d}.ipynb"
        if i % 10 == 9:
            path.write_text(blank)
        else:
            mistake = mistakes[i % len(mistakes)] if i % 5 else None
            if mistake not in texts:
                texts[mistake] = notebook_text(sample_notebook(assignment, mistake))
            path.write_text(texts[mistake])
        paths.append(path)
    return paths


@dataclass
class Run:
    label: str
    wall: float  # seconds
    cpu: float  # core-seconds of the whole process tree
    peak_mib: float
    peak_how: str
    output: str = ""  # what the command printed


def measure(label: str, command: list[str], **kwargs) -> Run:
    """Run a command to its end in a fresh process tree; its wall time, CPU time and peak memory."""
    cgroup = _memory_cgroup(label)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()

    def enter():
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))

    done = subprocess.run(command, preexec_fn=enter, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{label} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if cgroup is not None:
        peak, how = (
            int((cgroup / "memory.max_usage_in_bytes").read_text()) / 2**20,
            "the whole process tree (a memory cgroup)",
        )
        _remove(cgroup)
    else:
        peak, how = after.ru_maxrss / 1024, "the largest process"
    return Run(label, wall, cpu, peak, how, done.stdout)


def _memory_cgroup(label: str) -> Path | None:
    own = v1_folders().get("memory")
    if own is None or os.geteuid() != 0:
        return None
    folder = own / f"autograder-bench-{os.getpid()}-{label.replace(' ', '-')}"
    folder.mkdir(exist_ok=True)
    return folder


def _remove(folder: Path) -> None:
    for _ in range(200):
        try:
            folder.rmdir()
            return
        except OSError:
            time.sleep(0.02)


def bare_import(repeats: int = 3) -> Run:
    runs = [measure("bare import", [sys.executable, "-c", "import torch"]) for _ in range(repeats)]
    wall = statistics.median(r.wall for r in runs)
    cpu = statistics.median(r.cpu for r in runs)
    return Run("bare import torch", wall, cpu, max(r.peak_mib for r in runs), runs[0].peak_how)


def checks_own_work(assignment, repeats: int = 5) -> dict[str, float]:
    """Core-s per graded name: the reference's CPU time on every probe call one submission gets, median of repeats.

    The calls are the rehearsal's (grade/engine.py): each distinct (probe, inputs) the
    hidden checks and the visible checks ask of a name, once each, as a student's process
    answers them. Run here with PyTorch on one thread and matplotlib warm, as in the
    student's process; the first round warms the caches and is not counted.
    """
    os.environ.setdefault("MPLBACKEND", "Agg")

    single_threaded(import_torch=assignment.framework == "torch")
    visible = visible_probes(assignment.module("visible").VISIBLE)
    reference = Reference.of(assignment)
    rehearsal = rehearse(assignment, collect(assignment), visible, reference)
    impl = reference.impl  # run_probe on it directly: no output comes from the reference's cache
    rounds: dict[str, list[float]] = {name: [] for name in assignment.graded}
    for round_ in range(repeats + 1):
        for name in assignment.graded:
            started = time.process_time()
            for call in rehearsal.calls.get(name, []):
                run_probe(call.probe, impl, call.inputs)
            if round_:
                rounds[name].append(time.process_time() - started)
    return {name: statistics.median(times) for name, times in rounds.items()}


def run_grade_all(folder: Path, out: Path, jobs: int, label: str, device: str = "cpu") -> Run:
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade-all",
        str(folder),
        "-a",
        "mha",
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--quiet",
        "--force",
        "--device",
        device,
    ]
    return measure(label, command, cwd=KIT_ROOT)


@dataclass
class DeviceRun:
    device: str
    size: int
    run: Run
    gpu_mib: float | None  # peak GPU memory over the GPU's use before, per concurrent grading (None on the CPU)


def on_devices(assignment, sizes: list[int], jobs: int, work: Path) -> list[DeviceRun]:
    """grade-all of classes of these sizes with jobs, on the CPU and on the GPU in turn, the GPU's memory sampled."""
    from .sandbox.host.gpu import GpuWatch  # here: NVML, only where the GPU is measured

    watch = GpuWatch()
    found = []
    for size in sizes:
        folder = work / f"devices-{size}"
        make_class(assignment, size, folder)
        for device in ("cpu", "cuda"):
            idle = watch.device_memory()[0]
            peak = [idle]
            stop = threading.Event()
            sampler = threading.Thread(target=_sample_gpu, args=(watch, peak, stop), daemon=True)
            sampler.start()
            try:
                run = run_grade_all(folder, work / f"out-{device}-{size}", jobs, f"{size} on {device}", device)
            finally:
                stop.set()
                sampler.join()
            per = (peak[0] - idle) / 2**20 / min(jobs, size) if device == "cuda" else None
            found.append(DeviceRun(device, size, run, per))
    return found


def _sample_gpu(watch, peak: list[int], stop: threading.Event) -> None:
    while not stop.wait(0.05):
        peak[0] = max(peak[0], watch.device_memory()[0])


def insight_cost(folder: Path, out: Path, jobs: int) -> dict[str, float]:
    """grade-all's last step (deliver/class_view/insight.py) on a class it graded into out, timed in a fresh process."""
    code = (
        "import json; from pathlib import Path; from autograder.bench import time_insight; "
        f"print(json.dumps(time_insight(Path({str(folder)!r}), Path({str(out)!r}), {jobs})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=KIT_ROOT)
    if done.returncode:
        raise RuntimeError(f"timing the class view failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def time_insight(folder: Path, out: Path, jobs: int) -> dict[str, float]:
    """Wall time and core-seconds (its forked workers' included) of write_insight alone, as grading leaves the class
    (what grade-all kept of the class views is removed first; each student's code.json, grading's, stays)."""
    shutil.rmtree(cache_folder(out), ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="autograder-bench-intake-") as scratch:
        intake = read_intake(folder, Path(scratch))
        results = read_class(intake, out)
        status = {key: (r.status or "graded", "") for key, r in results.items()}
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        started, cpu = time.perf_counter(), time.process_time()
        write_insight(assignments.get("mha"), out, intake, results, status, jobs=jobs)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return {"wall": wall, "cpu": cpu}


def nbgrader_autograde(assignment, paths: list[Path], course: Path) -> Run:
    (course / "source" / assignment.name).mkdir(parents=True)
    shutil.copy(write_master(assignment), course / "source" / assignment.name)
    env = nbgrader_env()
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment.name, f"--CourseDirectory.root={course}", "--log-level=ERROR"],
                   cwd=KIT_ROOT, env=env, check=True, capture_output=True)  # fmt: skip
    for path in paths:
        target = course / "submitted" / path.stem / assignment.name
        target.mkdir(parents=True)
        shutil.copy(path, target / assignment.notebook_name)
    command = [
        sys.executable,
        "-m",
        "nbgrader",
        "autograde",
        assignment.name,
        f"--CourseDirectory.root={course}",
        "--log-level=ERROR",
    ]
    return measure("nbgrader autograde", command, cwd=KIT_ROOT, env=env)


def agreement(out: Path, course: Path, assignment, names: list[str]) -> str:
    """How many students got the same total from the kit and from nbgrader (to 1e-3)."""
    from nbgrader.api import Gradebook  # here: nbgrader.api loads SQLAlchemy (seconds), for this figure only

    same = 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in names:
            ours = json.loads((out / "students" / name / "results.json").read_text())["score"]
            theirs = gradebook.find_submission(assignment.name, name).score
            same += abs(ours - theirs) < 1e-3
    return f"{same} of {len(names)}"


def bench(
    n: int = 24,
    jobs: int = 2,
    scaling: int = 0,
    keep: Path | None = None,
    device: str = "cpu",
    devices_only: bool = False,
) -> dict:
    assignment = assignments.get("mha")
    work = Path(tempfile.mkdtemp(prefix="autograder-bench-"))
    try:
        if device != "cpu":  # the GPU beside the CPU: classes of n and of scaling (else 2n) with jobs
            absent = missing()
            if absent is not None:
                raise KitError(f"bench --device {device}: {absent}")
            sizes = [n, scaling or 2 * n]
            devices: dict = {"n": n, "jobs": jobs, "cpus": os.cpu_count(), "baseline": bare_import()}
            devices["devices"] = on_devices(assignment, sizes, jobs, work)
            if devices_only:
                return devices
        paths = make_class(assignment, 2 * n, work / "double")
        single = work / "class"
        single.mkdir()
        for path in paths[:n]:
            shutil.copy(path, single / path.name)
        baseline = bare_import()
        one = measure(
            "one grade",
            [sys.executable, "-m", "autograder", "grade", str(paths[1]), "-a", "mha", "--out", str(work / "one")],
            cwd=KIT_ROOT,
        )
        correct = work / "correct"  # paths[0] holds the reference's code: no mistake, nothing carried forward
        correct.mkdir()
        for i in range(n):
            shutil.copy(paths[0], correct / f"copy{i:04d}.ipynb")
        copies = run_grade_all(correct, work / "out-correct", jobs, f"grade-all of {n} correct")
        small = run_grade_all(single, work / "out", jobs, f"grade-all of {n}")
        large = run_grade_all(work / "double", work / "out-double", jobs, f"grade-all of {2 * n}")
        nbgrader = nbgrader_autograde(assignment, paths[:n], work / "course")
        own_work = checks_own_work(assignment)
        runs: list[tuple[int, Run]] = []  # jobs, and the run with that many
        figures = {
            "n": n,
            "jobs": jobs,
            "cpus": os.cpu_count(),
            "baseline": baseline,
            "one": one,
            "copies": copies,
            "small": small,
            "large": large,
            "nbgrader": nbgrader,
            "own_work": own_work,
            "marginal_cpu": (large.cpu - small.cpu) / n,
            "marginal_wall": (large.wall - small.wall) / n,
            "marginal_from": (n, 2 * n),  # the classes whose difference it is
            "same_scores": agreement(work / "out", work / "course", assignment, [p.stem for p in paths[:n]]),
            "scaling": runs,
            "insight": {"size": 2 * n, "run": large, **insight_cost(work / "double", work / "out-double", jobs)},
        }
        if device != "cpu":
            figures["devices"] = devices["devices"]
        if scaling:
            folder = work / "scaling"
            list(make_class(assignment, scaling, folder))
            job_counts = [j for j in (1, 2, 4, 8, 16, 32, 64) if j <= (os.cpu_count() or 1)]
            for count in job_counts:
                run = run_grade_all(folder, work / f"out-{count}", count, f"{scaling} with {count} jobs")
                runs.append((count, run))
                if count == jobs and scaling > 2 * n:
                    figures["marginal_cpu"] = (run.cpu - small.cpu) / (scaling - n)
                    figures["marginal_wall"] = (run.wall - small.wall) / (scaling - n)
                    figures["marginal_from"] = (n, scaling)
                    cost = insight_cost(folder, work / f"out-{count}", jobs)
                    figures["insight"] = {"size": scaling, "run": run, **cost}
        return figures
    finally:
        if keep:
            shutil.copytree(work, keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)


def print_devices(runs: list[DeviceRun], unit: float, jobs: int) -> None:
    """The GPU beside the CPU: per class, each device's wall time, per submission, and GPU memory per grading."""
    print(f"on the CPU and on the GPU, grade-all with {jobs} jobs:")
    print(
        f"{'class':>6} {'device':>7} {'wall s':>8} {'s/submission':>13} {'bare imports/submission':>24} {'GPU MiB/grading':>16}"
    )
    for found in runs:
        per = found.run.wall / found.size
        gpu = f"{found.gpu_mib:16.0f}" if found.gpu_mib is not None else f"{'':>16}"
        print(f"{found.size:6d} {found.device:>7} {found.run.wall:8.2f} {per:13.3f} {per / unit:24.4f} {gpu}")
    for size in dict.fromkeys(r.size for r in runs):
        cpu, cuda = (next(r.run.wall for r in runs if r.size == size and r.device == d) for d in ("cpu", "cuda"))
        print(f"  class of {size}: the GPU takes {cuda / cpu:.2f} times the CPU's wall time")


def print_figures(figures: dict) -> None:
    base = figures["baseline"]
    unit = base.wall
    n, jobs = figures["n"], figures["jobs"]
    print(
        f"On {figures['cpus']} CPUs; a bare `import torch` takes {base.wall:.2f} s ({base.cpu:.2f} core-s): 1 bare import."
    )
    print()
    if "devices" in figures:
        print_devices(figures["devices"], unit, jobs)
        print()
        if "one" not in figures:  # --devices-only
            return
    print(f"{'':34} {'wall s':>8} {'bare imports':>13} {'core-s':>8} {'peak MiB':>9}")
    rows = [
        ("bare import torch", base.wall, base.cpu, base.peak_mib),
        ("one grade (one submission)", figures["one"].wall, figures["one"].cpu, figures["one"].peak_mib),
        (
            f"grade-all, {n} correct copies, {jobs} jobs",
            figures["copies"].wall,
            figures["copies"].cpu,
            figures["copies"].peak_mib,
        ),
        (
            f"grade-all, {n} students, {jobs} jobs",
            figures["small"].wall,
            figures["small"].cpu,
            figures["small"].peak_mib,
        ),
        (
            f"grade-all, {2 * n} students, {jobs} jobs",
            figures["large"].wall,
            figures["large"].cpu,
            figures["large"].peak_mib,
        ),
        (
            f"nbgrader autograde, {n} students",
            figures["nbgrader"].wall,
            figures["nbgrader"].cpu,
            figures["nbgrader"].peak_mib,
        ),
    ]
    for label, wall, cpu, peak in rows:
        print(f"{label:34} {wall:8.2f} {wall / unit:13.2f} {cpu:8.2f} {peak:9.0f}")
    print()
    per = figures["small"].wall / n
    print(
        f"per submission, class of {n} with {jobs} jobs, start-up included: {per:.3f} s = {per / unit:.3f} bare imports"
    )
    per = figures["copies"].wall / n
    print(f"per submission, {n} copies of a correct one with {jobs} jobs: {per:.3f} s = {per / unit:.3f} bare imports")
    print(
        f"marginal cost of a submission (classes of {figures['marginal_from'][0]} and {figures['marginal_from'][1]}): "
        f"{figures['marginal_cpu']:.3f} core-s, {figures['marginal_wall']:.3f} s of wall time with {jobs} jobs"
    )
    own = figures["own_work"]
    total = sum(own.values())
    heaviest = max(own, key=own.get)
    print(
        f"the checks' own work, the reference answering every probe call of one submission in one warm process: "
        f"{total:.3f} core-s ({heaviest} {own[heaviest]:.3f} of it)"
    )
    print(
        f"the kit's own cost per submission above that (sandbox, exchanges, judging, feedback): "
        f"{figures['marginal_cpu'] - total:.3f} core-s"
    )
    print(
        f"nbgrader autograde per submission: {figures['nbgrader'].wall / n:.3f} s; the kit is {figures['nbgrader'].wall / figures['small'].wall:.1f} times faster"
    )
    print(f"same total score from both: {figures['same_scores']}")
    view = figures["insight"]
    rest_wall, rest_cpu = view["run"].wall - view["wall"], view["run"].cpu - view["cpu"]
    print(
        f"what the class view adds (notes, clusters, similarity, dashboard), class of {view['size']} with {jobs} jobs: "
        f"{view['wall']:.2f} s, {view['cpu']:.2f} core-s; {100 * view['wall'] / rest_wall:.1f}% of the rest of "
        f"grade-all's wall time ({rest_wall:.2f} s), {100 * view['cpu'] / rest_cpu:.1f}% of its core-s ({rest_cpu:.2f})"
    )
    print(f"peak memory: {figures['small'].peak_how}")
    if figures["scaling"]:
        print()
        size = figures["scaling"][0][1].label.split(" ")[0]
        print(f"scaling, a class of {size}:")
        print(f"{'jobs':>6} {'wall s':>8} {'submissions/s':>14} {'core-s per submission':>22}")
        for count, run in figures["scaling"]:
            print(f"{count:6d} {run.wall:8.2f} {int(size) / run.wall:14.2f} {run.cpu / int(size):22.3f}")


# ------------------------------------------------------------------ the class steps alone


def class_steps(sizes=CLASS_SIZES, jobs: int = 2, keep: Path | None = None) -> dict:
    """grade-all's steps over the whole class, timed alone on a synthetic class of each size: as grading leaves
    it, and again with nothing changed; a bare `import torch` as the unit."""
    work = Path(tempfile.mkdtemp(prefix="autograder-bench-class-"))
    try:
        baseline = bare_import()
        rows = []
        for n in sizes:
            folder, out = work / f"class-{n}", work / f"out-{n}"
            started = time.perf_counter()
            make_synthetic_class(n, folder, out)
            made = time.perf_counter() - started
            command = [
                sys.executable,
                "-c",
                "import json; from pathlib import Path; from autograder.bench import time_class_steps; "
                f"print(json.dumps(time_class_steps(Path({str(folder)!r}), Path({str(out)!r}), {jobs})))",
            ]
            first = measure(f"class steps {n}", command, cwd=KIT_ROOT)
            again = measure(f"class steps {n} again", command, cwd=KIT_ROOT)
            rows.append({"n": n, "made": made, "first": first, "again": again, "steps": _last_json(first.output)})
        return {"baseline": baseline, "jobs": jobs, "cpus": os.cpu_count(), "rows": rows}
    finally:
        if keep:
            shutil.copytree(work, keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)


def _last_json(output: str) -> dict:
    return json.loads(output.strip().splitlines()[-1])


def time_class_steps(folder: Path, out: Path, jobs: int) -> dict:
    """Each class step's wall time and core-seconds (forked workers included), and all of them together, from
    reading every results.json to the report; the intake (grade-all's first step) not counted."""
    assignment = assignments.get("mha")
    with tempfile.TemporaryDirectory(prefix="autograder-bench-intake-") as scratch:
        intake = read_intake(folder, Path(scratch))
        written = answers.written_of(assignment, intake, None)
        steps: dict[str, list[float]] = {}
        started = last = (time.perf_counter(), _cpu())

        def lap(step: str) -> None:
            nonlocal last
            now = (time.perf_counter(), _cpu())
            spent = steps.setdefault(step, [0.0, 0.0])
            spent[0] += now[0] - last[0]
            spent[1] += now[1] - last[1]
            last = now

        results = read_class(intake, out)
        lap("results read")
        status = {s.key: (GRADED, "") if s.key in results else (NOT_GRADED, "no results") for s in intake.submissions}
        digests = {key: r.submission_digest for key, r in results.items()}
        write_class(
            assignment, intake, out, results, status, set(results), written, jobs=jobs, digests=digests, lap=lap
        )
    return {"wall": last[0] - started[0], "cpu": last[1] - started[1], "steps": steps}


def _cpu() -> float:
    """Core-seconds of this process and of its children that have ended."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def print_class_steps(figures: dict) -> None:
    base = figures["baseline"]
    print(
        f"On {figures['cpus']} CPUs; a bare `import torch` takes {base.wall:.2f} s ({base.cpu:.2f} core-s): 1 bare import."
    )
    print(
        f"grade-all's steps over the whole class, alone, with {figures['jobs']} jobs, on synthetic classes "
        "(autograder/synthetic.py; made untimed, in the seconds shown):"
    )
    print("as grading leaves the class (similarity and report computed), then again with nothing changed;")
    print("the steps' own wall time and core-seconds, and the fresh process's (imports included) wall time and peak:")
    print()
    head = f"{'students':>9} {'made s':>7} | {'steps s':>8} {'core-s':>8} {'process s':>10} {'peak MiB':>9}"
    print(f"{head} | {'again s':>8} {'core-s':>8} {'process s':>10} {'peak MiB':>9}")
    for row in figures["rows"]:
        again = _last_json(row["again"].output)
        print(
            f"{row['n']:>9} {row['made']:7.1f} | {row['steps']['wall']:8.2f} {row['steps']['cpu']:8.2f} "
            f"{row['first'].wall:10.2f} {row['first'].peak_mib:9.0f} | {again['wall']:8.2f} {again['cpu']:8.2f} "
            f"{row['again'].wall:10.2f} {row['again'].peak_mib:9.0f}"
        )
    print()
    names = list(figures["rows"][0]["steps"]["steps"]) if figures["rows"] else []
    print("each step's wall time and core-seconds, as grading leaves the class:")
    print(f"{'step':>14} " + " ".join(f"{row['n']:>17}" for row in figures["rows"]))
    for name in names:
        cells = (row["steps"]["steps"].get(name, [0.0, 0.0]) for row in figures["rows"])
        print(f"{name:>14} " + " ".join(f"{wall:8.2f} s {cpu:6.2f}" for wall, cpu in cells))
    if figures["rows"]:
        print(f"peak memory: {figures['rows'][0]['first'].peak_how}")
