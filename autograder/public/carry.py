"""Error carried forward: stand-ins for failing exercises that answer as the reference does.

When an exercise fails its own checks, each exercise that calls it is checked a second
time with the failing one standing in as the reference, and earns the better of the two
runs. A stand-in (a function, or an ``nn.Module`` class) holds no reference code: it turns
each call into plain data (the arguments the caller passes, and for a module its state),
asks the trusted side for the reference's answer, and turns that answer back into
tensors. The route decides who answers (``ask``):

* the grader, over the wire, from the student's sandboxed process (grade/carry.py runs
  the reference on the data sent, for that caller's checks only);
* nbgrader's kernel, the same server called in the same process;
* the student's notebook, where no grader runs: the answers recorded when the release
  was built, from the reference's own calls on each visible check's inputs
  (``Recorded``), given where the caller passes the same data within a tolerance.

Messages (the student's side asks, the trusted side answers ``carried``):

    {"op": "carry", "kind": "call",    "name": n, "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "init",    "name": n, "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "forward", "name": n, "instance": i, "state": tree, "training": b,
     "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "vjp",     "call": c, "grads": tree}
    {"op": "carried", "result": tree, "call": c or None, "error": text or None}

While it answers, the trusted side may run a function the caller passed (a sublayer, a
dropout module): it asks the student's side, which answers ``called``:

    {"op": "callback", "kind": "call", "handle": h, "args": tree, "kwargs": tree}
    {"op": "callback", "kind": "vjp",  "call": c, "grads": tree}
    {"op": "called", "result": tree, "call": c or None, "error": text or None}

A tree is JSON: numbers, strings, None, and tagged lists, tuples, dicts, arrays, tensors
(with whether they require a gradient), dtypes and callables (a handle), the arrays sent
beside it. A gradient through a stand-in is the trusted side's too (``vjp``), where the
route carries gradients; the notebook's route carries values only.

A stand-in answers only while the checks it was made for run: once they end it refuses,
so a caller that keeps it (in a global, a closure) gains nothing from it later.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from contextlib import contextmanager

import numpy as np

from .probing import ContractError, Tolerance, describe_exception
from .wire import PLAIN_KINDS

Message = tuple[dict, dict]  # (meta, arrays)
Ask = Callable[[dict, dict], Message]

# The data a caller passes to a stand-in is its own arithmetic (a projection, a residual
# sum) in float32, possibly in another order than the reference's: equal to the
# reference caller's up to a few hundred ulp. Where the answers were recorded (the
# notebook), a call is the recorded one when its data are this close.
SAME_CALL = Tolerance(rtol=1e-4, atol=1e-5, why="the caller's own float32 arithmetic before the call, in another order")

MAX_DEPTH = 16  # nesting of a tree
MAX_LEAVES = 4096  # values in a tree


class CarryError(ContractError):
    """A stand-in could not answer (refused, or the reference raised): the call fails with this message."""


def carried_note(name: str, callees, verb: str = "graded") -> str:
    """What the feedback says of an exercise graded with the reference's callees."""
    callees = list(callees)
    listed = callees[0] if len(callees) == 1 else ", ".join(callees[:-1]) + f" and {callees[-1]}"
    which = "yours fails its own checks" if len(callees) == 1 else "yours fail their own checks"
    return f"{name} {verb} with the reference's {listed}, since {which}"


# ------------------------------------------------------------------ trees of plain data


def _torch():
    return sys.modules.get("torch")


