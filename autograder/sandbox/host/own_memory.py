"""The grader's own memory bound: what one submission can make the trusted side allocate.

Every message of a student's process is bounded, and so is what the reference computes
for it in a carried run (grade/reference_process.py); the grader itself is bounded too,
for any path those bounds missed: while it grades one submission its address space may
grow by at most a given number of bytes (RLIMIT_AS's soft limit, raised back afterwards,
and never above a bound someone else set). An allocation past it fails with a
MemoryError, which ends that submission's grading as the kit's failure ("not graded"),
instead of a grader killed by the host's out-of-memory killer with the whole class's
gradings lost. Processes the grader starts meanwhile inherit the bound; it starts none
but the reference's own (which lowers it further): student processes come from the
zygote, started before.

On a GPU host PyTorch's autograd asks CUDA how many devices there are at the grader's first
backward pass (the reference's gradients); under the bound CUDA cannot reserve its address
space, and PyTorch warns "CUDA initialization: ... out of memory" once per process. The
grader never computes on the GPU (student processes do, from the zygote), so that warning
says nothing and is not shown: on an H200 it buried doctor's own report.
"""

from __future__ import annotations

import resource
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from ..guest.isolation import address_space_now


@contextmanager
def growth_bounded(extra_bytes: int) -> Iterator[int]:
    """This process's address space bounded to what it is now plus ``extra_bytes`` while the block runs; the bound."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    bound = address_space_now() + extra_bytes
    for other in (soft, hard):
        if other != resource.RLIM_INFINITY:
            bound = min(bound, other)
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="CUDA initialization", category=UserWarning)
            yield bound
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
