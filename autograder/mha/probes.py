"""Probes of the `mha` assignment: each calls one graded name the way the contract allows.

Modules are compared by loading the same weights into the student's module and the
reference's through the contract's attribute names (lut, Wq, Wk, Wv, Wo), never by
hoping that two constructors draw the same random numbers. Values are compared in
eval mode; where dropout applies is checked with a fixed, known dropout mask.
"""
from __future__ import annotations

import numpy as np
import torch

from ..core.probing import EXACT, ContractError, Tolerance, probe

# float32 keeps about 7 significant digits (eps = 1.2e-7). A correct implementation
# may sum in another order than the reference (einsum or matmul, a hand-written softmax,
# another device): over the dot products of length <= 64 used here that moves a value
# by at most a few hundred ulp, about 1e-5 relative. The wrong variants the graders
# must catch (a missing scale, a wrong axis) move values by 1e-2 or more.
FLOAT32 = Tolerance(rtol=1e-4, atol=1e-5, why="float32 results summed in another order")
# Gradients go through one more matrix product and the softmax's Jacobian: same bound,
# with room for the extra rounding of the backward pass.
GRADIENT = Tolerance(rtol=1e-4, atol=2e-5, why="float32 gradients summed in another order")
# The positional table: the angle pos / 10000^(2i/d) is at most max_length radians; in
# float32 it carries an absolute error of a few ulp of max_length (2^-24 * 128 * 4 ~ 3e-5
# for the tables of at most 128 positions compared here), and sin and cos pass that on.
POSITIONS = Tolerance(rtol=0.0, atol=5e-5, why="float32 angles of up to 128 radians")
# The default table has 5000 positions: the angle's float32 error grows to about
# 4 ulp of 5000 = 4 * 4.9e-4 = 2e-3 there (a table built in float64 is exact to 1e-7).
LONG_POSITIONS = Tolerance(rtol=0.0, atol=2.5e-3, why="float32 angles of up to 5000 radians")


def _strings(value, what: str) -> np.ndarray:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{what} should return a list of strings, got {type(value).__name__}")
    return np.array(list(value), dtype=str) if value else np.zeros(0, dtype="<U1")


def _module(impl, name, *args, **kwargs):
    module = getattr(impl, name)(*args, **kwargs)
    if not isinstance(module, torch.nn.Module):
        raise ContractError(f"{name}(...) should create an nn.Module, got {type(module).__name__}")
    return module.to(impl.device)


def _linear(module, attribute: str, owner: str):
    layer = getattr(module, attribute, None)
    if not isinstance(layer, torch.nn.Linear):
        raise ContractError(f"{owner} should have an attribute {attribute} that is an nn.Linear")
    if layer.bias is None:
        raise ContractError(f"{owner}.{attribute} should have a bias (nn.Linear's default)")
    return layer


def _load(parameter, array, impl, where: str):
    value = impl.tensor(array)
    if tuple(parameter.shape) != tuple(value.shape):
        raise ContractError(f"{where} has shape {tuple(parameter.shape)}; expected {tuple(value.shape)}")
    with torch.no_grad():
        parameter.copy_(value)


def _grad(tensor):
    """The gradient of a leaf; zero when the computation never used it (no .grad is set then)."""
    return tensor.grad if tensor.grad is not None else torch.zeros_like(tensor)


def _pair(result, what: str):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ContractError(f"{what} should return a pair (output, attn_probs), got {type(result).__name__}")
    return result


class FixedDropout(torch.nn.Module):
    """A dropout whose kept elements are known: x * keep / (1 - p)."""

    def __init__(self, keep, p, impl):
        super().__init__()
        self.p = p
        self.register_buffer("keep", impl.tensor(keep).to(torch.float32))

    def forward(self, x):
        return x * self.keep / (1 - self.p)


# ------------------------------------------------------------------ words to ids


@probe(tokens=EXACT)
def tokenize(impl, text):
    return {"tokens": _strings(impl.tokenize(text), "tokenize")}


@probe(words=EXACT, ids=EXACT)
def build_vocab(impl, texts):
    stoi = impl.build_vocab(list(texts))
    if not isinstance(stoi, dict):
        raise ContractError(f"build_vocab should return a dict, got {type(stoi).__name__}")
    if not all(isinstance(k, str) and isinstance(v, int) for k, v in stoi.items()):
        raise ContractError("build_vocab should map strings to ints")
    pairs = sorted(stoi.items(), key=lambda pair: (pair[1], pair[0]))
    return {
        "words": np.array([word for word, _ in pairs], dtype=str),
        "ids": np.array([i for _, i in pairs], dtype=np.int64),
    }