class Encoder:
    """Turns arguments and results into a tree and its arrays; keeps the tensors and callables met, in order."""

    def __init__(self, arrays: dict | None = None, callables: list | None = None):
        self.arrays = arrays if arrays is not None else {}
        self.callables = callables  # None: a callable cannot be sent
        self.tensors: list = []  # every tensor leaf, in the tree's order
        self._leaves = 0

    def tree(self, value, depth: int = 0):
        self._leaves += 1
        if depth > MAX_DEPTH or self._leaves > MAX_LEAVES:
            raise CarryError("the arguments are nested too deeply, or hold too many values, to be carried")
        torch = _torch()
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, np.generic) and value.dtype.kind in PLAIN_KINDS:
            return value.item()
        if torch is not None and isinstance(value, torch.Tensor):
            self.tensors.append(value)
            plain = value.detach().resolve_conj().resolve_neg().as_subclass(torch.Tensor).to("cpu")
            if plain.dtype == torch.bfloat16:
                plain = plain.float()
            return {"$": "tensor", "a": self._array(plain.numpy()), "grad": bool(value.requires_grad)}
        if isinstance(value, np.ndarray) and value.dtype.kind in PLAIN_KINDS:
            return {"$": "ndarray", "a": self._array(value)}
        if torch is not None and isinstance(value, torch.dtype):
            return {"$": "dtype", "name": str(value).removeprefix("torch.")}
        if isinstance(value, (list, tuple)):
            return {"$": type(value).__name__, "items": [self.tree(item, depth + 1) for item in value]}
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return {"$": "dict", "items": [[key, self.tree(item, depth + 1)] for key, item in value.items()]}
        if callable(value) and self.callables is not None:
            self.callables.append(value)
            return {"$": "callable", "h": len(self.callables) - 1}
        raise CarryError(f"a {type(value).__name__} cannot be carried to the reference")

    def _array(self, array: np.ndarray) -> str:
        key = f"t{len(self.arrays)}"
        self.arrays[key] = np.array(array, copy=True, order="C")
        return key


class Decoder:
    """Turns a tree and its arrays back into values: arrays, tensors (made by ``tensor``) and callables."""

    def __init__(self, arrays: dict, tensor: Callable | None = None, callable_of: Callable | None = None):
        self.arrays = arrays
        self.tensor = tensor  # (array, wants_grad) -> tensor
        self.callable_of = callable_of  # handle -> a callable
        self.tensors: list = []  # every tensor made, in the tree's order
        self._leaves = 0

    def value(self, tree, depth: int = 0):
        self._leaves += 1
        if depth > MAX_DEPTH or self._leaves > MAX_LEAVES:
            raise CarryError("a carried tree is nested too deeply or holds too many values")
        if tree is None or isinstance(tree, (bool, int, float, str)):
            return tree
        if not isinstance(tree, dict) or not isinstance(tree.get("$"), str):
            raise CarryError("a carried tree is malformed")
        tag = tree["$"]
        if tag in ("tensor", "ndarray"):
            array = self.arrays.get(tree.get("a"))
            if not isinstance(array, np.ndarray):
                raise CarryError("a carried tree names an array that was not sent")
            if tag == "ndarray" or self.tensor is None:
                return np.array(array, copy=True)
            made = self.tensor(array, bool(tree.get("grad")))
            self.tensors.append(made)
            return made
        if tag == "dtype":
            torch = _torch()
            dtype = getattr(torch, str(tree.get("name")), None) if torch is not None else None
            if torch is None or not isinstance(dtype, torch.dtype):
                raise CarryError("a carried tree names an unknown dtype")
            return dtype
        if tag in ("list", "tuple"):
            items = [self.value(item, depth + 1) for item in _items(tree)]
            return items if tag == "list" else tuple(items)
        if tag == "dict":
            pairs = _items(tree)
            if not all(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) for pair in pairs):
                raise CarryError("a carried tree is malformed")
            return {key: self.value(item, depth + 1) for key, item in pairs}
        if tag == "callable" and self.callable_of is not None and isinstance(tree.get("h"), int):
            return self.callable_of(tree["h"])
        raise CarryError("a carried tree is malformed")


def _items(tree: dict) -> list:
    items = tree.get("items")
    if not isinstance(items, list):
        raise CarryError("a carried tree is malformed")
    return items


def grad_flags(trees) -> list[bool]:
    """Whether each tensor leaf of the trees (in order) requires a gradient."""
    flags: list[bool] = []

    def walk(tree) -> None:
        if isinstance(tree, dict) and tree.get("$") == "tensor":
            flags.append(bool(tree.get("grad")))
        elif isinstance(tree, dict) and tree.get("$") in ("list", "tuple"):
            for item in tree.get("items", []):
                walk(item)
        elif isinstance(tree, dict) and tree.get("$") == "dict":
            for pair in tree.get("items", []):
                walk(pair[1])

    for tree in trees:
        walk(tree)
    return flags


def normalized(function, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments bound to the function's parameters, in order, defaults filled in: a call by keyword
    and the same call by position are then one call. As given where they cannot be bound."""
    try:
        signature = inspect.signature(function)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
            return args, kwargs
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
    except (TypeError, ValueError):
        return args, kwargs
    return tuple(bound.arguments.values()), {}


def method_signature_of(cls, method: str):
    """A class's method without its self, for ``normalized`` (None where the class has no such method)."""
    function = getattr(cls, method, None) if isinstance(cls, type) else None
    if function is None:
        return None
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())[1:]

    def bindable(*args, **kwargs):
        return None

    bindable.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return bindable


