"""What a grader holds for as long as it grades: a warm zygote, and the isolation this host gives.

The isolation is chosen once, by trying each tier for real in a throwaway student
process (tiers.py); every result names the tier it was graded in.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ...public import trees
from .arrangement import Hierarchy
from .cgroups import CgroupLimits, JobCgroup
from .client import Zygote
from .gpu import GpuWatch
from .uids import UidPool


@dataclass
class Isolation:
    tier: str  # "hardened", "userns", "uid" or "process"
    limits: str  # what bounds memory and processes: a cgroup, or rlimits
    why: str = ""  # why no stronger tier (empty when the strongest ran)
    hierarchy: Hierarchy | None = None
    uid_pool: UidPool | None = None
    owns_hierarchy: bool = True

    def new_job(self, name: str, limits) -> JobCgroup | None:
        if self.hierarchy is None or self.tier == "process":
            return None
        return self.hierarchy.job(name, CgroupLimits(limits.memory_bytes, limits.processes))

    @property
    def hardened(self) -> bool:
        return self.tier != "process"

    def describe(self) -> str:
        return f"{self.tier} ({TIER_WORDS[self.tier]}; {self.limits})"

    def as_dict(self) -> dict:
        return {"tier": self.tier, "limits": self.limits, "why": self.why}

    def close(self) -> None:
        if self.uid_pool is not None:
            self.uid_pool.close()
        if self.hierarchy is not None and self.owns_hierarchy:
            self.hierarchy.close()


TIER_WORDS = {
    "hardened": "root: own namespaces and read-only root, an unprivileged uid, no network",
    "userns": "an unprivileged user namespace: own namespaces and read-only root, no capabilities, no network",
    "uid": "root without namespaces: an unprivileged uid that can read nothing of the kit; network not blocked",
    "process": "a plain separate process: NOT isolated, the student's code can read and write what the grader can",
}


@dataclass
class Runtime:
    zygote: Zygote
    isolation: Isolation
    scratch_root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="autograder-")))
    gpu: GpuWatch | None = None  # on a GPU: what watches the GPU memory each student holds
    # PyTorch's kernels in the student's process on a GPU: "exact" (no TF32, attention's math kernel only: what
    # grading uses) or "fast" (TF32 matmuls, flash and memory-efficient attention: a student's default PyTorch)
    kernels: str = "exact"

    def submission_folder(self) -> Path:
        """A fresh folder for one submission's copy and its processes' scratch, the grader's alone
        (in the uid tier the session opens it to the uid of each process it starts, and to no other)."""
        folder = Path(tempfile.mkdtemp(prefix="submission-", dir=self.scratch_root))
        if self.isolation.tier == "uid":
            os.chmod(self.scratch_root, 0o711)
        return folder

    def close(self) -> None:
        self.zygote.close()
        self.isolation.close()
        trees.remove_tree(self.scratch_root)
