"""Helpers for the probes of PyTorch assignments: contract checks, weights, dropout, figures.

Probes of any assignment may use these; like the probes, they ship to students in the
self-check bundle and run the same way on the reference and on a student's code.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np

from .probing import ContractError


def strings(value, what: str) -> np.ndarray:
    """A list of strings as an array of strings, or ContractError naming what should return it."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{what} should return a list of strings, got {type(value).__name__}")
    return np.array(list(value), dtype=str) if value else np.zeros(0, dtype="<U1")


def module(impl, name: str, *args, **kwargs):
    """impl's graded class ``name`` built with these arguments, on the grading device."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    built = getattr(impl, name)(*args, **kwargs)
    if not isinstance(built, torch.nn.Module):
        raise ContractError(f"{name}(...) should create an nn.Module, got {type(built).__name__}")
    built = built.to(impl.device)
    if impl.device != "cpu":
        plain_tensors_moved(built, impl.device)
    return built


def plain_tensors_moved(built, device: str) -> None:
    """The module's plain tensor attributes (neither parameters nor buffers) moved to the device as well.

    .to(device) misses them: on a GPU every call of the module would fail on mixed devices, where on the
    CPU only the check that it registers its tensors fails (``registered``, which still sees them). Moved,
    the code earns the same points on both devices."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    for owner in built.modules():
        for attribute, value in list(vars(owner).items()):
            # "_mask" too: a name of the student's own (nn.Module's bookkeeping holds no tensor itself)
            if not isinstance(value, torch.Tensor) or value.device.type == torch.device(device).type:
                continue
            moved = value.detach().to(device)
            vars(owner)[attribute] = moved.requires_grad_() if value.requires_grad else moved


def linear(owner_module, attribute: str, owner: str):
    """The nn.Linear (with bias) the contract names ``owner.attribute``."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    layer = getattr(owner_module, attribute, None)
    if not isinstance(layer, torch.nn.Linear):
        raise ContractError(f"{owner} should have an attribute {attribute} that is an nn.Linear")
    if layer.bias is None:
        raise ContractError(f"{owner}.{attribute} should have a bias (nn.Linear's default)")
    return layer


def load(parameter, array, impl, where: str) -> None:
    """Copy a plain array into a parameter of the same shape."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    value = impl.tensor(array)
    if tuple(parameter.shape) != tuple(value.shape):
        raise ContractError(f"{where} has shape {tuple(parameter.shape)}; expected {tuple(value.shape)}")
    with torch.no_grad():
        parameter.copy_(value)


def unregistered(owner_module, name: str) -> str | None:
    """What the module (or a module it registers) keeps as a plain attribute that it should register, said
    with the fix; None when it keeps none.

    A tensor of more than one value (a scale of one value mixes with any device) that
    is neither a parameter nor a buffer: .parameters() (so the optimizer), state_dict()
    and .to(device) miss it. A Python list, tuple or dict holding modules: .parameters(),
    .to(device), .train() and .eval() never reach them.
    """
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    for path, owner in owner_module.named_modules():
        for attribute, value in vars(owner).items():
            if attribute.startswith("_"):
                continue  # nn.Module's own bookkeeping (_parameters, _modules, ...)
            where = f"{name}{'.' + path if path else ''}.{attribute}"
            if isinstance(value, torch.Tensor) and value.numel() > 1:
                return (
                    f"{where} is a plain tensor attribute, which {name} does not register: .parameters() (and so "
                    f"the optimizer), state_dict() and .to(device) miss it. Wrap a learned tensor in "
                    f"nn.Parameter(...); keep a fixed one with self.register_buffer('{attribute}', ...)"
                )
            items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
            if any(isinstance(item, torch.nn.Module) for item in items):
                holder = "nn.ModuleDict({...})" if isinstance(value, dict) else "nn.ModuleList([...])"
                return (
                    f"{where} is a Python {type(value).__name__} of modules, which {name} does not register: "
                    f".parameters(), .to(device), .train() and .eval() never reach them. Keep them in an {holder}"
                )
    return None


def registered(impl, name: str, args) -> dict:
    """The outputs of a probe that builds impl's module ``name`` with these arguments and requires that it
    registers its tensors and submodules (ContractError naming what it does not)."""
    built = module(impl, name, *args)
    problem = unregistered(built, name)
    if problem:
        raise ContractError(problem)
    return {"registered": np.bool_(True)}


def dropout_probability(layer, path: str = "dropout") -> np.float64:
    """The probability of the dropout module at ``path`` ("dropout", "sublayer.0.dropout") of a module as
    built (nan where it has no such module with a p), read before a probe puts a fixed pattern in its place."""
    node = layer
    for part in path.split("."):
        try:
            node = node[int(part)] if part.isdigit() else getattr(node, part)
        except Exception:
            return np.float64(np.nan)
    return as_probability(getattr(node, "p", None))


def as_probability(value) -> np.float64:
    """A dropout probability as a number; nan where it is missing (None) or no number (another type)."""
    try:
        return np.float64(float(value))
    except (TypeError, ValueError):
        return np.float64(np.nan)


def dropout_key(path: str) -> str:
    """How a probe's output names the probability of the dropout at ``path``: "self.sublayer[0].dropout.p"."""
    return (
        "self." + "".join(f"[{part}]" if part.isdigit() else f".{part}" for part in path.split(".")).lstrip(".") + ".p"
    )