@probe(ids=EXACT)
def encode(impl, texts, stoi, max_length=None):
    ids = impl.encode(list(texts), dict(stoi), max_length)
    if not isinstance(ids, torch.Tensor):
        raise ContractError(f"encode should return a tensor, got {type(ids).__name__}")
    return {"ids": ids}


# ------------------------------------------------------------------ ids to vectors


@probe(out=FLOAT32, grad_lut=GRADIENT)
def embeddings(impl, vocab_size, d_model, lut, x, grad_out):
    module = _module(impl, "Embeddings", vocab_size, d_model)
    table = getattr(module, "lut", None)
    if not isinstance(table, torch.nn.Embedding):
        raise ContractError("Embeddings should have an attribute lut that is an nn.Embedding")
    _load(table.weight, lut, impl, "Embeddings.lut.weight")
    module.eval()
    out = module(impl.tensor(x))
    (out * impl.tensor(grad_out)).sum().backward()
    return {"out": out, "grad_lut": _grad(table.weight)}


@probe(out=FLOAT32, table=POSITIONS, trainable=EXACT, buffer=EXACT)
def positional_encoding(impl, d_model, max_length, x):
    module = _module(impl, "PositionalEncoding", d_model, dropout=0.0, max_length=max_length)
    module.eval()
    out = module(impl.tensor(x))
    outputs = {
        "out": out,
        "trainable": np.int64(sum(p.numel() for p in module.parameters() if p.requires_grad)),
        "buffer": np.bool_("pe" in dict(module.named_buffers())),
    }
    if isinstance(getattr(module, "pe", None), torch.Tensor):  # missing: only the table's check fails
        outputs["table"] = module.pe
    return outputs


@probe(table=LONG_POSITIONS)
def positional_encoding_default_table(impl, d_model):
    module = _module(impl, "PositionalEncoding", d_model)
    return {"table": _table(module)}


def _table(module):
    table = getattr(module, "pe", None)
    if not isinstance(table, torch.Tensor):
        raise ContractError("PositionalEncoding has no tensor attribute pe: keep the table in self.pe, with register_buffer")
    return table


@probe(train=FLOAT32, eval=FLOAT32)
def positional_encoding_dropout(impl, d_model, max_length, x, p):
    """The same module in train mode (dropout p) and in eval mode: graders check train = 0 or eval / (1 - p)."""
    torch.manual_seed(0)
    module = _module(impl, "PositionalEncoding", d_model, dropout=p, max_length=max_length)
    train = module.train()(impl.tensor(x))
    return {"train": train, "eval": module.eval()(impl.tensor(x))}


# ------------------------------------------------------------------ heads


@probe(out=EXACT)
def split_heads(impl, x, n_heads):
    return {"out": impl.split_heads(impl.tensor(x), n_heads)}


@probe(out=EXACT)
def combine_heads(impl, x):
    return {"out": impl.combine_heads(impl.tensor(x))}


# ------------------------------------------------------------------ attention


ATTENTION_OUTPUTS = {
    "output": FLOAT32,
    "attn_probs": FLOAT32,
    "grad_query": GRADIENT,
    "grad_key": GRADIENT,
    "grad_value": GRADIENT,
}


@probe(**ATTENTION_OUTPUTS)
def attention(impl, query, key, value, grad_output, mask=None, keep=None, p=0.5):
    """scaled_dot_product_attention, with a fixed dropout mask when ``keep`` is given."""
    q, k, v = (impl.tensor(a).requires_grad_(True) for a in (query, key, value))
    dropout = None if keep is None else FixedDropout(keep, p, impl)
    result = impl.scaled_dot_product_attention(q, k, v, mask=None if mask is None else impl.tensor(mask), dropout=dropout)
    output, attn_probs = _pair(result, "scaled_dot_product_attention")
    (output * impl.tensor(grad_output)).sum().backward()
    return {
        "output": output,
        "attn_probs": attn_probs,
        "grad_query": _grad(q),
        "grad_key": _grad(k),
        "grad_value": _grad(v),
    }


WEIGHTS = ("Wq", "Wk", "Wv", "Wo")


