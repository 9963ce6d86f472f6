"""Check a host before a course: ``python -m autograder doctor``.

It says which isolation tier grading gets here and why the stronger ones do not work,
what bounds memory and processes, whether a GPU is there (and, with --device cuda,
whether the reference grades on it), whether the kernel nbgrader runs can import the
kit, and it grades each assignment's reference through the sandbox: anything short of
full marks means this host cannot grade. It also computes the reference's outputs once
(the cache every later grading reads), which is why Gradescope's setup.sh runs it.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys

from . import assignment as assignments
from .config import GradingConfig
from .errors import KitError


def doctor(config: GradingConfig) -> int:
    from .grade.engine import Grader
    from .sandbox.host import tiers
    from .sandbox.host.client import Zygote

    problems = 0
    print(f"Python {platform.python_version()} on {platform.system()} {platform.release()} ({platform.machine()}), "
          f"{'root' if os.geteuid() == 0 else 'an ordinary user (uid ' + str(os.geteuid()) + ')'}")  # fmt: skip
    print("\nIsolation tiers, strongest first:")
    zygote = Zygote(torch=False)
    try:
        for tier in tiers.TIERS:
            if tier == "userns" and os.geteuid() == 0:
                print(f"  {tier:9} not for root (as root, hardened or uid isolate instead)")
                continue
            isolation, reason = tiers.attempt(zygote, tier)
            if isolation is not None:
                print(f"  {tier:9} works: {isolation.limits}")
                isolation.close()
            else:
                print(f"  {tier:9} does not work here: {reason}")
        chosen = None
        try:
            chosen = tiers.choose(zygote, config.isolation, config.allow_unsandboxed, "cpu")
            print(f"\nGrading here uses: {chosen.describe()}")
            if chosen.why:
                print(f"  ({chosen.why})")
            chosen.close()
        except KitError as error:
            problems += 1
            print(f"\nGrading here: refused. {error}")
    finally:
        zygote.close()
    print("\nGPU:", _gpu())
    print("nbgrader:", _nbgrader_kernel())
    if problems:
        return 1
    print()
    for assignment in assignments.discover().values():
        try:
            with Grader(assignment, config) as grader:
                grader.check_host()
            print(
                f"{assignment.name}: the reference gets full marks through the sandbox on {grader.device}; its outputs are cached"
            )
        except KitError as error:
            problems += 1
            print(f"{assignment.name}: cannot grade here: {error}")
    print("\nready to grade" if not problems else "\nnot ready: see above")
    return 1 if problems else 0


def _gpu() -> str:
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.is_available(), torch.cuda.device_count(), torch.version.cuda)"],
        capture_output=True, text=True, env={**os.environ, "PYTORCH_NVML_BASED_CUDA_CHECK": "1"},
    )  # fmt: skip
    available, count, cuda = (done.stdout.split() + ["?", "?", "?"])[:3]
    if available == "True":
        return f"{count} CUDA device(s), PyTorch built for CUDA {cuda}: grade on it with --device cuda (or auto)"
    return f"none that PyTorch sees (its build: CUDA {cuda}); grading runs on the CPU"


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
    "from autograder import assignment as a\n"
    "from autograder.author.notebook import kit_digest\n"
    "print(json.dumps({'root': str(autograder.KIT_ROOT), 'version': autograder.__version__, "
    "'grading': {n: kit_digest(x) for n, x in a.discover().items()}}))"
)


def kernel_kit_line(python: str, probe: dict) -> str:
    """What doctor says of the kit the kernel imports, compared with this one."""
    from . import KIT_ROOT, __version__
    from .author.notebook import kit_digest

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
