"""PyTorch on one thread in the trusted process (the grader, grade-all's parent, the reference)."""

import sys


def single_threaded(import_torch: bool = False) -> None:
    """PyTorch on one thread in the trusted process: its tensors are tiny, and grade-all forks
    its workers from it, which a process that has started OpenMP's thread pool cannot do safely.

    Only where PyTorch is imported already (or import_torch): a grader whose reference
    outputs are cached never imports it.
    """
    if "torch" not in sys.modules and not import_torch:
        return
    import torch  # here: a grader whose reference outputs are cached never imports it

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # set once per process, before any inter-op work: already so
