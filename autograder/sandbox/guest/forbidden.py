"""Take PyTorch's own attention away from the student's process, before the student's code loads.

The exercises ask for attention computed by the student's own code. Every entry into
PyTorch's built-in versions raises ``ForbiddenBuiltin`` instead:

* the fused operators, replaced at PyTorch's dispatcher, so that every route to them
  fails alike (``F.scaled_dot_product_attention``, ``torch._C._nn...``,
  ``torch.ops.aten...``, and ``nn.MultiheadAttention``'s fast path);
* the Python ones (``F.multi_head_attention_forward``, ``nn.MultiheadAttention``).

The replacements are registered through a handle that no Python object refers to, so
the student's code cannot find it to undo them. The error says which graded name's own
code made the call, so that a check blames that name only (a name that merely calls a
student's helper which used a built-in loses points as that helper's caller, not as
the caller of the built-in).
"""

from __future__ import annotations

import ctypes
import sys
import warnings
from types import FrameType

from ...public.probing import is_kit_or_library

# Operators, and the dispatch keys that reach their kernels.
FUSED = {
    "scaled_dot_product_attention": ("CompositeImplicitAutograd",),
    "_scaled_dot_product_attention_math": ("CompositeImplicitAutograd",),
    "_scaled_dot_product_flash_attention_for_cpu": ("CPU", "Autograd"),
    "_scaled_dot_product_flash_attention": ("CUDA", "Autograd"),
    "_scaled_dot_product_efficient_attention": ("CUDA", "Autograd"),
    "_scaled_dot_product_cudnn_attention": ("CUDA", "Autograd"),
    "_scaled_dot_product_fused_attention_overrideable": ("CompositeExplicitAutograd", "Autograd"),
    "_native_multi_head_attention": ("CPU", "CUDA", "Autograd"),
}


class ForbiddenBuiltin(RuntimeError):
    """A graded name's code called one of PyTorch's own attention functions."""


def message(graded: str, builtin: str) -> str:
    return f"{graded} calls {builtin}: the exercise is to compute attention yourself"


def blamed(error_text: str, name: str) -> bool:
    """Whether a probe's error says that ``name``'s own code called a built-in."""
    return "ForbiddenBuiltin" in error_text and f"{name} calls torch" in error_text


def _blame(graded: tuple[str, ...]) -> str:
    """The graded name whose own code made the call: the innermost student frame that belongs to one."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if not is_kit_or_library(code.co_filename):
            qualname = getattr(code, "co_qualname", None)
            if qualname is None:  # Python 3.10: methods are named through self
                owner = frame.f_locals.get("self")
                qualname = f"{type(owner).__name__}.{code.co_name}" if owner is not None else code.co_name
            first = qualname.split(".")[0]
            if first in graded:
                return first
        frame = frame.f_back
    return "your code"


def _refuse(builtin: str, graded: tuple[str, ...]):
    def refuse(*args, **kwargs):
        raise ForbiddenBuiltin(message(_blame(graded), builtin))

    return refuse


def forbid(graded: tuple[str, ...]) -> None:
    import torch  # here: the zygote preloads PyTorch only for a PyTorch assignment
    import torch.nn.functional as F  # here: as above

    library = torch._C._dispatch_library("IMPL", "aten", "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel" is the point
        for operator, keys in FUSED.items():
            for key in keys:
                try:
                    refuse = _refuse(f"torch's {operator.lstrip('_')}", graded)
                    # torch's stub lacks impl's with_keyset argument, which torch.library passes too.
                    library.impl(operator, key, refuse, False)  # type: ignore[call-arg]
                except RuntimeError:
                    pass  # an operator this build of PyTorch does not have
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(library))  # kept alive, yet referred to by no Python object
    del library
    F.multi_head_attention_forward = _refuse("torch.nn.functional.multi_head_attention_forward", graded)
    refuse_init = _refuse("torch.nn.MultiheadAttention", graded)

    def init(self, *args, **kwargs):
        refuse_init()

    torch.nn.MultiheadAttention.__init__ = init  # type: ignore[method-assign]  # replacing it is the point
