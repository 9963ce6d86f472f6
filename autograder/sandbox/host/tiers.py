"""Choose the strongest isolation this host allows, by trying each tier for real.

In order: "hardened" (root with namespaces), "userns" (not root, unprivileged user
namespaces), "uid" (root where namespaces are refused, as in many containers), and
"process" only when the caller allows grading without isolation. Each candidate is
entered by a throwaway process forked from the zygote, which builds its sandbox and
then checks, from inside, that it can read none of the kit's secrets and write none
of its files. The first that holds is used; the reasons the others failed are kept,
for the results and for ``python -m autograder doctor``.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path

from ... import KIT_ROOT
from ...errors import KitError
from ...public import trees
from .arrangement import Hierarchy
from .client import Zygote
from .runtime import TIER_WORDS, Isolation
from .uids import SHARED_SCRATCH, UidPool

TIERS = ("hardened", "userns", "uid", "process")
PRIVATE = ("solutions", "autograder", "build", "tests")  # the kit's folders no student may read


def candidates(wanted: str, allow_unsandboxed: bool) -> list[str]:
    if wanted == "userns" and os.geteuid() == 0:
        # Inside its own user namespace root stays root outside, owner of the system's files.
        raise KitError("the userns tier is for ordinary users; as root the hardened (or uid) tier isolates instead")
    if wanted != "auto":
        return [wanted]
    found = []
    if sys.platform.startswith("linux"):
        found = ["hardened", "uid"] if os.geteuid() == 0 else ["userns"]
    return found + (["process"] if allow_unsandboxed else [])


def secrets(extra_read: tuple[Path, ...] = (), extra_write: tuple[Path, ...] = ()) -> tuple[list[str], list[str]]:
    """(what a student must not read, what it must not write): the kit's sources, its environment.

    Unreadable: the solutions and the graders, the reference's outputs cached in build/,
    and the tests (their held-out and fairness sets are working implementations); the
    caller adds its own (grade-all: the class's export and its --out folder)."""
    unreadable = [KIT_ROOT / part for part in PRIVATE] + list(extra_read)
    unwritable = [KIT_ROOT, Path(sys.prefix), *extra_write]
    return [str(p) for p in unreadable if p.exists()], [str(p) for p in unwritable if p.exists()]


def probe_request(tier: str, scratch: Path, device: str, uid: int | None, secret_paths) -> dict:
    (scratch / "root").mkdir(exist_ok=True)
    (scratch / "submission").mkdir(exist_ok=True)
    (scratch / "work").mkdir(exist_ok=True)
    unreadable, unwritable = secret_paths
    request = {
        "tier": tier,
        "device": device,
        "scratch": str(scratch),
        "work": str(scratch / "work"),
        "limits": {
            "memory_bytes": 1 << 30,
            "processes": 16,
            "file_bytes": 1 << 20,
            "scratch_bytes": 1 << 20,
            "cpu_seconds": 30,
        },
        "rlimit_memory": not device.startswith("cuda"),  # the driver's mappings: only a job's cgroup bounds them
        "rlimit_processes": True,
        "must_not_read": unreadable if tier != "process" else [],
        "must_not_write": unwritable if tier != "process" else [],
    }
    if uid is not None:
        request["uid"] = uid
        os.chmod(scratch, 0o711)
        os.chown(scratch / "work", uid, uid)
    return request


def attempt(
    zygote: Zygote,
    tier: str,
    device: str = "cpu",
    secret_paths=None,
    hierarchy: Hierarchy | None = None,
    found: str = "",
) -> tuple[Isolation | None, str]:
    """(the tier's isolation, "") where it works here, else (None, why not).

    hierarchy: the job cgroups the grader arranged before it started the zygote (arrangement.arrange),
    None where there are none, and found: the sentence that says what they bound or why there are none.
    With device cuda, the probe also starts CUDA inside the tier."""
    secret_paths = secret_paths or secrets()
    found = found or (hierarchy.describe() if hierarchy is not None else "no cgroup arranged for the jobs")
    memory = tier != "process" and hierarchy is not None and hierarchy.bounds("memory")
    if device.startswith("cuda") and tier != "process" and not memory:
        return None, (
            f"with --device cuda only a cgroup bounds every kind of memory, and none does here ({found}): CUDA "
            "reserves more address space than RLIMIT_AS could allow, and its driver makes memfds; give the "
            "grader a cgroup with the memory controller (root, or a delegated cgroup v2), or grade with --device cpu"
        )
    pool = None
    scratch = Path(tempfile.mkdtemp(prefix="autograder-probe-"))
    try:
        if tier in ("hardened", "uid"):
            if os.geteuid() != 0:
                return None, "needs root"
            try:
                pool = UidPool()
            except OSError as error:
                return None, str(error)
        reason = zygote.probe(probe_request(tier, scratch, device, pool.next() if pool else None, secret_paths))
    finally:
        trees.remove_tree(scratch)
    if reason is not None:
        if pool is not None:
            pool.close()
        return None, _with_fix(reason, secret_paths[0])
    kept = hierarchy if tier != "process" else None
    return Isolation(tier, _limits_words(tier, kept, found, device), "", kept, pool, owns_hierarchy=False), ""


def _with_fix(reason: str, unreadable: list[str]) -> str:
    """The probe's reason, with the command that closes what the student's uid could read."""
    readable = [path for path in unreadable if f"it could read {path}" in reason]
    if not readable:
        return reason
    return (
        f"{reason} (make it unreadable to other users, e.g. chmod -R go-rwx {' '.join(map(shlex.quote, readable))}: "
        "the student's uid must read nothing of the kit or of other students)"
    )


def choose(
    zygote: Zygote,
    wanted: str = "auto",
    allow_unsandboxed: bool = False,
    device: str = "cpu",
    secret_paths=None,
    hierarchy: Hierarchy | None = None,
    found: str = "",
) -> Isolation:
    """The strongest tier that works here, or KitError listing what each tier lacked."""
    if wanted not in ("auto", *TIERS):
        raise KitError(f"unknown isolation {wanted!r}: choose auto or one of {', '.join(TIERS)}")
    refused: list[tuple[str, str]] = []
    for tier in candidates(wanted, allow_unsandboxed):
        isolation, reason = attempt(zygote, tier, device, secret_paths, hierarchy, found)
        if isolation is not None:
            isolation.why = "; ".join(f"not {t}: {r}" for t, r in refused)
            return isolation
        refused.append((tier, reason))
    tried = (
        "\n".join(f"  - {tier} ({TIER_WORDS[tier]}): {reason}" for tier, reason in refused)
        or "  (none: this is not Linux)"
    )
    hint = (
        ""
        if allow_unsandboxed or wanted != "auto"
        else (
            "\nRun as root, or where unprivileged user namespaces are allowed; or pass --allow-unsandboxed to grade "
            "in a plain separate process (NOT isolated). `python -m autograder doctor` says more."
        )
    )
    raise KitError(f"no isolation tier works on this host:\n{tried}{hint}")


def _limits_words(tier: str, hierarchy: Hierarchy | None, found: str, device: str = "cpu") -> str:
    """What bounds the student's memory and processes in this tier, in the words the results carry."""
    cuda = device.startswith("cuda")
    memory = "RLIMIT_DATA" if cuda else "RLIMIT_AS, every mapping counted"
    if tier == "process":
        return f"rlimits per process (memory by {memory}, processes by RLIMIT_NPROC)"
    words = [found] if hierarchy is not None else []
    if hierarchy is None or not hierarchy.bounds("memory"):
        words.append(f"memory bounded per process ({memory}; memfd, System V shared memory and message queues refused)")
        if tier != "userns":  # its processes are not the grader's to read (not dumpable, the grader not root)
            words.append("the memory of its processes together watched")
    if hierarchy is None or not hierarchy.bounds("pids"):
        words.append("processes by RLIMIT_NPROC")
    if tier == "uid":
        words.append(f"its files in {', '.join(SHARED_SCRATCH)} counted with its scratch")
    return "; ".join(words) + ("" if hierarchy is not None else f" ({found})")
