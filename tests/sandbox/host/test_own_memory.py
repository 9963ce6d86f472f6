"""Is the grader's own address space bounded while it grades, and only then, never looser than a bound already set?"""

import resource
import warnings

import numpy as np
import pytest

from autograder.sandbox.guest.isolation import address_space_now
from autograder.sandbox.host.own_memory import growth_bounded

from ..forked import in_a_child

MiB = 1 << 20


@pytest.mark.slow
def test_an_allocation_past_the_growth_given_fails_and_the_bound_is_lifted_after():
    """Inside the block, does 64 MiB fit and 2 GiB fail with a MemoryError; after it, is the limit as it was?"""
    before = resource.getrlimit(resource.RLIMIT_AS)
    with growth_bounded(512 * MiB) as bound:
        assert bound <= address_space_now() + 512 * MiB
        assert np.ones(64 * MiB, dtype=np.uint8).sum() == 64 * MiB
        with pytest.raises(MemoryError):
            np.ones(2048 * MiB, dtype=np.uint8)
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert np.ones(1024 * MiB, dtype=np.uint8)[-1] == 1  # no bound left behind


def _under_a_tighter_bound() -> None:
    tight = address_space_now() + 256 * MiB
    resource.setrlimit(resource.RLIMIT_AS, (tight, resource.RLIM_INFINITY))
    with growth_bounded(4096 * MiB) as bound:
        assert bound == tight
    assert resource.getrlimit(resource.RLIMIT_AS)[0] == tight


def test_a_bound_already_set_is_never_loosened():
    """Where the process already has a tighter soft limit (a cluster's, a container's), is it kept, and restored?"""
    in_a_child(_under_a_tighter_bound)


def test_cudas_start_failing_under_the_bound_is_not_shown():
    """Under the bound, is PyTorch's warning that CUDA could not start (the grader's own autograd asking for devices
    on a GPU host; the grader never computes there) left out, while any other warning still shows?"""
    with pytest.warns(UserWarning) as shown:
        with growth_bounded(512 * MiB):
            cuda = "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 2: out of memory"
            warnings.warn(cuda, stacklevel=1)
            warnings.warn("something else", stacklevel=1)
    assert [str(w.message) for w in shown] == ["something else"]
