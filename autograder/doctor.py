"""Check a host before a course: ``python -m autograder doctor``.

It says where the job cgroups go and what the grader did to have them (arrangement.arrange),
which isolation tier grading gets here and why the stronger ones do not work, what
bounds memory and processes, whether a GPU is there and CUDA can be isolated on it,
whether the kernel nbgrader runs can import the kit, and it grades each assignment's
reference through the sandbox: anything short of full marks means this host cannot
grade. On the GPU (--device cuda, or auto where it chooses CUDA) it also grades the
reference, the correct samples and every known mistake on the CPU and on the GPU, with
PyTorch's exact and fast kernels, and prints any verdict that differs (grade/devices.py). It also computes the reference's outputs once
(the cache every later grading reads), which is why Gradescope's setup.sh runs it. It
warns of copies of the solutions that other users can read (in the uid tier, so can a
student's code).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shlex
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

from . import KIT_ROOT, __version__, assignments
from .config import GradingConfig
from .errors import KitError
from .grade import devices
from .grade.deciding import kit_digest
from .grade.engine import Grader
from .public import trees
from .sandbox.host import arrangement, gpu, tiers
from .sandbox.host.client import Zygote


def doctor(config: GradingConfig, jobs: int = 0) -> int:
    problems = 0
    print(f"Python {platform.python_version()} on {platform.system()} {platform.release()} ({platform.machine()}), "
          f"{'root' if os.geteuid() == 0 else 'an ordinary user (uid ' + str(os.geteuid()) + ')'}")  # fmt: skip
    hierarchy, found = arrangement.arrange()  # before any child, as a grader does
    print("\nJob cgroups:", f"{hierarchy.how}: {found}" if hierarchy is not None else f"none: {found}")
    print("\nIsolation tiers, strongest first:")
    zygote = Zygote(torch=False)
    try:
        for tier in tiers.TIERS:
            if tier == "userns" and os.geteuid() == 0:
                print(f"  {tier:9} not for root (as root, hardened or uid isolate instead)")
                continue
            isolation, reason = tiers.attempt(zygote, tier, "cpu", None, hierarchy, found)
            if isolation is not None:
                print(f"  {tier:9} works: {isolation.limits}")
                isolation.close()
            else:
                print(f"  {tier:9} does not work here: {reason}")
        try:
            chosen = tiers.choose(zygote, config.isolation, config.allow_unsandboxed, "cpu", None, hierarchy, found)
            print(f"\nGrading here uses: {chosen.describe()}")
            if chosen.why:
                print(f"  ({chosen.why})")
            chosen.close()
        except KitError as error:
            problems += 1
            print(f"\nGrading here: refused. {error}")
        gpu_words, gpu_problem = _gpu(zygote, config, hierarchy, found)
        problems += gpu_problem
    finally:
        zygote.close()
        if hierarchy is not None:
            hierarchy.close()
    print(_readable_copies_text())
    print("\nGPU:", gpu_words)
    print("nbgrader:", _nbgrader_kernel())
    if problems:
        return 1
    print()
    on_gpu = False
    for assignment in assignments.discover().values():
        try:
            with Grader(assignment, config) as grader:
                grader.check_host()
                on_gpu = on_gpu or grader.device.startswith("cuda")
            why = f" ({grader.device_why})" if grader.device_why else ""
            print(
                f"{assignment.name}: the reference gets full marks through the sandbox on {grader.device}{why}; its outputs are cached"
            )
        except KitError as error:
            problems += 1
            print(f"{assignment.name}: cannot grade here: {error}")
    if on_gpu and not problems:
        problems += _compare_devices(config, jobs)
    print("\nready to grade" if not problems else "\nnot ready: see above")
    return 1 if problems else 0


def _gpu(zygote: Zygote, config: GradingConfig, hierarchy, found: str) -> tuple[str, int]:
    """What the GPU path is here, in words, and 1 where --device cuda was asked and cannot be had."""
    absent = gpu.missing()
    asked = config.device != "cpu"
    if absent is not None:
        refused = config.device.startswith("cuda")
        return f"{absent}; grading runs on the CPU" + (" (--device cuda is refused)" if refused else ""), int(refused)
    try:
        chosen = tiers.choose(zygote, config.isolation, config.allow_unsandboxed, "cuda", None, hierarchy, found)
    except KitError as error:
        refused = config.device.startswith("cuda")
        fallback = "--device cuda is refused" if refused else "--device auto grades on the CPU"
        return f"a GPU is here, but CUDA cannot be isolated: {error}\n  ({fallback})", int(refused)
    chosen.close()
    hint = "" if asked else "; grade on it with --device cuda (or auto)"
    return f"CUDA is isolated here in the {chosen.tier} tier ({chosen.limits}){hint}", 0


def _compare_devices(config: GradingConfig, jobs: int) -> int:
    """The verdicts on the GPU against the CPU's, for every assignment (grade/devices.py): 1 where any differ."""
    print("\nThe same verdicts on the GPU as on the CPU (the reference, correct samples, every known mistake):")
    differing = 0
    for assignment in assignments.discover().values():
        started = time.monotonic()
        found = devices.compare(assignment, config, jobs)
        took = time.monotonic() - started
        lines = found.disagreements
        print(f"  {assignment.name}: {found.samples} samples in {len(devices.SETTINGS)} settings, {took:.0f} s: "
              + ("the same points on the GPU as on the CPU" if not lines else f"{len(lines)} disagreement(s):"))  # fmt: skip
        for line in lines:
            print(f"    {line}")
        if found.shown_only:
            print(f"    (with TF32 and fused attention kernels, which grading turns off before every call of the "
                  f"student's code, {len(found.shown_only)} would differ, e.g. {found.shown_only[0][:200]})")  # fmt: skip
        differing += bool(lines)
    return int(differing > 0)


