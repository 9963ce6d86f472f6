"""Probes of the `mha` assignment: each calls one graded name the way the contract allows.

Modules are compared by loading the same weights into the student's module and the
reference's through the contract's attribute names (lut, Wq, Wk, Wv, Wo), never by
hoping that two constructors draw the same random numbers. Values are compared in
eval mode; where dropout applies is checked with a fixed, known dropout mask.
"""

from __future__ import annotations

import numpy as np

# Relative imports, so that this file works unchanged in the kit (autograder.course.mha)
# and in the students' self-check bundle (selfcheck_mha.course.mha). PyTorch is imported
# inside the probes that use it: the grader reads the probes' tolerances without it.
from ...public.probing import EXACT, ContractError, Tolerance, probe
from ...public.torch_probes import (
    built_dropouts,
    fixed_dropout,
    from_pyplot,
    grad,
    heatmaps,
    linear,
    load,
    module,
    pair,
    pyplot_figures_closed,
    registered,
    strings,
)

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


# ------------------------------------------------------------------ words to ids


@probe(tokens=EXACT)
def tokenize(impl, text):
    return {"tokens": strings(impl.tokenize(text), "tokenize")}


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


@probe(any_device=True, ids=EXACT)  # encode takes no tensor: it may make its ids on either device
def encode(impl, texts, stoi, max_length=None):
    import torch

    ids = impl.encode(list(texts), dict(stoi), max_length)
    if not isinstance(ids, torch.Tensor):
        raise ContractError(f"encode should return a tensor, got {type(ids).__name__}")
    return {"ids": ids}


# ------------------------------------------------------------------ ids to vectors


@probe(out=FLOAT32, grad_lut=GRADIENT)
def embeddings(impl, vocab_size, d_model, lut, x, grad_out):
    import torch

    layer = module(impl, "Embeddings", vocab_size, d_model)
    table = getattr(layer, "lut", None)
    if not isinstance(table, torch.nn.Embedding):
        raise ContractError("Embeddings should have an attribute lut that is an nn.Embedding")
    load(table.weight, lut, impl, "Embeddings.lut.weight")
    layer.eval()
    out = layer(impl.tensor(x))
    (out * impl.tensor(grad_out)).sum().backward()
    return {"out": out, "grad_lut": grad(table.weight)}


@probe(out=FLOAT32, table=POSITIONS, trainable=EXACT, buffer=EXACT)
def positional_encoding(impl, d_model, max_length, x):
    import torch

    layer = module(impl, "PositionalEncoding", d_model, dropout=0.0, max_length=max_length)
    layer.eval()
    out = layer(impl.tensor(x))
    outputs = {
        "out": out,
        "trainable": np.int64(sum(p.numel() for p in layer.parameters() if p.requires_grad)),
        "buffer": np.bool_("pe" in dict(layer.named_buffers())),
    }
    if isinstance(getattr(layer, "pe", None), torch.Tensor):  # missing: only the table's check fails
        outputs["table"] = layer.pe
    return outputs


@probe(input_kept=EXACT)
def positional_encoding_input_kept(impl, d_model, max_length, x):
    """Whether the tensor given to forward holds its values afterwards: the caller's embeddings."""
    layer = module(impl, "PositionalEncoding", d_model, dropout=0.0, max_length=max_length)
    layer.eval()
    given = impl.tensor(x)
    layer(given)
    return {"input_kept": np.bool_(np.array_equal(plain(given), np.asarray(x, dtype=np.float32)))}


@probe(table=LONG_POSITIONS)
def positional_encoding_default_table(impl, d_model):
    import torch

    layer = module(impl, "PositionalEncoding", d_model)
    table = getattr(layer, "pe", None)
    if not isinstance(table, torch.Tensor):
        raise ContractError(
            "PositionalEncoding has no tensor attribute pe: keep the table in self.pe, with register_buffer"
        )
    return {"table": table}


@probe(train=FLOAT32, eval=FLOAT32)
def positional_encoding_dropout(impl, d_model, max_length, x, p):
    """The same module in train mode (dropout p) and in eval mode: graders check train = 0 or eval / (1 - p)."""
    import torch

    torch.manual_seed(0)
    layer = module(impl, "PositionalEncoding", d_model, dropout=p, max_length=max_length)
    train = layer.train()(impl.tensor(x))
    return {"train": train, "eval": layer.eval()(impl.tensor(x))}


# In train mode each output of PositionalEncoding is 0 or its eval-mode value / (1 - p):
# one float32 multiply (or divide) apart, a few ulp.
DROPPED_OR_SCALED = dict(rtol=1e-5, atol=1e-6)


# The probability that train mode's kept outputs imply, 1 - eval / train: a float32 division
# of values of order 1, a few ulp; a wrong probability (0.1 for 0.5) moves it by 0.1 or more.
IMPLIED_PROBABILITY = Tolerance(rtol=0.0, atol=1e-4, why="1 - eval / train of float32 outputs")


