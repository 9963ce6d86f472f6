"""The OS sandbox a student process enters before it loads any student code.

Levels:
  "process"   a separate process with resource limits (rlimits) only: what a laptop
              or macOS can do. Not hardened: the student's code can read what the
              grader's user can read.
"""
from __future__ import annotations

import resource

LEVELS = ("process",)


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, value))


def address_space_now() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def enter(request: dict) -> None:
    limits = request["limits"]
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, limits["file_bytes"])
    # torch is already mapped: allow its address space plus the memory limit.
    _limit(resource.RLIMIT_AS, address_space_now() + limits["memory_bytes"])