def _nbgrader_kernel() -> str:
    """Whether the 'python3' kernel nbgrader autograde runs can import the kit (its hidden cells need it)."""
    # nbgrader runs from the kit's environment (autograder.author.release.nbgrader_env)
    scripts = os.path.dirname(sys.executable)
    jupyter = (
        os.path.join(scripts, "jupyter")
        if os.path.exists(os.path.join(scripts, "jupyter"))
        else shutil.which("jupyter") or "jupyter"
    )
    try:
        listed = subprocess.run([jupyter, "kernelspec", "list", "--json"], capture_output=True, text=True, timeout=60)
        spec = json.loads(listed.stdout)["kernelspecs"]["python3"]["spec"]
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        return "no Jupyter 'python3' kernel found: install the kit's instructor extras (make sets them up in .venv)"
    python = spec["argv"][0]
    if python in ("python", "python3"):
        python = shutil.which(python, path=scripts + os.pathsep + os.environ.get("PATH", "")) or python
    done = subprocess.run([python, "-c", KERNEL_PROBE], capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        return f"the 'python3' kernel ({python}) cannot import the kit: run nbgrader from the kit's .venv (source .venv/bin/activate)"
    try:
        probe = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"the 'python3' kernel ({python}) imports a kit that cannot say which it is: run nbgrader from the kit's .venv"
    return kernel_kit_line(python, probe)


# What the kernel's copy of the kit is: where, which version, and how it grades each assignment.
KERNEL_PROBE = (
    "import json, autograder, autograder.deliver.nbgrader\n"
    "try:\n    from autograder import assignments as a\n"
    "except ImportError:  # a kit older than the module's plural name\n    from autograder import assignment as a\n"
    "try:\n    from autograder.grade.deciding import kit_digest\n"
    "except ImportError:  # a kit older than grade/deciding.py\n    from autograder.author.notebook import kit_digest\n"
    "print(json.dumps({'root': str(autograder.KIT_ROOT), 'version': autograder.__version__, "
    "'grading': {n: kit_digest(x) for n, x in a.discover().items()}}))"
)


def kernel_kit_line(python: str, probe: dict) -> str:
    """What doctor says of the kit the kernel imports, compared with this one."""
    where = f"the 'python3' kernel ({python}) imports the kit at {probe['root']} (version {probe['version']})"
    if os.path.realpath(probe["root"]) == os.path.realpath(KIT_ROOT):
        return f"{where}: this checkout; the hidden cells will run"
    ours = {name: kit_digest(a) for name, a in assignments.discover().items()}
    differ = sorted(name for name in ours if probe["grading"].get(name) != ours[name])
    if not differ:
        return f"{where}, another copy that grades as this one (version {__version__}) does"
    return (
        f"{where}, another copy than this one ({KIT_ROOT}, version {__version__}), which grades "
        f"{', '.join(differ)} otherwise: their hidden cells will refuse to score. Run nbgrader from this kit's "
        f".venv (source {KIT_ROOT / '.venv' / 'bin' / 'activate'})"
    )


# ------------------------------------------------------------------ copies of the solutions others can read

SEARCHED = ("/tmp", "/var/tmp", "/home", "/srv", "/opt", "/data", "/autograder")  # besides home and the kit's parent
SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "venv", "site-packages", "proc", "sys"}


