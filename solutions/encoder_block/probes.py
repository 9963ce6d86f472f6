"""Probes of the `encoder_block` assignment: each calls one graded name the way the contract allows.

Modules are compared by loading the same weights into the student's module and the
reference's through the contract's attribute names (weight and bias of a LayerNorm;
w_1 and w_2 of the feed-forward network; self_attn, feed_forward and sublayer[0], [1]
of the layer), never by hoping that two constructors draw the same random numbers.
Values are compared in eval mode; where a dropout applies is checked in train mode
with a fixed, known dropout pattern put in place of the module's ``dropout``.
"""

from __future__ import annotations

import numpy as np

# Relative imports, so that this file works unchanged in the kit (autograder.course.encoder_block)
# and in the students' self-check bundle. PyTorch is imported inside the probes that use it:
# the grader reads the probes' tolerances without it.
from ...public.probing import EXACT, ContractError, Tolerance, probe
from ...public.torch_probes import (
    built_dropouts,
    dropout_key,
    fixed_dropout,
    grad,
    load,
    module,
    registered,
    unregistered,
)

# float32 keeps about 7 significant digits (eps = 1.2e-7). A correct implementation may
# sum in another order than the reference (a variance as mean(x^2) - mean(x)^2, einsum
# or matmul, another device): over the sums of at most 64 terms used here that moves a
# value of order 1 by a few hundred ulp at most, about 1e-5. The catalogued mistakes
# move values by 1e-2 or more (the unbiased variance of 64 features, the smallest of
# them, scales the output by sqrt(64/63) = 1.008).
FLOAT32 = Tolerance(rtol=1e-4, atol=1e-5, why="float32 results summed in another order")
# Gradients go through one more matrix product and the norm's 1/std: same bound, with
# room for the extra rounding of the backward pass.
GRADIENT = Tolerance(rtol=1e-4, atol=2e-5, why="float32 gradients summed in another order")
# A whole layer chains attention (a softmax), two layer norms and the feed-forward
# network: each step's rounding, divided by a token's std (about 1 here), reaches the
# output. The five correct implementations of tests/data/heldout/encoder_block differ from
# the reference by at most 1e-6 on the hidden inputs (CPU); atol leaves room for other
# CPUs and a GPU, and stays far below the 1e-2 that a mistake moves a value.
LAYER = Tolerance(rtol=1e-4, atol=3e-5, why="float32 through attention, two norms and the feed-forward network")
LAYER_GRADIENT = Tolerance(rtol=1e-4, atol=5e-5, why="float32 gradients back through a whole layer")
# A norm's output also depends on its eps where a token's features barely vary: a norm
# built with eps 1e-6 (TensorFlow's default, and the annotated transformer's) rather than
# the contract's 1e-5 scales x_hat by 1 + (1e-5 - 1e-6) / (2 var). The SublayerConnection
# and EncoderLayer checks feed residual streams of std 2 (every token normalised there has
# a variance of 0.28 or more), which keeps that effect 10 times under the tolerances above:
# eps is judged by LayerNorm's own checks, which pass it explicitly, and nowhere else.


def parameter(owner, path: str, name: str):
    """The tensor at ``path`` ("sublayer.0.norm.weight") of the student's module, or ContractError."""
    import torch

    node, shown = owner, name
    for part in path.split("."):
        shown += f"[{part}]" if part.isdigit() else f".{part}"
        try:
            node = node[int(part)] if part.isdigit() else getattr(node, part)
        except Exception:
            raise ContractError(
                f"{name} should have an attribute {shown[len(name) + 1 :]} (see the Attributes of its docstring)"
            ) from None
    if not isinstance(node, torch.Tensor):
        raise ContractError(f"{shown} should be a tensor (a parameter), got {type(node).__name__}")
    return node


def load_weights(layer, weights: dict, impl, name: str) -> None:
    """Copy every array of ``weights`` into the parameter of ``layer`` its key names."""
    for path, array in weights.items():
        shown = name + "".join(f"[{part}]" if part.isdigit() else f".{part}" for part in path.split("."))
        load(parameter(layer, path, name), array, impl, shown)


