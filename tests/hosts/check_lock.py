"""Check that requirements.lock resolves for another Python and platform, without that Python.

    python tests/hosts/check_lock.py [--python 3.10.12] [--machine x86_64] [--lock requirements.lock]
                               [--index-url https://pypi.org/simple] [--pip PIP]

`pip install --dry-run --python-version X --platform P` picks wheels for X and P but evaluates
the requirement lines' environment markers (`; python_full_version < '3.11'`) against the
Python that runs pip, and a single `--platform manylinux_2_28_x86_64` does not admit older
manylinux wheels. This script first keeps the lock's lines whose markers hold for the target
(CPython on Linux), then runs pip's dry run on them with the target's version and every
manylinux tag up to glibc 2.28, from --index-url only (PIP_CONFIG_FILE=/dev/null: no local
indexes, find-links or constraints). pip fetches metadata only where the index serves it
(PEP 658), so torch's CUDA wheels are not downloaded. Exit status: pip's.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    from packaging.markers import Marker
    from packaging.requirements import Requirement
except ModuleNotFoundError:  # pip always carries a copy
    from pip._vendor.packaging.markers import Marker  # type: ignore[no-redef]
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]


def target_environment(python: str, machine: str) -> dict:
    full = python if python.count(".") == 2 else python + ".0"
    return {
        "python_version": ".".join(full.split(".")[:2]),
        "python_full_version": full,
        "implementation_name": "cpython",
        "implementation_version": full,
        "platform_python_implementation": "CPython",
        "os_name": "posix",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": machine,
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lines_for(lock: str, env: dict) -> list[str]:
    kept = []
    for raw in open(lock):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        if requirement.marker is None or Marker(str(requirement.marker)).evaluate(env):
            kept.append(f"{requirement.name}{requirement.specifier}")
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default="3.10.12", help="target Python, X.Y or X.Y.Z (default 3.10.12)")
    parser.add_argument("--machine", default="x86_64", help="x86_64 or aarch64")
    parser.add_argument("--lock", default="requirements.lock")
    parser.add_argument("--index-url", default="https://pypi.org/simple")
    parser.add_argument("--pip", default=None, help="pip to run (default: this Python's)")
    args = parser.parse_args()

    env = target_environment(args.python, args.machine)
    kept = lines_for(args.lock, env)
    platforms = [f"manylinux_2_{minor}_{args.machine}" for minor in range(28, 16, -1)]
    platforms += [f"manylinux2014_{args.machine}"]
    if args.machine == "x86_64":
        platforms += [f"manylinux_2_{minor}_x86_64" for minor in range(16, 4, -1)]
        platforms += ["manylinux2010_x86_64", "manylinux1_x86_64"]
    with tempfile.TemporaryDirectory() as scratch:
        requirements = os.path.join(scratch, "requirements.txt")
        with open(requirements, "w") as out:
            out.write("\n".join(kept) + "\n")
        pip = [args.pip] if args.pip else [sys.executable, "-m", "pip"]
        command = pip + [
            "install",
            "--dry-run",
            "--ignore-installed",
            "--only-binary=:all:",
            "--python-version",
            env["python_version"],
            "--implementation",
            "cp",
            *(f"--platform={platform}" for platform in platforms),
            "--target",
            os.path.join(scratch, "target"),
            "--index-url",
            args.index_url,
            "--quiet",
            "--report",
            "-",
            "-r",
            requirements,
        ]
        environ = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
        for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "PIP_INDEX_URL"):
            environ.pop(name, None)
        done = subprocess.run(command, env=environ, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return done.returncode
    report = json.loads(done.stdout)
    chosen = {normalized(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]}
    print(
        f"Python {env['python_full_version']} on Linux {args.machine}: {len(kept)} lines of the lock kept, "
        f"pip would install {len(chosen)} distributions (torch {chosen.get('torch')}, "
        f"numpy {chosen.get('numpy')}, soupsieve {chosen.get('soupsieve')})"
    )
    extra = sorted(set(chosen) - {normalized(line.split("==")[0]) for line in kept})
    if extra:
        print("beyond the lock (torch's own pins): " + ", ".join(f"{name}=={chosen[name]}" for name in extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