# ------------------------------------------------------------------ gradients through a carried call


@contextmanager
def grad_enabled():
    """Autograd on (a custom Function's forward turns it off), where PyTorch is in use."""
    torch = _torch()
    if torch is None:
        yield
        return
    with torch.enable_grad():
        yield


def differentiable(value) -> bool:
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex())


def attach(inputs: list, outputs: list, vjp: Callable[[list], list]) -> list:
    """The outputs, joined to the inputs (tensors that require a gradient) in autograd's graph:
    their gradient is what ``vjp`` (given the outputs' gradients, None where they have none) says."""
    function = _carried_function()
    ready = [output.detach() for output in outputs]
    return list(function.apply(vjp, ready, *inputs))


_FUNCTION = None


def _carried_function():
    global _FUNCTION
    if _FUNCTION is None:
        import torch

        class Carried(torch.autograd.Function):
            """Outputs computed elsewhere, with a gradient asked of the same place."""

            @staticmethod
            def forward(ctx, vjp, outputs, *inputs):
                ctx.vjp = vjp
                ctx.shapes = [(tuple(i.shape), i.dtype, i.device) for i in inputs]
                made = [output.clone() for output in outputs]
                ctx.mark_non_differentiable(*[m for m in made if not differentiable(m)])
                return tuple(made)

            @staticmethod
            def backward(ctx, *grads):
                given = ctx.vjp([g if g is not None else None for g in grads])
                result = []
                for grad, (shape, dtype, device) in zip(given, ctx.shapes):
                    if grad is None:
                        result.append(None)
                    else:
                        result.append(grad.to(device=device, dtype=dtype).reshape(shape))
                return (None, None, *result)

        _FUNCTION = Carried
    return _FUNCTION


# ------------------------------------------------------------------ conversations


def talk(send: Callable[[dict, dict], None], receive: Callable[[], Message], message: Message, asks: str, serve):
    """Send a message, then serve each request of op ``asks`` the other side makes meanwhile
    (``serve(meta, arrays) -> message``), until a message of another op comes: that one is the answer."""
    send(*message)
    while True:
        meta, arrays = receive()
        if meta.get("op") != asks:
            return meta, arrays
        send(*serve(meta, arrays))


def error_reply(op: str, error: str) -> Message:
    return {"op": op, "result": None, "call": None, "error": str(error)[:2000]}, {}


# ------------------------------------------------------------------ the stand-ins