def built_dropouts(impl, name: str, args, p: float, paths) -> dict:
    """The module ``name`` built with ``args`` and dropout=p: the probability of each of its dropouts at
    ``paths``, as built. No forward pass runs, so where a dropout acts (checked elsewhere) cannot fail this."""
    layer = module(impl, name, *args, dropout=p)
    return {dropout_key(path): dropout_probability(layer, path) for path in paths}


def grad(tensor):
    """The gradient of a leaf; zero when the computation never used it (no .grad is set then)."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    return tensor.grad if tensor.grad is not None else torch.zeros_like(tensor)


def pair(result, what: str):
    """A result that must be a pair (output, attn_probs)."""
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ContractError(f"{what} should return a pair (output, attn_probs), got {type(result).__name__}")
    return result


def fixed_dropout(keep, p: float, impl, where: str = "the attention weights (q_len, k_len)", known=None):
    """A dropout whose kept entries are known: x * keep / (1 - p), keep the shape of x's last two axes.

    The pattern depends only on those two axes (for attention weights, a weight's query
    and key), never on how the code lays out the others: the same weights are dropped
    whether the heads are an axis of their own, folded into the batch, or attended to one
    at a time in a loop. A tensor whose last two axes are not keep's is refused, naming
    ``where`` the dropout belongs, and the tensor it was given where it is one of ``known``
    ({what it is: the tensor}, such as the module's input).
    """
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    known = dict(known or {})

    class FixedDropout(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = p
            self.register_buffer("keep", impl.tensor(keep).to(torch.float32))

        def forward(self, x):
            if tuple(x.shape[-2:]) != tuple(self.keep.shape):
                given = next((what for what, tensor in known.items() if x is tensor), "a tensor")
                raise ContractError(
                    f"the dropout was applied to {given} of shape {tuple(x.shape)}; it belongs on {where}, "
                    f"whose last two axes here are {tuple(self.keep.shape)}"
                )
            return x * self.keep.to(x.dtype) / (1 - self.p)

    return FixedDropout().to(impl.device)


# ------------------------------------------------------------------ figures


def heatmaps(figure) -> list[tuple[np.ndarray, list[str], list[str], tuple[float, float]]]:
    """(data, label of each column, label of each row, colour limits) of every heatmap a figure draws."""
    found = [heatmap(ax) for ax in figure.axes]
    return [h for h in found if h is not None]


@contextmanager
def pyplot_figures_closed():
    """Close every pyplot figure opened inside the block, whatever happens in it.

    A student's code that calls plt.subplots (and fails, or returns that figure) would
    otherwise leave its figures for Jupyter to show under the check cell. pyplot is
    only looked at if some code imported it: a figure made with Figure(...) needs nothing.
    """
    before = set(_pyplot().get_fignums()) if _pyplot() is not None else set()
    try:
        yield
    finally:
        plt = _pyplot()
        if plt is not None:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)


def _pyplot():
    return sys.modules.get("matplotlib.pyplot")


def from_pyplot(figure) -> bool:
    """Whether pyplot made the figure (plt.subplots, plt.figure): a notebook then shows it twice."""
    return getattr(figure.canvas, "manager", None) is not None


def heatmap(ax):
    """(data, label of each column, label of each row, colour limits) of the heatmap an axes draws, or None.

    The colour limits are the (vmin, vmax) of the heatmap's norm: the weights drawn
    black and white.
    """
    from matplotlib.collections import QuadMesh  # here: matplotlib loads in 0.5 s, for a heatmap check only

    if getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>":
        return None  # a colorbar's axes draws its scale, not a head
    if ax.images:
        image = drawn = ax.images[0]
        data = np.asarray(image.get_array(), dtype=np.float64)
        left, right, bottom, top = image.get_extent()
        if image.origin == "upper":
            row_edges = np.linspace(top, bottom, data.shape[0] + 1)
        else:
            row_edges = np.linspace(bottom, top, data.shape[0] + 1)
        column_edges = np.linspace(left, right, data.shape[1] + 1)
    else:
        meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
        if not meshes:
            return None
        drawn = meshes[0]
        coordinates = drawn.get_coordinates()  # (rows + 1, columns + 1, 2)
        column_edges = coordinates[0, :, 0]
        row_edges = coordinates[:, 0, 1]
        data = np.asarray(drawn.get_array(), dtype=np.float64).reshape(len(row_edges) - 1, len(column_edges) - 1)
    return data, labels_by_cell(ax.xaxis, column_edges), labels_by_cell(ax.yaxis, row_edges), colour_limits(drawn)


def colour_limits(drawn) -> tuple[float, float]:
    """(vmin, vmax) of an image's or a mesh's norm; nan where the norm has none yet."""
    low, high = drawn.get_clim()
    return (np.nan if low is None else float(low), np.nan if high is None else float(high))


def tick_labels(axis) -> list[tuple[float, str]]:
    """(position, text) of each major tick, as the axis draws it.

    Read from the axis's locator and formatter, not from the visible labels, so that
    labels hidden by shared axes (``plt.subplots(sharex=True)``) count like the others.
    """
    ticks = list(axis.get_majorticklocs())
    return list(zip(ticks, axis.get_major_formatter().format_ticks(ticks)))


def labels_by_cell(axis, edges) -> list[str]:
    """The tick label at the centre of each cell ('' where no tick sits)."""
    low, high = np.minimum(edges[:-1], edges[1:]), np.maximum(edges[:-1], edges[1:])
    centre = (low + high) / 2
    by_cell = [""] * (len(edges) - 1)
    for tick, text in tick_labels(axis):
        cell = int(np.argmin(np.abs(centre - tick)))
        if abs(centre[cell] - tick) <= 0.25 * (high[cell] - low[cell]):
            by_cell[cell] = text
    return by_cell