def implied_probability(train: np.ndarray, summed: np.ndarray, p: float) -> np.float64:
    """The dropout probability train mode's kept outputs imply (each is eval / (1 - p)), where they all
    imply one; p itself where they do not (what is wrong then is where the dropout acts, said elsewhere)."""
    kept = (train != 0) & (np.abs(summed) > 1e-3)
    if not kept.any():
        return np.float64(p)
    ratios = train[kept].astype(np.float64) / summed[kept].astype(np.float64)
    scale = float(np.median(ratios))
    if not np.allclose(ratios, scale, rtol=1e-4, atol=0.0):
        return np.float64(p)
    return np.float64(1 - 1 / scale)


@probe(probability=IMPLIED_PROBABILITY, dropped_or_scaled=EXACT, some_dropped=EXACT)
def positional_encoding_train_mode(impl, d_model, max_length, x, p):
    """Whether train mode (dropout p) gives 0 or eval / (1 - p) for every output, and 0 for some; and the
    probability its kept outputs imply (p for the right dropout).

    Judged against the module's own eval-mode output, so any random draw passes, on any device.
    """
    import torch

    layer = module(impl, "PositionalEncoding", d_model, dropout=p, max_length=max_length)
    train = layer.train()(impl.tensor(x))
    summed = layer.eval()(impl.tensor(x))
    if tuple(train.shape) != tuple(summed.shape):
        raise ContractError(
            f"PositionalEncoding gives shape {tuple(train.shape)} in train mode and {tuple(summed.shape)} in eval mode"
        )
    zero = train == 0
    scaled = torch.isclose(train, summed / (1 - p), **DROPPED_OR_SCALED)
    return {
        "probability": implied_probability(plain(train), plain(summed), p),
        "dropped_or_scaled": np.bool_(bool((zero | scaled).all())),
        "some_dropped": np.bool_(bool(zero.any())),
    }


# ------------------------------------------------------------------ heads


@probe(out=EXACT)
def split_heads(impl, x, n_heads):
    return {"out": impl.split_heads(impl.tensor(x), n_heads)}


@probe(out=EXACT)
def combine_heads(impl, x):
    return {"out": impl.combine_heads(impl.tensor(x))}


# ------------------------------------------------------------------ attention


# Each row of the weights sums to 1 (a softmax over the keys): a sum that is not 1 says what is
# wrong (a softmax over another axis, weights masked after the softmax) where values alone do not.
# A sum of at most 64 float32 weights, each off by a few ulp: FLOAT32's bound.
ROW_SUMS = "row sums of attn_probs"
ATTENTION_OUTPUTS = {
    ROW_SUMS: FLOAT32,
    "output": FLOAT32,
    "attn_probs": FLOAT32,
    "grad_query": GRADIENT,
    "grad_key": GRADIENT,
    "grad_value": GRADIENT,
}


@probe(**ATTENTION_OUTPUTS)
def attention(impl, query, key, value, grad_output, mask=None, keep=None, p=0.5):
    """scaled_dot_product_attention, with a fixed dropout (keep: (q_len, k_len)) when ``keep`` is given."""
    q, k, v = (impl.tensor(a).requires_grad_(True) for a in (query, key, value))
    dropout = None if keep is None else fixed_dropout(keep, p, impl)
    result = impl.scaled_dot_product_attention(
        q, k, v, mask=None if mask is None else impl.tensor(mask), dropout=dropout
    )
    output, attn_probs = pair(result, "scaled_dot_product_attention")
    (output * impl.tensor(grad_output)).sum().backward()
    return {
        **row_sums(attn_probs),
        "output": output,
        "attn_probs": attn_probs,
        "grad_query": grad(q),
        "grad_key": grad(k),
        "grad_value": grad(v),
    }


def plain(tensor) -> np.ndarray:
    return tensor.detach().cpu().float().numpy()


def row_sums(attn_probs) -> dict:
    """{ROW_SUMS: each row's sum} where the weights are a tensor (else their own check says what they are)."""
    import torch

    return {ROW_SUMS: attn_probs.detach().sum(-1)} if isinstance(attn_probs, torch.Tensor) else {}


WEIGHTS = ("Wq", "Wk", "Wv", "Wo")


# The probability a module's self.dropout was built with: the number given, stored as given.
DROPOUT_P = "self.dropout.p"


@probe(**{DROPOUT_P: EXACT})
def dropout_built(impl, name, args, p, paths=("dropout",)):
    """The probability of each dropout at ``paths`` of the module ``name`` built with ``args`` and dropout=p.
    Nothing runs forward, so a dropout in the wrong place (its own checks say so) does not fail this one."""
    return built_dropouts(impl, name, args, p, list(paths))