class Substitutes:
    """Stand-ins for some graded names, asking ``ask`` for the reference's answers.

    kinds: name -> "function" or "module" (what the reference's name is); gradients:
    whether ``ask`` answers gradients (vjp); device: where answers go when no tensor
    came in.
    """

    def __init__(self, kinds: dict[str, str], ask: Ask, gradients: bool = True, device: str = "cpu"):
        self.kinds = dict(kinds)
        self.ask = ask
        self.gradients = gradients
        self.device = device
        self.open = False
        self._callables: list = []  # what callers passed, by handle
        self._graphs: dict[int, tuple[list, list]] = {}  # a callback's leaves and outputs, by call

    # ---------------------------------------------------------------- putting them in place

    @contextmanager
    def installed(self, namespaces: list[dict]):
        """The stand-ins in place of the names in every namespace given (the first one by name, the others
        where they hold the same object), for the duration of the block; refused afterwards."""
        main = namespaces[0]
        originals = {name: main.get(name) for name in self.kinds}
        stand_ins = {name: self._stand_in(name, originals[name]) for name in self.kinds}
        swapped: list[tuple[dict, str, object]] = []
        for namespace in namespaces:
            for key, value in list(namespace.items()):
                name = key if namespace is main and key in stand_ins else None
                if name is None:
                    name = next((n for n, o in originals.items() if o is not None and value is o), None)
                if name is not None:
                    swapped.append((namespace, key, value))
                    namespace[key] = stand_ins[name]
            if namespace is main:
                for name in stand_ins:
                    if name not in namespace:
                        swapped.append((namespace, name, _ABSENT))
                        namespace[name] = stand_ins[name]
        self.open = True
        try:
            yield stand_ins
        finally:
            self.open = False
            self._callables.clear()
            self._graphs.clear()
            for namespace, key, value in reversed(swapped):
                if value is _ABSENT:
                    namespace.pop(key, None)
                else:
                    namespace[key] = value

    def _stand_in(self, name: str, original):
        if self.kinds[name] == "module":
            return self._module_class(name, original)

        def stand_in(*args, **kwargs):
            return self.call(name, normalized(original, args, kwargs) if callable(original) else (args, kwargs))

        stand_in.__name__ = stand_in.__qualname__ = name
        stand_in.__doc__ = f"The reference's {name}, standing in for yours while its callers are checked."
        return stand_in

    def _module_class(self, name: str, original):
        import torch

        substitutes = self
        init_signature = method_signature_of(original, "__init__")
        forward_signature = method_signature_of(original, "forward")

        class StandIn(torch.nn.Module):
            def __init__(self, *args, **kwargs):
                super().__init__()
                given = normalized(init_signature, args, kwargs) if init_signature else (args, kwargs)
                result = substitutes.request("init", name, given)
                if not isinstance(result, dict) or not {"instance", "parameters", "buffers"} <= set(result):
                    raise CarryError(f"the reference's {name} answered its construction with something else")
                self._carried_instance = result["instance"]
                for path, value in result["parameters"].items():
                    _register(self, path, value, parameter=True)
                for path, value in result["buffers"].items():
                    _register(self, path, value, parameter=False)

            def forward(self, *args, **kwargs):
                given = normalized(forward_signature, args, kwargs) if forward_signature else (args, kwargs)
                state = dict(self.named_parameters())
                state.update(dict(self.named_buffers()))
                return substitutes.request(
                    "forward", name, given, instance=self._carried_instance, state=state, training=self.training
                )

        StandIn.__name__ = StandIn.__qualname__ = name
        StandIn.__doc__ = f"The reference's {name}, standing in for yours while its callers are checked."
        return StandIn

    # ---------------------------------------------------------------- one request

    def call(self, name: str, given: tuple[tuple, dict]):
        return self.request("call", name, given)

    def request(self, kind: str, name: str, given: tuple[tuple, dict], **extra):
        if not self.open:
            raise CarryError(
                f"the reference's {name} stands in only while the checks it was lent to run; it does not answer now"
            )
        args, kwargs = given
        arrays: dict = {}
        encoder = Encoder(arrays, self._callables)
        meta = {"op": "carry", "kind": kind, "name": name, "args": encoder.tree(tuple(args))}
        meta["kwargs"] = encoder.tree(dict(kwargs))
        if "state" in extra:
            meta.update(instance=extra["instance"], training=bool(extra["training"]))
            meta["state"] = encoder.tree(extra["state"])
        inputs = [t for t in encoder.tensors if t.requires_grad and differentiable(t)]
        device = next((t.device for t in encoder.tensors), None) or self.device
        reply, answer = self.ask(meta, arrays)
        if reply.get("op") != "carried":
            raise CarryError(f"the reference's {name} answered with something other than its result")
        if reply.get("unanswered"):
            raise CarryError(
                f"your code calls {name} with arguments the reference's code never passes it on this check's "
                f"inputs, so the reference's {name} cannot stand in for yours here: look at what your code passes "
                f"to {name}"
            )
        if reply.get("error"):
            raise CarryError(f"the reference's {name}, standing in for yours, raised {reply['error']}")
        decoder = Decoder(answer, self._tensor_maker(device))
        result = decoder.value(reply.get("result"))
        torch = _torch()
        if not (inputs and torch is not None and torch.is_grad_enabled()):
            return result
        if not any(differentiable(t) for t in decoder.tensors):
            return result
        call = reply.get("call")
        if self.gradients and call is not None:
            joined = attach(inputs, decoder.tensors, lambda grads: self._vjp(name, call, grads, inputs))
        else:  # values only: the answer joins the graph, and no gradient flows back through it
            joined = attach(inputs, decoder.tensors, lambda grads: [None] * len(inputs))
        return replace_tensors(reply.get("result"), result, iter(joined))

    def _vjp(self, name: str, call, grads: list, inputs: list) -> list:
        arrays: dict = {}
        tree = Encoder(arrays).tree([g for g in grads])
        reply, answer = self.ask({"op": "carry", "kind": "vjp", "call": call, "grads": tree}, arrays)
        if reply.get("op") != "carried" or reply.get("error"):
            raise CarryError(f"the reference's {name} could not give its gradient: {reply.get('error')}")
        devices = iter([t.device for t in inputs])
        got = Decoder(answer, lambda array, _: _as_tensor(array, next(devices))).value(reply.get("result"))
        if not isinstance(got, list) or len(got) != len(inputs):
            raise CarryError(f"the reference's {name} gave a gradient of another shape")
        return got

    @staticmethod
    def _tensor_maker(device):
        return lambda array, _grad: _as_tensor(array, device)

    # ---------------------------------------------------------------- what the trusted side asks of this side

    def on_callback(self, meta: dict, arrays: dict) -> Message:
        """Run what a caller passed (a sublayer, a dropout) as the reference's code calls it; or its gradient."""
        try:
            if meta.get("kind") == "vjp":
                return self._callback_vjp(meta, arrays)
            handle = meta.get("handle")
            if not isinstance(handle, int) or not 0 <= handle < len(self._callables):
                return error_reply("called", "no such function was passed")
            decoder = Decoder(arrays, _leaf_maker(self.device), lambda h: self._callables[h])
            args, kwargs = decoder.value(meta.get("args")), decoder.value(meta.get("kwargs"))
            with grad_enabled():
                result = self._callables[handle](*args, **kwargs)
            answer: dict = {}
            encoder = Encoder(answer, self._callables)
            tree = encoder.tree(result)
            leaves = [t for t in decoder.tensors if t.requires_grad]
            outputs = list(encoder.tensors)  # the gradients asked for come in this order, None where there is none
            call = None
            if leaves and any(t.requires_grad for t in outputs):
                call = len(self._graphs)
                self._graphs[call] = (leaves, outputs)
            return {"op": "called", "result": tree, "call": call, "error": None}, answer
        except Exception as error:  # the caller's own function raised: the reference's call fails with it
            return error_reply("called", describe_exception(error))

    def _callback_vjp(self, meta: dict, arrays: dict) -> Message:
        import torch

        call = meta.get("call")
        found = self._graphs.pop(call, None) if isinstance(call, int) else None
        if found is None:
            return error_reply("called", "no such call to give a gradient of")
        leaves, outputs = found
        grads = Decoder(arrays, _leaf_maker("cpu")).value(meta.get("grads"))
        if not isinstance(grads, list):
            return error_reply("called", "a gradient of another shape")
        pairs = [(o, g.to(o.device, o.dtype)) for o, g in zip(outputs, grads) if g is not None and o.requires_grad]
        for leaf in leaves:
            leaf.grad = None
        if pairs:
            # The gradient of sum(output * grad) is the vector-Jacobian product asked for: a scalar's
            # backward(), as the probes call it (backward with explicit gradients imports modules a
            # sandboxed process may not reach).
            with grad_enabled():  # asked from within a backward pass, where autograd records nothing
                sum(((o * g).sum() for o, g in pairs), torch.zeros((), dtype=pairs[0][0].dtype)).backward()
        answer: dict = {}
        tree = Encoder(answer).tree([leaf.grad for leaf in leaves])
        return {"op": "called", "result": tree, "call": None, "error": None}, answer