@probe(**ATTENTION_OUTPUTS, **{f"grad_{w}.{part}": GRADIENT for w in WEIGHTS for part in ("weight", "bias")})
def multi_head_attention(impl, d_model, n_heads, weights, query, key, value, grad_output, mask=None, keep=None, p=0.5):
    """MultiHeadAttention with the given weights; in train mode with a fixed dropout when ``keep`` is given."""
    module = _module(impl, "MultiHeadAttention", d_model, n_heads, dropout=0.0)
    for name in WEIGHTS:
        layer = _linear(module, name, "MultiHeadAttention")
        _load(layer.weight, weights[f"{name}.weight"], impl, f"MultiHeadAttention.{name}.weight")
        _load(layer.bias, weights[f"{name}.bias"], impl, f"MultiHeadAttention.{name}.bias")
    if keep is None:
        module.eval()
    else:
        if not hasattr(module, "dropout"):
            raise ContractError("MultiHeadAttention should have an attribute dropout")
        module.dropout = FixedDropout(keep, p, impl)
        module.train()
    q, k, v = (impl.tensor(a).requires_grad_(True) for a in (query, key, value))
    result = module(q, k, v, mask=None if mask is None else impl.tensor(mask))
    output, attn_probs = _pair(result, "MultiHeadAttention.forward")
    (output * impl.tensor(grad_output)).sum().backward()
    outputs = {"output": output, "attn_probs": attn_probs, "grad_query": _grad(q), "grad_key": _grad(k), "grad_value": _grad(v)}
    for name in WEIGHTS:
        layer = getattr(module, name)
        outputs[f"grad_{name}.weight"] = _grad(layer.weight)
        outputs[f"grad_{name}.bias"] = _grad(layer.bias)
    return outputs


@probe(raised=EXACT)
def multi_head_attention_indivisible(impl, d_model, n_heads):
    """Whether the constructor refuses a d_model that n_heads does not divide."""
    try:
        impl.MultiHeadAttention(d_model, n_heads)
    except ContractError:
        raise
    except Exception:
        return {"raised": np.bool_(True)}
    return {"raised": np.bool_(False)}


# ------------------------------------------------------------------ masks


@probe(mask=EXACT)
def padding_mask(impl, token_ids, pad_id):
    mask = impl.make_padding_mask(impl.tensor(token_ids), pad_id=pad_id)
    return {"mask": mask != 0}


@probe(mask=EXACT)
def causal_mask(impl, size):
    mask = impl.make_causal_mask(size)
    return {"mask": mask != 0}


# ------------------------------------------------------------------ plots


@probe(heads=EXACT, data=FLOAT32, x_labels=EXACT, y_labels=EXACT)
def display_attention(impl, sentence, translation, attention, n_heads, n_rows, n_cols, requires_grad=False):
    """The figure's heatmaps; ``requires_grad`` passes weights that carry gradients, as a layer returns them."""
    from matplotlib.figure import Figure

    weights = impl.tensor(attention).requires_grad_(requires_grad)
    figure = impl.display_attention(list(sentence), list(translation), weights, n_heads=n_heads, n_rows=n_rows, n_cols=n_cols)
    if not isinstance(figure, Figure):
        raise ContractError(f"display_attention should return a matplotlib Figure, got {type(figure).__name__}")
    heatmaps = [heatmap for heatmap in map(_heatmap, figure.axes) if heatmap is not None]
    _close(figure)
    shape = (len(translation), len(sentence))
    if not heatmaps or any(data.shape != shape for data, _, _ in heatmaps):
        return {"heads": np.int64(len(heatmaps))}
    return {
        "heads": np.int64(len(heatmaps)),
        "data": np.stack([data for data, _, _ in heatmaps]),
        "x_labels": np.array([x for _, x, _ in heatmaps], dtype=str),
        "y_labels": np.array([y for _, _, y in heatmaps], dtype=str),
    }


def _close(figure):
    import matplotlib.pyplot as plt

    plt.close(figure)


def _heatmap(ax):
    """(data, label of each column, label of each row) of the heatmap an axes draws, or None."""
    from matplotlib.collections import QuadMesh

    if getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>":
        return None  # a colorbar's axes draws its scale, not a head
    if ax.images:
        image = ax.images[0]
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
        coordinates = meshes[0].get_coordinates()  # (rows + 1, columns + 1, 2)
        column_edges = coordinates[0, :, 0]
        row_edges = coordinates[:, 0, 1]
        data = np.asarray(meshes[0].get_array(), dtype=np.float64).reshape(len(row_edges) - 1, len(column_edges) - 1)
    x_labels = _labels_by_cell(ax.get_xticks(), ax.get_xticklabels(), column_edges)
    y_labels = _labels_by_cell(ax.get_yticks(), ax.get_yticklabels(), row_edges)
    return data, x_labels, y_labels


def _labels_by_cell(ticks, labels, edges) -> list[str]:
    """The tick label at the centre of each cell ('' where no tick sits)."""
    low, high = np.minimum(edges[:-1], edges[1:]), np.maximum(edges[:-1], edges[1:])
    by_cell = [""] * (len(edges) - 1)
    for tick, label in zip(ticks, labels):
        centre = (low + high) / 2
        cell = int(np.argmin(np.abs(centre - tick)))
        if abs(centre[cell] - tick) <= 0.25 * (high[cell] - low[cell]):
            by_cell[cell] = label.get_text()
    return by_cell