def set_mode(layer, keep, p: float, impl, where: str, known=None) -> None:
    """Eval mode; or, when ``keep`` is given, train mode with layer.dropout replaced by a known pattern
    (``known``: the tensors its refusal may name, fixed_dropout's)."""
    import torch

    if keep is None:
        layer.eval()
    else:
        # Put in place even where the module has no dropout attribute of its own: code that
        # never calls self.dropout computes without one, and the feedback can say so.
        layer.dropout = fixed_dropout(keep, p, impl, where, known)
        layer.train()
    # A dropout drawn at random where the contract has none draws the same numbers in
    # every run, so that the feedback can recognise the known mistake that makes it.
    torch.manual_seed(0)


# ------------------------------------------------------------------ layer norm


@probe(out=FLOAT32, grad_x=GRADIENT, grad_weight=GRADIENT, grad_bias=GRADIENT)
def layer_norm(impl, d_model, eps, weight, bias, x, grad_out):
    """LayerNorm(d_model, eps=eps) with the given weight and bias, its output and gradients."""
    layer = module(impl, "LayerNorm", d_model, eps=eps)
    load_weights(layer, {"weight": weight, "bias": bias}, impl, "LayerNorm")
    x = impl.tensor(x).requires_grad_(True)
    out = layer(x)
    (out * impl.tensor(grad_out)).sum().backward()
    return {
        "out": out,
        "grad_x": grad(x),
        "grad_weight": grad(layer.weight),
        "grad_bias": grad(layer.bias),
    }


@probe(eps=EXACT)
def layer_norm_eps(impl, d_model, eps):
    """The eps a LayerNorm built with ``eps`` keeps as self.eps (nan where it keeps none): the number given."""
    value = getattr(module(impl, "LayerNorm", d_model, eps=eps), "eps", None)
    return {"eps": np.float64(value) if isinstance(value, (int, float)) else np.float64(np.nan)}


@probe(eps=EXACT)
def layer_norm_default_eps(impl, d_model):
    """The eps a LayerNorm built without one keeps as self.eps (nan where it keeps none): its default, which
    every LayerNorm(d_model) of SublayerConnection uses."""
    value = getattr(module(impl, "LayerNorm", d_model), "eps", None)
    return {"eps": np.float64(value) if isinstance(value, (int, float)) else np.float64(np.nan)}


@probe(weight=EXACT, bias=EXACT)
def layer_norm_start(impl, d_model):
    """A new LayerNorm's weight and bias, both registered parameters: ones and zeros, exact in every float type."""
    layer = module(impl, "LayerNorm", d_model)
    problem = unregistered(layer, "LayerNorm")
    if problem:
        raise ContractError(problem)
    registered_parameters = dict(layer.named_parameters())
    for name in ("weight", "bias"):
        if name in dict(layer.named_buffers()) or (hasattr(layer, name) and name not in registered_parameters):
            raise ContractError(
                f"LayerNorm.{name} is not a parameter, so the optimizer never trains it: "
                f"self.{name} = nn.Parameter(...)"
            )
    return {"weight": parameter(layer, "weight", "LayerNorm"), "bias": parameter(layer, "bias", "LayerNorm")}


@probe(registered=EXACT)
def registration(impl, name, args):
    """Whether the module ``name`` built with ``args`` registers its tensors and submodules."""
    return registered(impl, name, args)


# ------------------------------------------------------------------ the feed-forward network

FEED_FORWARD = ("w_1", "w_2")


# The probability each dropout of a module was built with: the number given, stored as given.
DROPOUT_P = dropout_key("dropout")
# An EncoderLayer passes its dropout on to the MultiHeadAttention it builds (given code, so its dropout is
# read as built). Its feed-forward network and sublayers are exercises with probability checks of their own,
# and the reference stands in for them where they fail (error carried forward), which keeps no attributes.
LAYER_DROPOUTS = ("self_attn.dropout",)