_ABSENT = object()


def _as_tensor(array, device):
    import torch

    return torch.from_numpy(np.array(array, copy=True)).to(device)


def _leaf_maker(device):
    def make(array, wants_grad: bool):
        made = _as_tensor(array, device)
        return made.requires_grad_(True) if wants_grad and differentiable(made) else made

    return make


def replace_tensors(tree, value, joined):
    """The decoded value with its tensors (in tree order) replaced by the joined ones."""
    if isinstance(tree, dict) and tree.get("$") == "tensor":
        return next(joined)
    if isinstance(tree, dict) and tree.get("$") in ("list", "tuple"):
        items = [replace_tensors(t, v, joined) for t, v in zip(tree["items"], value)]
        return items if tree["$"] == "list" else tuple(items)
    if isinstance(tree, dict) and tree.get("$") == "dict":
        return {key: replace_tensors(t, value[key], joined) for key, t in tree["items"]}
    return value


def _register(module, path: str, value, parameter: bool) -> None:
    """A parameter or a buffer at a dotted path, with plain modules between."""
    import torch

    *parents, leaf = path.split(".")
    node = module
    for part in parents:
        child = node._modules.get(part)
        if child is None:
            child = torch.nn.Module()
            node.add_module(part, child)
        node = child
    if not isinstance(value, torch.Tensor):
        raise CarryError(f"the reference's state at {path} is not a tensor")
    if parameter:
        node.register_parameter(leaf, torch.nn.Parameter(value.detach().clone()))
    else:
        node.register_buffer(leaf, value.detach().clone())