@probe(
    **ATTENTION_OUTPUTS,
    **{f"grad_{w}.{part}": GRADIENT for w in WEIGHTS for part in ("weight", "bias")},
)
def multi_head_attention(impl, d_model, n_heads, weights, query, key, value, grad_output, mask=None, keep=None, p=0.5):
    """MultiHeadAttention with the given weights, in eval mode; or, when ``keep`` is given, in train mode.

    In train mode the layer is built with dropout p, so that every dropout it holds is
    active, and its ``dropout`` is replaced by a fixed one (keep: (q_len, k_len)): a
    second dropout elsewhere (on the output, say) changes the result.
    """
    import torch

    layer = module(impl, "MultiHeadAttention", d_model, n_heads, dropout=0.0 if keep is None else p)
    for name in WEIGHTS:
        projection = linear(layer, name, "MultiHeadAttention")
        load(projection.weight, weights[f"{name}.weight"], impl, f"MultiHeadAttention.{name}.weight")
        load(projection.bias, weights[f"{name}.bias"], impl, f"MultiHeadAttention.{name}.bias")
    if keep is None:
        layer.eval()
    else:
        if not hasattr(layer, "dropout"):
            raise ContractError("MultiHeadAttention should have an attribute dropout")
        layer.dropout = fixed_dropout(keep, p, impl)
        layer.train()
        torch.manual_seed(0)
    q, k, v = (impl.tensor(a).requires_grad_(True) for a in (query, key, value))
    result = layer(q, k, v, mask=None if mask is None else impl.tensor(mask))
    output, attn_probs = pair(result, "MultiHeadAttention.forward")
    (output * impl.tensor(grad_output)).sum().backward()
    outputs = {
        **row_sums(attn_probs),
        "output": output,
        "attn_probs": attn_probs,
        "grad_query": grad(q),
        "grad_key": grad(k),
        "grad_value": grad(v),
    }
    for name in WEIGHTS:
        projection = getattr(layer, name)
        outputs[f"grad_{name}.weight"] = grad(projection.weight)
        outputs[f"grad_{name}.bias"] = grad(projection.bias)
    return outputs


@probe(registered=EXACT)
def registration(impl, name, args):
    """Whether the module ``name`` built with ``args`` registers its tensors and submodules."""
    return registered(impl, name, args)


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


# A mask's values are compared as "allowed where nonzero" (mask != 0), and its dtype on
# its own: a float mask with the right values loses the dtype check only.
MASK_OUTPUTS = {"mask": EXACT, "dtype": EXACT}


def mask_outputs(mask) -> dict:
    """Where the mask allows attention, and its dtype ("bool", "float32", ...; the type's name if not a tensor)."""
    import torch

    dtype = str(mask.dtype).removeprefix("torch.") if isinstance(mask, torch.Tensor) else type(mask).__name__
    return {"mask": mask != 0, "dtype": np.str_(dtype)}


@probe(**MASK_OUTPUTS)
def padding_mask(impl, token_ids, pad_id):
    return mask_outputs(impl.make_padding_mask(impl.tensor(token_ids), pad_id=pad_id))


@probe(any_device=True, **MASK_OUTPUTS)  # make_causal_mask takes no tensor: either device is right
def causal_mask(impl, size):
    return mask_outputs(impl.make_causal_mask(size))


# ------------------------------------------------------------------ plots


# The colour limits the contract asks for are 0 and 1, exact in every float type.
@probe(heads=EXACT, data=FLOAT32, x_labels=EXACT, y_labels=EXACT, limits=EXACT, from_pyplot=EXACT)
def display_attention(impl, sentence, translation, attention, n_heads, n_rows, n_cols, requires_grad=False):
    """The figure's heatmaps; ``requires_grad`` passes weights that carry gradients, as a layer returns them.

    limits: (heads, 2), each heatmap's (vmin, vmax); from_pyplot: whether pyplot made the
    figure. Any pyplot figure the call opens is closed, so that none is left to show.
    """
    from matplotlib.figure import Figure

    weights = impl.tensor(attention).requires_grad_(requires_grad)
    with pyplot_figures_closed():
        figure = impl.display_attention(
            list(sentence), list(translation), weights, n_heads=n_heads, n_rows=n_rows, n_cols=n_cols
        )
        if not isinstance(figure, Figure):
            raise ContractError(f"display_attention should return a matplotlib Figure, got {type(figure).__name__}")
        drawn = heatmaps(figure)
        pyplot_made = np.bool_(from_pyplot(figure))
    shape = (len(translation), len(sentence))
    if not drawn or any(data.shape != shape for data, _, _, _ in drawn):
        return {"heads": np.int64(len(drawn)), "from_pyplot": pyplot_made}
    return {
        "heads": np.int64(len(drawn)),
        "data": np.stack([data for data, _, _, _ in drawn]),
        "x_labels": np.array([x for _, x, _, _ in drawn], dtype=str),
        "y_labels": np.array([y for _, _, y, _ in drawn], dtype=str),
        "limits": np.array([limits for _, _, _, limits in drawn], dtype=np.float64),
        "from_pyplot": pyplot_made,
    }