@probe(**{dropout_key(path): EXACT for path in ("dropout", *LAYER_DROPOUTS)})
def dropout_built(impl, name, args, p, paths=("dropout",)):
    """The probability of each dropout at ``paths`` of the module ``name`` built with ``args`` and dropout=p.
    Nothing runs forward, so a dropout in the wrong place (its own checks say so) does not fail this one."""
    return built_dropouts(impl, name, args, p, list(paths))


@probe(
    out=FLOAT32,
    grad_x=GRADIENT,
    **{f"grad_{w}.{part}": GRADIENT for w in FEED_FORWARD for part in ("weight", "bias")},
)
def feed_forward(impl, d_model, d_ff, weights, x, grad_out, p=0.0, keep=None):
    """PositionwiseFeedForward with the given weights, built with dropout p, in eval mode;
    in train mode when ``keep`` (seq, d_ff) is given, with that pattern as its dropout."""
    layer = module(impl, "PositionwiseFeedForward", d_model, d_ff, dropout=p)
    load_weights(layer, weights, impl, "PositionwiseFeedForward")
    x = impl.tensor(x).requires_grad_(True)
    set_mode(layer, keep, p, impl, "the hidden layer (batch, seq, d_ff)", {"the network's input x": x})
    out = layer(x)
    (out * impl.tensor(grad_out)).sum().backward()
    outputs = {"out": out, "grad_x": grad(x)}
    for path in weights:
        outputs[f"grad_{path}"] = grad(parameter(layer, path, "PositionwiseFeedForward"))
    return outputs


# ------------------------------------------------------------------ add & norm


@probe(out=FLOAT32, grad_x=GRADIENT)
def sublayer_connection(impl, d_model, weights, sublayer, x, grad_out, p=0.0, keep=None):
    """SublayerConnection around a linear sublayer (sublayer: its weight and bias), norm weights given;
    eval mode, or train mode with the pattern ``keep`` (seq, d_model) as its dropout."""
    import torch

    layer = module(impl, "SublayerConnection", d_model, dropout=p)
    load_weights(layer, weights, impl, "SublayerConnection")
    inner = torch.nn.Linear(d_model, d_model).to(impl.device)
    load(inner.weight, sublayer["weight"], impl, "the sublayer's weight")
    load(inner.bias, sublayer["bias"], impl, "the sublayer's bias")
    set_mode(layer, keep, p, impl, "the sublayer's output (batch, seq, d_model)")
    x = impl.tensor(x).requires_grad_(True)
    out = layer(x, inner)
    (out * impl.tensor(grad_out)).sum().backward()
    return {"out": out, "grad_x": grad(x)}


# ------------------------------------------------------------------ the layer

ENCODER_LINEARS = (
    "self_attn.Wq",
    "self_attn.Wk",
    "self_attn.Wv",
    "self_attn.Wo",
    "feed_forward.w_1",
    "feed_forward.w_2",
)
ENCODER_NORMS = ("sublayer.0.norm", "sublayer.1.norm")


@probe(out=LAYER, grad_x=LAYER_GRADIENT)
def encoder_layer(impl, d_model, n_heads, d_ff, weights, x, grad_out, mask=None, p=0.1):
    """EncoderLayer built with dropout p and the given weights, in eval mode: its output and the input's gradient."""
    import torch

    layer = module(impl, "EncoderLayer", d_model, n_heads, d_ff, dropout=p)
    load_weights(layer, weights, impl, "EncoderLayer")
    set_mode(layer, None, p, impl, "")
    x = impl.tensor(x).requires_grad_(True)
    out = layer(x, None if mask is None else impl.tensor(mask))
    if not isinstance(out, torch.Tensor):
        raise ContractError(
            f"EncoderLayer.forward should return one tensor (batch, seq, d_model), got {type(out).__name__}"
        )
    (out * impl.tensor(grad_out)).sum().backward()
    return {"out": out, "grad_x": grad(x)}