# ------------------------------------------------------------------ answers recorded for the notebook


class Recorded:
    """The reference's answers recorded on one visible check's inputs, given where the call matches.

    records: [{"kind", "name", "args", "kwargs", "state", "training", "callbacks",
    "result", "error"}, ...] with trees over ``arrays``; a callback is
    {"handle": position among the call's callables, "args", "kwargs", "result"}.
    """

    def __init__(self, records: list[dict], arrays: dict[str, np.ndarray]):
        self.records = records
        self.arrays = arrays

    def handle(self, meta: dict, arrays: dict, callback: Ask) -> Message:
        if meta.get("kind") == "vjp":
            return error_reply("carried", "the notebook's checks carry values only, not gradients")
        for record in self.records:
            if not self._same_call(record, meta, arrays):
                continue
            if not self._callbacks_agree(record, meta, callback):
                continue
            if record.get("error"):
                return error_reply("carried", record["error"])
            result = record.get("result")
            return {"op": "carried", "result": result, "call": None, "error": None}, dict(self.arrays)
        meta, _ = error_reply("carried", "no recorded call passes these arguments")
        return {**meta, "unanswered": True}, {}

    def _same_call(self, record: dict, meta: dict, arrays: dict) -> bool:
        if record.get("kind") != meta.get("kind") or record.get("name") != meta.get("name"):
            return False
        parts = ["args", "kwargs"] + (["state"] if meta.get("kind") == "forward" else [])
        if meta.get("kind") == "forward" and bool(record.get("training")) != bool(meta.get("training")):
            return False
        return all(same_tree(meta.get(part), arrays, record.get(part), self.arrays) for part in parts)

    def _callbacks_agree(self, record: dict, meta: dict, callback: Ask) -> bool:
        handles = _handles([meta.get("args"), meta.get("kwargs")])
        for made in record.get("callbacks", []):
            position = made.get("handle")
            if not isinstance(position, int) or position >= len(handles):
                return False
            request = {"op": "callback", "kind": "call", "handle": handles[position]}
            request.update(args=made.get("args"), kwargs=made.get("kwargs"))
            reply, answer = callback(request, dict(self.arrays))
            if reply.get("error") or not same_tree(reply.get("result"), answer, made.get("result"), self.arrays):
                return False
        return True


def _handles(trees) -> list[int]:
    found: list = []

    def walk(tree) -> None:
        if isinstance(tree, dict) and tree.get("$") == "callable":
            found.append(tree.get("h"))
        elif isinstance(tree, dict) and tree.get("$") in ("list", "tuple"):
            for item in tree.get("items", []):
                walk(item)
        elif isinstance(tree, dict) and tree.get("$") == "dict":
            for pair in tree.get("items", []):
                walk(pair[1])

    for tree in trees:
        walk(tree)
    return found


def same_tree(a, arrays_a: dict, b, arrays_b: dict) -> bool:
    """Whether two trees hold the same data: arrays within SAME_CALL (exact for integers, booleans and
    strings), of the same shape and kind; callables wherever the other has one."""
    if isinstance(a, dict) and isinstance(b, dict):
        tag = a.get("$")
        if tag != b.get("$"):
            return False
        if tag in ("tensor", "ndarray"):
            x, y = arrays_a.get(a.get("a")), arrays_b.get(b.get("a"))
            return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and _same_array(x, y)
        if tag in ("list", "tuple"):
            items_a, items_b = a.get("items", []), b.get("items", [])
            return len(items_a) == len(items_b) and all(
                same_tree(x, arrays_a, y, arrays_b) for x, y in zip(items_a, items_b)
            )
        if tag == "dict":
            pairs_a, pairs_b = a.get("items", []), b.get("items", [])
            return [k for k, _ in pairs_a] == [k for k, _ in pairs_b] and all(
                same_tree(x, arrays_a, y, arrays_b) for (_, x), (_, y) in zip(pairs_a, pairs_b)
            )
        if tag == "callable":
            return True
        return a == b
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return bool(SAME_CALL.close(np.array(a), np.array(b)))
    return type(a) is type(b) and a == b


def _same_array(x: np.ndarray, y: np.ndarray) -> bool:
    if x.shape != y.shape:
        return False
    if (x.dtype.kind == "f") != (y.dtype.kind == "f") or (x.dtype.kind == "U") != (y.dtype.kind == "U"):
        return False
    return bool(np.all(SAME_CALL.close(x, y)))