def readable_copies(
    places: list[Path], seconds: float = 10.0, max_depth: int = 8
) -> tuple[list[tuple[Path, Path]], bool]:
    """Copies of an assignment's reference (same digest) under places, outside this kit, that every user
    can read: (the file, what to close), and whether the search ended within its time."""
    digests = {hashlib.sha256(p.read_bytes()).hexdigest() for p in KIT_ROOT.glob("solutions/*/reference.py")}
    sizes = {p.stat().st_size for p in KIT_ROOT.glob("solutions/*/reference.py")}
    deadline = time.monotonic() + seconds
    found: dict[Path, Path] = {}
    for place in places:
        for folder, folders, files in trees.walk(place, max_depth=max_depth + 1):
            if time.monotonic() > deadline:
                return sorted(found.items()), False
            depth = len(folder.relative_to(place).parts)
            folders[:] = [] if depth >= max_depth else [f for f in folders if f not in SKIPPED]
            if folder.resolve() == KIT_ROOT:
                folders[:] = []
                continue
            for name in files:
                path = folder / name
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_size in sizes and _readable_by_others(path):
                    if hashlib.sha256(path.read_bytes()).hexdigest() in digests:
                        found[path] = _what_to_close(path)
    return sorted(found.items()), True


def _readable_by_others(path: Path) -> bool:
    """Whether a user with no group of the owner's can read the file: it and every folder above open to others."""
    try:
        if not os.stat(path).st_mode & stat.S_IROTH:
            return False
        return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in path.parents)
    except OSError:
        return False


def _what_to_close(path: Path) -> Path:
    """The checkout a copied solutions/<a>/reference.py belongs to, else the file itself."""
    if len(path.parts) >= 4 and path.parent.parent.name == "solutions" and path.name == "reference.py":
        return path.parent.parent.parent
    return path


def _readable_copies_text() -> str:
    places = [Path.home(), KIT_ROOT.parent, *map(Path, SEARCHED)]
    places = [p for i, p in enumerate(places) if p.is_dir() and p not in places[:i]]
    started = time.monotonic()
    found, complete = readable_copies(places)
    searched = f"searched {', '.join(map(str, places))} in {time.monotonic() - started:.1f} s" + (
        "" if complete else ", stopped there: not all of it"
    )
    if not found:
        return f"\nCopies of the solutions other users can read: none found ({searched})"
    by_target: dict[Path, list[Path]] = {}
    for path, target in found:
        by_target.setdefault(target, []).append(path)
    lines = [
        f"  {target}{'' if paths == [target] else ' (' + ', '.join(str(p.relative_to(target)) for p in paths) + ')'}: "
        f"chmod -R go-rwx {shlex.quote(str(target))}"
        for target, paths in by_target.items()
    ]
    return (
        "\nWARNING: copies of the solutions other users can read (in the uid tier, a student's code can too; "
        f"{searched}):\n" + "\n".join(lines)
    )
